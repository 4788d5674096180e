package stats_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/stretchr/testify/require"
)

// TestPairedReplicatesAcrossRuns: a system's replicates depend only on its records' keys
// and the seed, so the paired p-value of two systems is the same whether each system was
// folded in one pass, in another order, in shards merged in any order, or decoded from a
// saved state — comparing across runs is comparing within one run.
func TestPairedReplicatesAcrossRuns(t *testing.T) {
	cfg := stats.Config{Method: stats.MethodPoisson, Resamples: 300, Level: 0.95, Seed: 4242, Key: "id"}
	for _, entry := range []map[string]any{
		{"type": "accuracy"},
		{"type": "f1", "compat": "sklearn", "average": "macro"},
	} {
		t.Run(fmt.Sprint(entry["type"], entry["average"]), func(t *testing.T) {
			m, err := metrics.New(entry)
			require.NoError(t, err)
			bm, err := m.WithCI(cfg)
			require.NoError(t, err)
			rng := rand.New(rand.NewSource(11))
			const n = 150
			keys := make([]string, n)
			base, cand := make([][]core.Value, n), make([][]core.Value, n)
			for i := range keys {
				keys[i] = fmt.Sprintf("seg-%03d", i)
				label := int64(rng.Intn(3))
				pick := func(p float64) int64 {
					if rng.Float64() < p {
						return label
					}
					return int64(rng.Intn(3))
				}
				base[i] = []core.Value{intVal(pick(0.6)), intVal(label)}
				cand[i] = []core.Value{intVal(pick(0.7)), intVal(label)}
			}
			fold := func(rows [][]core.Value, order []int) *stats.BootstrapState {
				s := bm.Metric.NewState().(*stats.BootstrapState)
				for _, i := range order {
					ex := core.Example{Values: rows[i], Unit: stats.UnitOfText(keys[i])}
					require.NoError(t, bm.Check(&ex))
					s.Add(&ex, 1)
				}
				return s
			}
			inOrder := make([]int, n)
			for i := range inOrder {
				inOrder[i] = i
			}
			delta, p := pairedPValue(t, fold(base, inOrder), fold(cand, inOrder))
			require.Less(t, p, 1.0)

			// Another run: the baseline in shards of a shuffled order merged back to front,
			// the candidate saved and decoded.
			perm := rng.Perm(n)
			shards := []*stats.BootstrapState{fold(base, perm[:40]), fold(base, perm[40:41]), fold(base, perm[41:])}
			for i := len(shards) - 1; i > 0; i-- {
				require.NoError(t, shards[i-1].Merge(shards[i]))
			}
			saved, err := fold(cand, rng.Perm(n)).MarshalBinary()
			require.NoError(t, err)
			decoded, err := bm.Metric.DecodeState(saved)
			require.NoError(t, err)
			delta2, p2 := pairedPValue(t, shards[0], decoded.(*stats.BootstrapState))
			require.Equal(t, delta, delta2)
			require.Equal(t, p, p2)
			require.Equal(t, goldentest.Fingerprint(core.Result{Value: fold(base, inOrder).ReplicateValues()}),
				goldentest.Fingerprint(core.Result{Value: shards[0].ReplicateValues()}))

			// Unpaired (other seed for the candidate): refused, naming the difference, never
			// a silently unpaired test.
			other := cfg
			other.Seed++
			obm, err := m.WithCI(other)
			require.NoError(t, err)
			unpaired := obm.Metric.NewState().(*stats.BootstrapState)
			for i := range cand {
				ex := core.Example{Values: cand[i], Unit: stats.UnitOfText(keys[i])}
				unpaired.Add(&ex, 1)
			}
			_, err = stats.PairedBootstrap(fold(base, inOrder), unpaired)
			require.ErrorIs(t, err, stats.ErrUnpaired)
			require.ErrorContains(t, err, "seed")
		})
	}
}
