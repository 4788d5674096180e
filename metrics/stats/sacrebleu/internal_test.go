package sacrebleu

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// sumScorer scores a float32 row by its exact float64 value sum, so that any difference in
// the row's bits shows.
type sumScorer struct{}

func (sumScorer) ScoreFromStats(sum []float64, p core.StatsPrecision) (float64, bool) {
	v := 0.0
	for i, x := range sum {
		v += x * float64(i+1)
	}
	return v, p == core.StatsFloat32
}

// TestBootstrapScoresEqualsRowSums pins the integer fast path (counts packed per block of
// 4 segments, counts above 3 as excesses, 3 or 2 statistics per word) to numpy's row-by-row
// float32 sums, and checks that statistics outside its conditions take the row path.
func TestBootstrapScoresEqualsRowSums(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const d, B = 5, 40
	mk := func(n int, scale float64, frac bool) Stats {
		s := Stats{Dim: d, Data: make([]float64, n*d)}
		for i := range s.Data {
			s.Data[i] = float64(rng.Intn(int(scale)))
			if frac {
				s.Data[i] += 0.25 * float64(rng.Intn(4))
			}
		}
		return s
	}
	cases := []struct {
		name string
		st   Stats
		fast bool
	}{
		{"small counts", mk(97, 50, false), true},
		{"tiny counts", mk(97, 3, false), true},
		{"n not a multiple of 4", mk(1001, 50, false), true},
		{"two segments, counts up to 2", mk(2, 50, false), true},
		{"one segment, drawn n times", mk(1, 50, false), true},
		{"seven segments, counts above 3", mk(7, 50, false), true},
		{"even dimension", Stats{Dim: 4, Data: mk(20, 100, false).Data[:80]}, true},
		{"21-bit lanes, sums just below 2^21", mk(64, 1<<15, false), true},
		{"32-bit lanes, sums just below 2^24", mk(64, 1<<18, false), true},
		{"fractions", mk(97, 50, true), false},
		{"sums may pass 2^24", mk(97, 1<<20, false), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.fast, countable(c.st))
			n := c.st.Rows()
			idx, err := choice(12345, n, B)
			require.NoError(t, err)
			p, err := newPlan(12345, n, B)
			require.NoError(t, err)
			got, err := bootstrapScores(sumScorer{}, c.st, p, nil)
			require.NoError(t, err)
			require.Equal(t, bootstrap(sumScorer{}, c.st, idx, B), got)
		})
	}
}

// TestSwapTableSums pins the packed trial sums to the plain sum of (baseline − system) over
// the segments each trial keeps, for every lane width the differences' size selects.
func TestSwapTableSums(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	mk := func(n, d int, scale int) Stats {
		s := Stats{Dim: d, Data: make([]float64, n*d)}
		for i := range s.Data {
			s.Data[i] = float64(rng.Intn(scale))
		}
		return s
	}
	cases := []struct {
		name         string
		n, d         int
		scale        int
		lanes, words int
	}{
		{"16-bit lanes", 203, 7, 100, 4, 2},
		{"21-bit lanes, odd number of blocks", 1000, 7, 1000, 3, 2},
		{"21-bit lanes, 4 words", 1000, 13, 1000, 3, 4},
		{"16-bit lanes, 3 words", 64, 13, 100, 4, 3},
		{"32-bit lanes", 90, 7, 1 << 20, 2, 3},
		{"64-bit lanes", 9000, 7, 1 << 27, 1, 6},
		{"one segment", 1, 7, 5, 4, 1}, // at most 4 statistics differ: one word
	}
	var tab swapTable // reused across cases, as across systems
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const trials = 37
			d := c.d
			bl, sys := mk(c.n, d, c.scale), mk(c.n, d, c.scale)
			for i := 0; i < c.n; i++ { // one statistic equal in both: not in dims
				sys.Data[i*d+3] = bl.Data[i*d+3]
			}
			nbits := trials * c.n
			pos := make([]uint64, (nbits+63)/64+1)
			for i := range nbits {
				pos[i/64] |= uint64(rng.Intn(2)) << (i % 64)
			}
			require.True(t, tab.build(bl, sys))
			require.Equal(t, c.lanes, tab.lanes)
			require.Equal(t, c.words, tab.words)
			require.NotContains(t, tab.dims, 3)
			tab.sums(blockBytes(pos, c.n, trials), trials)
			for tr := range trials {
				for k, j := range tab.dims {
					var want int64
					for i := range c.n {
						if bit := tr*c.n + i; pos[bit/64]>>(bit%64)&1 == 1 {
							want += int64(bl.Data[i*d+j] - sys.Data[i*d+j])
						}
					}
					require.Equal(t, want, tab.diff(tr, k), "trial %d statistic %d", tr, j)
				}
			}
		})
	}
	frac := mk(10, 2, 5)
	frac.Data[3] += 0.5
	require.False(t, tab.build(frac, mk(10, 2, 5)))
}

