package npyrand

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldens mirrors testdata/goldens/stats/npyrand.json, written by gen_sacrebleu_stats.py from the
// real numpy.
type goldens struct {
	Numpy string `json:"numpy"`
	Cases []struct {
		Seed   uint64   `json:"seed"`
		Raw    []string `json:"raw"`
		Choice []struct {
			N     int64   `json:"n"`
			Rows  int     `json:"rows"`
			Cols  int     `json:"cols"`
			Draws []int64 `json:"draws"`
		} `json:"choice"`
		Bools []struct {
			Rows  int   `json:"rows"`
			Cols  int   `json:"cols"`
			Draws []int `json:"draws"`
		} `json:"bools"`
		BoolsThenChoice struct {
			N          int64   `json:"n"`
			BoolRows   int     `json:"bool_rows"`
			ChoiceRows int     `json:"choice_rows"`
			Bools      []int   `json:"bools"`
			Choice     []int64 `json:"choice"`
		} `json:"bools_then_choice"`
	} `json:"cases"`
}

func load(t *testing.T) goldens {
	t.Helper()
	b, err := os.ReadFile("../../../testdata/goldens/stats/npyrand.json")
	require.NoError(t, err)
	var g goldens
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.Cases)
	return g
}

func toInts(bs []bool) []int {
	out := make([]int, len(bs))
	for i, b := range bs {
		if b {
			out[i] = 1
		}
	}
	return out
}

func TestAgainstNumpy(t *testing.T) {
	g := load(t)
	for _, c := range g.Cases {
		t.Run(strconv.FormatUint(c.Seed, 10), func(t *testing.T) {
			gen := New(c.Seed)
			for i, s := range c.Raw {
				want, err := strconv.ParseUint(s, 10, 64)
				require.NoError(t, err)
				require.Equal(t, want, gen.Uint64(), "raw draw %d", i)
			}
			for _, ch := range c.Choice {
				got := make([]int64, ch.Rows*ch.Cols)
				require.NoError(t, New(c.Seed).Choice(ch.N, got))
				require.Equal(t, ch.Draws, got, "choice(%d, (%d, %d))", ch.N, ch.Rows, ch.Cols)
			}
			for _, bl := range c.Bools {
				got := make([]bool, bl.Rows*bl.Cols)
				New(c.Seed).Bools(got)
				require.Equal(t, bl.Draws, toInts(got), "integers(2, (%d, %d), bool)", bl.Rows, bl.Cols)
			}
			for _, bl := range c.Bools {
				n := bl.Rows * bl.Cols
				packed := make([]uint64, (n+63)/64+1)
				New(c.Seed).BoolBits(packed, n)
				got := make([]int, n)
				for i := range got {
					got[i] = int(packed[i/64] >> (i % 64) & 1)
				}
				require.Equal(t, bl.Draws, got, "packed integers(2, (%d, %d), bool)", bl.Rows, bl.Cols)
			}
			btc := c.BoolsThenChoice
			gen = New(c.Seed)
			bs := make([]bool, btc.BoolRows*int(btc.N))
			gen.Bools(bs)
			cs := make([]int64, btc.ChoiceRows*int(btc.N))
			require.NoError(t, gen.Choice(btc.N, cs))
			require.Equal(t, btc.Bools, toInts(bs))
			require.Equal(t, btc.Choice, cs)
			// The packed draw leaves the generator where numpy's does.
			gen = New(c.Seed)
			gen.BoolBits(make([]uint64, 2), len(bs))
			cs2 := make([]int64, len(cs))
			require.NoError(t, gen.Choice(btc.N, cs2))
			require.Equal(t, btc.Choice, cs2)
		})
	}
}

func TestChoiceRange(t *testing.T) {
	for _, n := range []int64{0, -1, 1<<32 + 1} {
		require.ErrorIs(t, New(1).Choice(n, make([]int64, 3)), ErrRange, "n=%d", n)
	}
}

// TestUint32Halves pins the buffering of 32-bit draws: low half first, then the high half of
// the same 64-bit output.
func TestUint32Halves(t *testing.T) {
	a, b := New(12345), New(12345)
	x := a.Uint64()
	require.Equal(t, uint32(x), b.Uint32())
	require.Equal(t, uint32(x>>32), b.Uint32())
	require.Equal(t, a.Uint64(), uint64(b.Uint32())|uint64(b.Uint32())<<32)
}

func BenchmarkChoice(b *testing.B) {
	dst := make([]int64, 3004*1000)
	b.ReportAllocs()
	for b.Loop() {
		_ = New(12345).Choice(3004, dst)
	}
}
