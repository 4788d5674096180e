package regress

import (
	"math"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

func randFloat(rng *rand.Rand, extreme bool) float64 {
	k := 1 + rng.Intn(7)
	if k == 2 || (extreme && rng.Intn(4) == 0) {
		k = 0
		if extreme {
			k = rng.Intn(3)
		}
	}
	switch k {
	case 0:
		return math.Float64frombits(rng.Uint64()) // anything, including subnormals, Inf, NaN
	case 1:
		return math.Float64frombits(rng.Uint64() & (1<<52 - 1)) // subnormal
	case 2:
		return (rng.Float64() - 0.5) * math.MaxFloat64
	case 3:
		return float64(rng.Int63n(1000) - 500)
	case 4:
		return 1e9 + rng.Float64()
	default:
		return rng.NormFloat64() * math.Pow(10, float64(rng.Intn(40)-20))
	}
}

func same(t *testing.T, want core.Sum, got *acc, msg string) {
	t.Helper()
	w, g := want.Float(), got.float()
	if math.IsNaN(w) || math.IsInf(w, 0) {
		// core.Sum flags an intermediate overflow as infinite for good; acc stays exact
		// beyond the float64 range. Both are then non-finite or huge: nothing to compare.
		return
	}
	require.Equal(t, math.Float64bits(w), math.Float64bits(g), "%s: want %v got %v", msg, w, g)
}

// TestAccMatchesSum: acc holds exactly the value core.Sum holds (compared through the exactly
// rounded result and through the difference, which must be exactly zero).
func TestAccMatchesSum(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	compared := 0
	defer func() { require.Greater(t, compared, 2000) }()
	for trial := 0; trial < 3000; trial++ {
		var s core.Sum
		var a acc
		n := rng.Intn(40)
		extreme := trial%3 == 0
		for i := 0; i < n; i++ {
			x, y := randFloat(rng, extreme), randFloat(rng, extreme)
			switch rng.Intn(3) {
			case 0:
				s.Add(x)
				a.add(x)
			case 1:
				s.AddProduct(x, y)
				a.addProduct(x, y)
			default:
				w := rng.Int63n(5) + 1
				s.AddWeighted(x, w)
				a.addWeighted(x, w)
			}
		}
		same(t, s, &a, "sum")
		if f := s.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			compared++
		}
		if f := s.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			// exact equality: (a − s) is exactly zero
			d := a.sum()
			neg := core.ScaleSum(&s, -1)
			d.Merge(&neg)
			if f := d.Float(); !math.IsInf(f, 0) && !math.IsNaN(f) {
				require.Equal(t, 0.0, f)
			}
		}
		// round trip and merge
		var b acc
		as := a.sum()
		b.fromSum(&as)
		same(t, s, &b, "fromSum")
		var c acc
		c.merge(&a)
		c.merge(&acc{})
		same(t, s, &c, "merge")
	}
}

func TestAccCancellation(t *testing.T) {
	var a acc
	a.add(math.MaxFloat64)
	a.add(math.MaxFloat64)
	a.add(-math.MaxFloat64)
	a.add(1e-300)
	a.add(-math.MaxFloat64)
	require.Equal(t, 1e-300, a.float())
	a.add(-2e-300)
	require.Equal(t, -1e-300, a.float())
	var b acc
	b.add(math.MaxFloat64)
	b.add(math.MaxFloat64)
	require.True(t, math.IsInf(b.float(), 1))
	var c acc
	c.add(5e-324)
	c.add(5e-324)
	require.Equal(t, 1e-323, c.float())
	// many additions force lazy carry normalization
	var d acc
	d.pending = accMaxPend - 10
	for i := 0; i < 100; i++ {
		d.add(0.1)
		d.add(-0.3)
	}
	var s core.Sum
	for i := 0; i < 100; i++ {
		s.Add(0.1)
		s.Add(-0.3)
	}
	same(t, s, &d, "normalized")
	// weighted products
	var e acc
	e.addProduct3(0.1, 0.7, 3)
	var f acc
	for i := 0; i < 3; i++ {
		f.addProduct(0.1, 0.7)
	}
	require.Equal(t, f.float(), e.float())
}

func BenchmarkAccAdd(b *testing.B) {
	var a acc
	x := 0.1
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a.add(x)
		x += 1e-3
	}
}

func BenchmarkSumAdd(b *testing.B) {
	var a core.Sum
	x := 0.1
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a.Add(x)
		x += 1e-3
	}
}