// exactMean must be statistics.mean's exact fraction rounded once: here the sum of exact
// rationals (big.Rat), divided and rounded, on values of every magnitude and sign.
func TestExactMean(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	ratMean := func(v []float64) float64 {
		sum, x := new(big.Rat), new(big.Rat)
		for _, f := range v {
			sum.Add(sum, x.SetFloat64(f))
		}
		m, _ := sum.Quo(sum, x.SetInt64(int64(len(v)))).Float64()
		return m
	}
	cases := [][]float64{
		{0}, {math.Copysign(0, -1)}, {0, 0, 0}, {1}, {1, 2}, {0.1, 0.2, 0.3},
		{1e308, 1e308, -1e308}, {5e-324, 5e-324, 1e-310}, {1e-300, 1e300, -1e300},
		{math.Nextafter(1, 2), 1, 1}, {-3.5, 2.25, 17},
	}
	for range 300 {
		v := make([]float64, 1+rng.Intn(1200))
		for i := range v {
			switch rng.Intn(3) {
			case 0:
				v[i] = 100 * rng.Float64()
			case 1:
				v[i] = float64(float32(30 + rng.Float64())) // float32 scores
			default:
				v[i] = math.Ldexp(rng.NormFloat64(), rng.Intn(200)-100)
			}
		}
		cases = append(cases, v)
	}
	for i, v := range cases {
		require.Equal(t, math.Float64bits(ratMean(v)), math.Float64bits(exactMean(v)), "case %d", i)
	}
}

// Columns that statistics share with the ones bootstrapped before (with the same plan) are
// taken from keptColumns; the scores must be the row sums' all the same, for statistics
// sharing no column, some, all of them, and for another plan.
func TestBootstrapScoresKeptColumns(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	const n, d, B = 150, 7, 60
	mk := func(from Stats, keep ...int) Stats {
		s := Stats{Dim: d, Data: make([]float64, n*d)}
		for i := range s.Data {
			s.Data[i] = float64(rng.Intn(40))
		}
		for _, j := range keep {
			for i := j; i < len(s.Data); i += d {
				s.Data[i] = from.Data[i]
			}
		}
		return s
	}
	p, err := newPlan(12345, n, B)
	require.NoError(t, err)
	p2, err := newPlan(777, n, B)
	require.NoError(t, err)
	idx, err := choice(12345, n, B)
	require.NoError(t, err)
	idx2, err := choice(777, n, B)
	require.NoError(t, err)
	var kept keptColumns
	first := mk(Stats{})
	seq := []struct {
		name string
		st   Stats
		p    *plan
		idx  []int64
	}{
		{"first", first, p, idx},
		{"sharing columns 1, 4 and 6", mk(first, 1, 4, 6), p, idx},
		{"sharing every column", first, p, idx},
		{"sharing none", mk(first), p, idx},
		{"another plan", first, p2, idx2},
	}
	for _, c := range seq {
		got, err := bootstrapScores(sumScorer{}, c.st, c.p, &kept)
		require.NoError(t, err)
		require.Equal(t, bootstrap(sumScorer{}, c.st, c.idx, B), got, c.name)
	}
}

// addRows2 (assembly on amd64) must add what addRows2Go adds, for every row width, with
// digits reaching the last table row and words using all 64 bits.
func TestAddRows2(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for dw := 1; dw <= 9; dw++ {
		for _, n := range []int{0, 1, 7, 300} {
			t1, t2 := make([]uint64, 256*dw), make([]uint64, 256*dw)
			for i := range t1 {
				t1[i], t2[i] = rng.Uint64(), rng.Uint64()
			}
			d1, d2 := make([]uint8, n), make([]uint8, n)
			for i := range d1 {
				d1[i], d2[i] = uint8(rng.Intn(256)), uint8(rng.Intn(256))
			}
			if n > 0 {
				d1[0], d2[n-1] = 255, 255
			}
			want, got := make([]uint64, n*dw), make([]uint64, n*dw)
			for i := range want {
				want[i] = rng.Uint64()
				got[i] = want[i]
			}
			addRows2Go(want, t1, t2, d1, d2, dw)
			addRows2(got, t1, t2, d1, d2, dw)
			require.Equal(t, want, got, "dw %d, %d resamples", dw, n)
		}
	}
}
