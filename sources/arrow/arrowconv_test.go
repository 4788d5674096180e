package arrow

import (
	"math"
	"math/big"
	mrand "math/rand"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

func TestDecimalValues(t *testing.T) {
	big10 := func(s string) *big.Int {
		v, ok := new(big.Int).SetString(s, 10)
		require.True(t, ok, s)
		return v
	}
	cases := []struct {
		unscaled string
		scale    int32
		want     core.Value
	}{
		{"-450", 2, fv(-4.5)},
		{"12345", 0, core.Value{Kind: core.Int, Int: 12345}},
		{"-9223372036854775808", 0, core.Value{Kind: core.Int, Int: math.MinInt64}},
		{"9223372036854775808", 0, fv(9223372036854775808)},
		{"5", -3, core.Value{Kind: core.Int, Int: 5000}}, // Arrow allows negative scales
		{"5", -30, fv(5e30)},
		{"0", 10, fv(0)},
		{"1", 38, fv(1e-38)},
		{"9007199254740993", 0, core.Value{Kind: core.Int, Int: 9007199254740993}},
		{"9007199254740993", 1, fv(900719925474099.3)},
		// Halfway between two floats: rounds to even, as Python's float(Decimal(...)).
		{"90071992547409930", 1, fv(9007199254740992)},
		{"99999999999999999999999999999999999999", 10, fv(9999999999999999999999999999.9999999999)},
		{"-12345678901234567890123456789012345678901234567890123456789012345678901234567", 20,
			fv(-123456789012345678901234567890123456789012345678901234567.89012345678901234567)},
	}
	for _, c := range cases {
		require.Equal(t, canon(c.want), canon(decimalValue(big10(c.unscaled), c.scale)), "%se-%d", c.unscaled, c.scale)
		if u := big10(c.unscaled); u.BitLen() < 127 {
			require.Equal(t, canon(c.want), canon(decimal128Value(decimal128.FromBigInt(u), c.scale)), "%se-%d", c.unscaled, c.scale)
		}
	}
	// The fast path and the literal agree on random values of every size and scale: the
	// literal with a decimal point, as a JSON file holds it.
	r := rand.New(rand.NewPCG(7, 8))
	mr := mrand.New(mrand.NewSource(9))
	for i := 0; i < 20000; i++ {
		u := new(big.Int).Rand(mr, new(big.Int).Lsh(big.NewInt(1), uint(1+r.IntN(126))))
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		scale := int32(r.IntN(39))
		got := decimal128Value(decimal128.FromBigInt(u), scale)
		lit := u.String()
		neg := strings.HasPrefix(lit, "-")
		lit = strings.TrimPrefix(lit, "-")
		if scale > 0 {
			lit = strings.Repeat("0", max(0, int(scale)+1-len(lit))) + lit
			lit = lit[:len(lit)-int(scale)] + "." + lit[len(lit)-int(scale):]
		}
		if neg {
			lit = "-" + lit
		}
		want, err := strconv.ParseFloat(lit, 64)
		require.NoError(t, err)
		if scale == 0 && u.IsInt64() {
			require.Equal(t, core.Value{Kind: core.Int, Int: u.Int64()}, got, lit)
		} else {
			require.Equal(t, canon(fv(want)), canon(got), lit)
		}
	}
}
