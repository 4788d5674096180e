package stats_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/stats"
)

func TestSwapBitsAreFairAndDeterministic(t *testing.T) {
	a, b := make([]uint8, 10000), make([]uint8, 10000)
	stats.SwapBits(1, 42, a)
	stats.SwapBits(1, 42, b)
	require.Equal(t, a, b)
	ones := 0
	for _, x := range a {
		require.LessOrEqual(t, x, uint8(1))
		ones += int(x)
	}
	// 10,000 fair coins: the count is within 5 standard deviations (50) of 5,000.
	require.InDelta(t, 5000, ones, 250)
	stats.SwapBits(2, 42, b)
	require.NotEqual(t, a, b, "another seed flips other coins")
	short := make([]uint8, 70)
	stats.SwapBits(1, 42, short)
	require.Equal(t, a[:70], short, "a trial's bit does not depend on how many trials there are")
}

func TestPairedRandomization(t *testing.T) {
	n := 200
	units := make([]uint64, n)
	for i := range units {
		units[i] = stats.UnitOfRow(int64(i))
	}
	pattern := func(f func(i int) bool) []bool {
		out := make([]bool, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	const trials = 500
	for _, tc := range []struct {
		name       string
		base, cand []bool
		check      func(t *testing.T, p stats.Paired)
	}{
		{"identical systems", pattern(func(i int) bool { return i%3 == 0 }), pattern(func(i int) bool { return i%3 == 0 }),
			func(t *testing.T, p stats.Paired) {
				// Swapping equal statistics changes nothing: every |δ_t| = 0 ≥ |δ̂| = 0.
				require.Equal(t, 0.0, p.Delta)
				require.Equal(t, 1.0, p.P)
			}},
		{"candidate always right", pattern(func(i int) bool { return false }), pattern(func(i int) bool { return true }),
			func(t *testing.T, p stats.Paired) {
				// δ̂ = 1; a trial reaches |δ_t| = 1 only if it swaps no segment or all of
				// them, which 200 fair coins practically never do.
				require.Equal(t, 1.0, p.Delta)
				require.Equal(t, 1.0/(trials+1), p.P)
			}},
		{"small difference", pattern(func(i int) bool { return i%2 == 0 }), pattern(func(i int) bool { return i%2 == 0 || i == 1 }),
			func(t *testing.T, p stats.Paired) {
				// One segment of 200 differs: half the trials swap it, and each of those
				// gives |δ_t| = |δ̂|, the others too (the swap only flips its sign).
				require.InDelta(t, 0.005, p.Delta, 1e-12)
				require.Equal(t, 1.0, p.P)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stats.NewRandomization(accuracy(t), trials, 12345)
			bs, cs := r.NewState().(*stats.RandomizationState), r.NewState().(*stats.RandomizationState)
			fold(bs, units, tc.base)
			fold(cs, units, tc.cand)
			p, err := stats.PairedRandomization(bs, cs)
			require.NoError(t, err)
			require.Equal(t, trials, p.Draws)
			tc.check(t, p)

			// Split, merged, and round-tripped through bytes: the same test to the bit.
			c1, c2 := r.NewState(), r.NewState()
			fold(c1, units[:77], tc.cand[:77])
			fold(c2, units[77:], tc.cand[77:])
			require.NoError(t, c2.Merge(c1))
			data, err := c2.MarshalBinary()
			require.NoError(t, err)
			dec, err := r.DecodeState(data)
			require.NoError(t, err)
			p2, err := stats.PairedRandomization(bs, dec.(*stats.RandomizationState))
			require.NoError(t, err)
			require.Equal(t, p.P, p2.P)
			require.Equal(t, p.Delta, p2.Delta)
			require.Equal(t, p.Draws, p2.Draws)
		})
	}
}

func TestPairedRandomizationRefusesOtherSetUps(t *testing.T) {
	a := stats.NewRandomization(accuracy(t), 10, 1).NewState().(*stats.RandomizationState)
	b := stats.NewRandomization(accuracy(t), 10, 2).NewState().(*stats.RandomizationState)
	fold(a, []uint64{1}, []bool{true})
	fold(b, []uint64{1}, []bool{true})
	_, err := stats.PairedRandomization(a, b)
	require.ErrorIs(t, err, stats.ErrUnpaired)
	require.ErrorContains(t, err, "seed=1")
}
