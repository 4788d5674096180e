package sacrebleu

import (
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

// TestBootstrapAllEqualsRowSums pins the integer fast path to numpy's row-by-row float32
// sums, and checks that statistics outside its conditions take the row path.
func TestBootstrapAllEqualsRowSums(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const n, d, B = 97, 5, 40
	mk := func(scale float64, frac bool) Stats {
		s := Stats{Dim: d, Data: make([]float64, n*d)}
		for i := range s.Data {
			s.Data[i] = float64(rng.Intn(int(scale)))
			if frac {
				s.Data[i] += 0.25 * float64(rng.Intn(4))
			}
		}
		return s
	}
	idx, err := choice(12345, n, B)
	require.NoError(t, err)
	cases := []struct {
		name    string
		systems []Stats
		fast    bool
	}{
		{"small counts", []Stats{mk(50, false), mk(50, false), mk(3, false)}, true},
		{"fractions", []Stats{mk(50, true), mk(50, false)}, false},
		{"sums may pass 2^24", []Stats{mk(1<<20, false)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.fast, countable(c.systems))
			got := bootstrapAll(sumScorer{}, c.systems, idx, B)
			for k, st := range c.systems {
				require.Equal(t, bootstrap(sumScorer{}, st, idx, B), got[k], "system %d", k)
			}
		})
	}
}
