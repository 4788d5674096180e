package stats_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

func TestPairedFromReplicatesHandComputed(t *testing.T) {
	// δ̂ = 0.75 − 0.5 = 0.25; replicate 4 is undefined on the baseline side and dropped.
	// δ* = [0.5, 0.25, 0, 0.125]; |δ* − δ̂| = [0.25, 0, 0.25, 0.125]: two are ≥ 0.25, so
	// p = (1 + 2) / (4 + 1). The 50% interval of δ* (numpy linear percentile): 25th
	// percentile at position 0.75 → 0.09375, 75th at position 2.25 → 0.3125.
	base := []any{0.5, 0.25, 0.5, 0.5, nil}
	cand := []any{1.0, 0.5, 0.5, 0.625, 0.5}
	for _, tc := range []struct {
		name               string
		b, c               float64
		level              float64
		wantDelta, wantP   float64
		wantLow, wantHigh  float64
		wantDraws, wantUnd int
	}{
		{"hand case", 0.5, 0.75, 0.5, 0.25, 0.6, 0.09375, 0.3125, 4, 1},
		// Swapping the roles negates δ̂ and every δ*: same p, mirrored interval.
		{"roles swapped", 0.75, 0.5, 0.5, -0.25, 0.6, -0.3125, -0.09375, 4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, c := base, cand
			if tc.b > tc.c {
				b, c = cand, base
				// the undefined replicate stays undefined, now on the candidate side
			}
			p := stats.PairedFromReplicates(tc.b, tc.c, b, c, tc.level)
			require.Equal(t, tc.wantDelta, p.Delta)
			require.Equal(t, tc.wantP, p.P)
			require.InDelta(t, tc.wantLow, p.DeltaLow, 1e-15)
			require.InDelta(t, tc.wantHigh, p.DeltaHigh, 1e-15)
			require.Equal(t, tc.wantDraws, p.Draws)
			require.Equal(t, tc.wantUnd, p.Undefined)
		})
	}
}

func TestPairedFromReplicatesEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name       string
		b, c       float64
		bReps      []any
		cReps      []any
		wantP      float64
		wantNaNCI  bool
		wantUndef  int
		wantDraws  int
		wantDelta0 bool
	}{
		// Identical systems: δ̂ = 0 and every |δ*_b − 0| ≥ 0, so p = 1.
		{"identical", 0.3, 0.3, []any{0.2, 0.3, 0.4}, []any{0.2, 0.3, 0.4}, 1, false, 0, 3, true},
		// Every replicate undefined: no draw, p = 1/1, no interval.
		{"all undefined", 0.3, 0.4, []any{nil, math.NaN()}, []any{0.1, 0.2}, 1, true, 2, 0, false},
		// A difference no replicate reaches: p = 1/(B+1).
		{"extreme", 0.0, 1.0, []any{0.0, 0.0, 0.0}, []any{1.0, 1.1, 0.9}, 0.25, false, 0, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := stats.PairedFromReplicates(tc.b, tc.c, tc.bReps, tc.cReps, 0.95)
			require.Equal(t, tc.wantP, p.P)
			require.Equal(t, tc.wantNaNCI, math.IsNaN(p.DeltaLow))
			require.Equal(t, tc.wantUndef, p.Undefined)
			require.Equal(t, tc.wantDraws, p.Draws)
			require.Equal(t, tc.wantDelta0, p.Delta == 0)
		})
	}
}

