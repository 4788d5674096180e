package stats_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// plainMetric hides the optional fast paths of a metric's states (core.ReplicaAdder,
// core.SumVectorState), so that the bootstrap takes its generic path: one state per
// replicate, fed by Add.
type plainMetric struct{ core.Metric }

type plainState struct{ core.State }

func (p plainMetric) NewState() core.State { return plainState{p.Metric.NewState()} }

func (s plainState) Merge(o core.State) error { return s.State.Merge(o.(plainState).State) }

// TestFastPathsMatchGenericPath checks that the replicate fast paths (sum vectors for bleu
// and chrf, one decode for classification) give the same replicate values, bit for bit, as
// folding every replicate with Add.
func TestFastPathsMatchGenericPath(t *testing.T) {
	hyps := []string{"the cat sat on the mat", "a dog barked", "it is raining today", "the quick brown fox", "hello world", ""}
	refs := []string{"the cat is on the mat", "the dog barked loudly", "today it rains", "a quick brown fox jumps", "hello there world", "nothing"}
	cases := []struct {
		entry map[string]any
		ex    func(i int) []core.Value
	}{
		{map[string]any{"type": "bleu"}, func(i int) []core.Value {
			return []core.Value{{Kind: core.String, Str: hyps[i%len(hyps)]}, {Kind: core.StringList, Strs: []string{refs[(i*7)%len(refs)]}}}
		}},
		{map[string]any{"type": "chrf"}, func(i int) []core.Value {
			return []core.Value{{Kind: core.String, Str: hyps[i%len(hyps)]}, {Kind: core.StringList, Strs: []string{refs[(i*5)%len(refs)]}}}
		}},
		{map[string]any{"type": "wer"}, func(i int) []core.Value {
			return []core.Value{{Kind: core.String, Str: hyps[i%len(hyps)]}, {Kind: core.String, Str: refs[(i*5)%len(refs)]}}
		}},
		{map[string]any{"type": "f1", "average": "macro"}, func(i int) []core.Value {
			return []core.Value{{Kind: core.Int, Int: int64(i % 3)}, {Kind: core.Int, Int: int64((i * 7) % 3)}}
		}},
		{map[string]any{"type": "accuracy"}, func(i int) []core.Value {
			return []core.Value{{Kind: core.Int, Int: int64(i % 2)}, {Kind: core.Int, Int: int64((i / 3) % 2)}}
		}},
	}
	cfg := stats.Config{Method: stats.MethodPoisson, Resamples: 64, Level: 0.95, Seed: 7}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.entry["type"]), func(t *testing.T) {
			m, err := metrics.New(tc.entry)
			require.NoError(t, err)
			fast := stats.NewBootstrap(m.Metric, cfg)
			slow := stats.NewBootstrap(plainMetric{m.Metric}, cfg)
			fs, ss := fast.NewState(), slow.NewState()
			var memo core.Memo
			for i := range 200 {
				memo.Next()
				ex := &core.Example{Values: tc.ex(i), Unit: uint64(i), Memo: &memo, Seq: uint64(i)}
				require.NoError(t, m.Check(ex))
				fs.Add(ex, 1)
				ss.Add(ex, 1)
			}
			require.Equal(t, ss.(*stats.BootstrapState).ReplicateValues(), fs.(*stats.BootstrapState).ReplicateValues())
			require.Equal(t, ss.Result(), fs.Result())
			b, err := fs.MarshalBinary()
			require.NoError(t, err)
			back, err := fast.DecodeState(b)
			require.NoError(t, err)
			require.Equal(t, fs.Result(), back.Result())
		})
	}
}
