package compare

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// pairerState is a state that runs its own paired test (as method sacrebleu's do).
type pairerState struct {
	value any
	p     float64
}

func (s *pairerState) Add(*core.Example, int64)       {}
func (s *pairerState) Merge(core.State) error         { return nil }
func (s *pairerState) Result() core.Result            { return core.Result{Value: s.value} }
func (s *pairerState) MarshalBinary() ([]byte, error) { return nil, nil }
func (s *pairerState) PairedTest(test string, cand core.State, trials int) (stats.Paired, error) {
	c := cand.(*pairerState)
	b, ok := s.value.(float64)
	if !ok {
		return stats.Paired{}, stats.ErrNotScalar
	}
	return stats.Paired{Base: b, Cand: c.value.(float64), Delta: c.value.(float64) - b, DeltaLow: math.NaN(), DeltaHigh: math.NaN(), P: s.p, Draws: trials}, nil
}

func TestCompareUsesAStateOwnPairedTestAndRendersRows(t *testing.T) {
	sys := func(name string, vals ...any) System {
		s := System{Name: name}
		for _, v := range vals {
			s.States = append(s.States, &pairerState{value: v, p: 0.01})
		}
		return s
	}
	systems := []System{
		sys("cand", 0.5, []float64{0.1, 0.2}, math.NaN()),
		sys("base", 0.25, []float64{0.3, 0.4}, 1.0),
	}
	rep, err := Compare(context.Background(), systems, 1, Options{Test: TestBootstrap, Alpha: 0.05, Names: []string{"acc", "f1", "odd"}, CI: stats.Config{Resamples: 10, Seed: 3}, Trials: 7})
	require.NoError(t, err)
	for _, tc := range []struct {
		metric int
		check  func(t *testing.T, base, cand Row)
	}{
		{0, func(t *testing.T, base, cand Row) {
			require.True(t, base.Baseline)
			require.Equal(t, "base", base.System)
			require.True(t, cand.Tested)
			require.Equal(t, 0.25, cand.Test.Delta)
			require.Equal(t, 7, cand.Test.Draws, "the state ran the test with the options' trials")
			require.True(t, cand.Significant(0.05))
		}},
		{1, func(t *testing.T, _, cand Row) {
			require.False(t, cand.Tested)
			require.Contains(t, cand.Reason, "not compared: the value is not a scalar")
		}},
		{2, func(t *testing.T, _, cand Row) {
			require.Nil(t, cand.Value)
			require.Equal(t, "the value is not a finite number", cand.Reason)
		}},
	} {
		rows := rep.Metrics[tc.metric].Rows
		require.Len(t, rows, 2)
		tc.check(t, rows[0], rows[1])
	}
	raw, err := rep.MarshalJSON()
	require.NoError(t, err)
	require.True(t, json.Valid(raw), string(raw))
	require.Contains(t, string(raw), `{"system":"cand","value":0.5,"delta":0.25,"p_value":0.01,"significant":true}`)
	require.Contains(t, string(raw), `"odd":[{"system":"base","value":1},{"system":"cand","value":null,"reason":"the value is not a finite number"}]`)
	var tb strings.Builder
	require.NoError(t, rep.WriteTable(&tb, 4))
	require.Regexp(t, `acc\s+cand\s+0\.5\s+\+0\.25\s+p = 0\.0100 \*`, tb.String())
}

// TestCompareStopsWithItsContext: a signal cancels the command's context while compare runs
// its paired tests; Compare then stops with the context's cause instead of finishing (and the
// command exiting 0 after SIGTERM).
func TestCompareStopsWithItsContext(t *testing.T) {
	systems := []System{
		{Name: "base", States: []core.State{&pairerState{value: 0.25, p: 0.01}}},
		{Name: "cand", States: []core.State{&pairerState{value: 0.5, p: 0.01}}},
	}
	stop := errors.New("interrupted by SIGTERM")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	_, err := Compare(ctx, systems, 0, Options{Test: TestBootstrap, Alpha: 0.05, Names: []string{"acc"}, Trials: 7})
	require.ErrorIs(t, err, stop)
}