func TestSameConfigNamesTheDifference(t *testing.T) {
	base := stats.Config{Method: stats.MethodPoisson, Resamples: 1000, Level: 0.95, Seed: 12345, Key: "id"}
	for _, tc := range []struct {
		name   string
		change func(*stats.Config)
		want   string
	}{
		{"equal", func(*stats.Config) {}, ""},
		{"keys", func(c *stats.Config) { c.Key = "" }, `keys "id" vs "(position)"`},
		{"seed", func(c *stats.Config) { c.Seed = 7 }, "seed 12345 vs 7"},
		{"resamples", func(c *stats.Config) { c.Resamples = 500 }, "resamples 1000 vs 500"},
		{"level", func(c *stats.Config) { c.Level = 0.9 }, "level 0.95 vs 0.9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.change(&o)
			err := stats.SameConfig(base, o)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, stats.ErrUnpaired)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// accuracy builds an accuracy metric wrapped for paired tests.
func accuracy(t *testing.T) core.Metric {
	t.Helper()
	m, err := metrics.New(map[string]any{"type": "accuracy"})
	require.NoError(t, err)
	return m.Metric
}

// fold adds one example per (unit, correct) pair: prediction 1, label 1 when correct.
func fold(st core.State, units []uint64, correct []bool) {
	var memo core.Memo
	for i, u := range units {
		memo.Next()
		label := int64(0)
		if correct[i] {
			label = 1
		}
		ex := &core.Example{Values: []core.Value{{Kind: core.Int, Int: 1}, {Kind: core.Int, Int: label}}, Unit: u, Memo: &memo}
		st.Add(ex, 1)
	}
}

func TestPairedBootstrapFromStates(t *testing.T) {
	cfg := stats.Config{Method: stats.MethodPoisson, Resamples: 200, Level: 0.95, Seed: 9}
	b := stats.NewBootstrap(accuracy(t), cfg)
	units := make([]uint64, 300)
	baseOK, candOK := make([]bool, 300), make([]bool, 300)
	for i := range units {
		units[i] = stats.UnitOfRow(int64(i))
		baseOK[i] = i%2 == 0
		candOK[i] = i%2 == 0 || i%5 == 1 // the candidate fixes a fifth of the baseline's errors
	}
	bs, cs := b.NewState().(*stats.BootstrapState), b.NewState().(*stats.BootstrapState)
	fold(bs, units, baseOK)
	fold(cs, units, candOK)
	p, err := stats.PairedBootstrap(bs, cs)
	require.NoError(t, err)
	want := stats.PairedFromReplicates(0.5, 0.6, bs.ReplicateValues(), cs.ReplicateValues(), 0.95)
	require.InDelta(t, 0.1, p.Delta, 1e-12)
	require.Equal(t, want.P, p.P)
	require.Equal(t, want.DeltaLow, p.DeltaLow)
	require.Less(t, p.P, 0.01) // every replicate keeps the candidate ahead
	require.Greater(t, p.DeltaLow, 0.0)

	// Folded in another order and split in two merged parts: bit-identical.
	cs2, part := b.NewState().(*stats.BootstrapState), b.NewState()
	rev := func(x []uint64) []uint64 {
		out := make([]uint64, len(x))
		for i := range x {
			out[i] = x[len(x)-1-i]
		}
		return out
	}
	revB := func(x []bool) []bool {
		out := make([]bool, len(x))
		for i := range x {
			out[i] = x[len(x)-1-i]
		}
		return out
	}
	fold(cs2, rev(units[:100]), revB(candOK[:100]))
	fold(part, units[100:], candOK[100:])
	require.NoError(t, cs2.Merge(part))
	p2, err := stats.PairedBootstrap(bs, cs2)
	require.NoError(t, err)
	require.Equal(t, p, p2)

	// Another seed does not pair.
	other := stats.NewBootstrap(accuracy(t), stats.Config{Method: stats.MethodPoisson, Resamples: 200, Level: 0.95, Seed: 10})
	os := other.NewState().(*stats.BootstrapState)
	fold(os, units, candOK)
	_, err = stats.PairedBootstrap(bs, os)
	require.ErrorIs(t, err, stats.ErrUnpaired)
	require.ErrorContains(t, err, "seed 9 vs 10")

	// A state without replicates (nothing added) cannot be tested.
	_, err = stats.PairedBootstrap(bs, b.NewState().(*stats.BootstrapState))
	require.ErrorIs(t, err, stats.ErrNoReplicates)
}
