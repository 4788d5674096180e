package stats

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// poissonPMF is P(X = k) for X ~ Poisson(1), computed independently of poissonThresholds.
func poissonPMF(k int) float64 {
	lg, _ := math.Lgamma(float64(k + 1))
	return math.Exp(-1 - lg)
}

func TestPoissonThresholdsAreTheCDF(t *testing.T) {
	cdf := 0.0
	for k := 0; k < len(poissonThresholds)-1; k++ {
		cdf += poissonPMF(k)
		want := cdf * (1 << 16)
		// Off by at most half a count of 2^16 (rounding), plus the float sum.
		require.InDelta(t, want, float64(poissonThresholds[k]), 0.51, "k=%d", k)
	}
	require.Equal(t, uint64(1)<<16, poissonThresholds[len(poissonThresholds)-1])
	// The draw is the inverse CDF: the edges of each step map to k and k+1, through the
	// byte table and the slow path alike.
	require.Equal(t, uint8(0), poisson1(0))
	require.Equal(t, poissonSlow(math.MaxUint16), poisson1(math.MaxUint16))
	for u := uint64(0); u <= math.MaxUint16; u++ {
		require.Equal(t, poissonSlow(u), poisson1(u), "u=%d", u)
	}
	for k := 0; k < len(poissonThresholds)-2; k++ {
		if poissonThresholds[k] == poissonThresholds[k+1] {
			continue
		}
		require.Equal(t, uint8(k), poisson1(poissonThresholds[k]-1), "k=%d", k)
		require.Equal(t, uint8(k+1), poisson1(poissonThresholds[k]), "k=%d", k)
	}
}

// weightMatrix returns the weights of units 0..units-1 (as the pipeline numbers rows) for
// replicates 0..reps-1, one row per unit.
func weightMatrix(seed uint64, units, reps int) [][]uint8 {
	m := make([][]uint8, units)
	for u := range m {
		m[u] = make([]uint8, reps)
		PoissonWeights(seed, UnitOfRow(int64(u)), m[u])
	}
	return m
}

// corr is Pearson's correlation of two equally long series.
func corr(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// TestPoissonWeightsMoments checks the distribution of 2·10^6 weights: mean 1 and variance
// 1 (each within 7 standard errors: 0.005 and 0.009), and every frequency P(X=k) for
// k ≤ 5 within 6 standard errors of its exact value.
func TestPoissonWeightsMoments(t *testing.T) {
	const units, reps = 10000, 200
	for _, seed := range []uint64{0, 12345, math.MaxUint64} {
		m := weightMatrix(seed, units, reps)
		var sum, sum2 float64
		counts := make([]int, 13)
		for _, row := range m {
			for _, w := range row {
				sum += float64(w)
				sum2 += float64(w) * float64(w)
				counts[w]++
			}
		}
		n := float64(units * reps)
		mean := sum / n
		variance := sum2/n - mean*mean
		require.InDelta(t, 1, mean, 0.005, "seed %d: mean", seed)
		require.InDelta(t, 1, variance, 0.009, "seed %d: variance", seed)
		for k := 0; k <= 5; k++ {
			p := poissonPMF(k)
			se := math.Sqrt(p * (1 - p) / n)
			require.InDelta(t, p, float64(counts[k])/n, 6*se, "seed %d: P(X=%d)", seed, k)
		}
	}
}

// TestPoissonWeightsIndependent checks that weights are uncorrelated across replicates
// (including the two halves of one hash output, b = 2c and 2c+1), across neighbouring units
// and across seeds: |r| < 0.012 over 10^5 pairs, where the standard error is 0.0032.
func TestPoissonWeightsIndependent(t *testing.T) {
	const units, reps = 5000, 64
	m := weightMatrix(12345, units, reps)
	col := func(b int) []float64 {
		out := make([]float64, units)
		for u := range m {
			out[u] = float64(m[u][b])
		}
		return out
	}
	for _, pair := range [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 2}, {10, 11}, {0, 63}, {31, 32}} {
		r := corr(col(pair[0]), col(pair[1]))
		// 5000 units: the standard error is 0.014.
		require.Less(t, math.Abs(r), 0.056, "replicates %v: r = %.4f", pair, r)
	}
	// Pooled over all 32 pairs (2c, 2c+1) that share one hash output: 1.6·10^5 pairs.
	var x, y []float64
	for c := 0; c < reps/2; c++ {
		x = append(x, col(2*c)...)
		y = append(y, col(2*c+1)...)
	}
	require.Less(t, math.Abs(corr(x, y)), 0.012, "halves of one hash output")
	// Neighbouring units over every replicate.
	x, y = x[:0], y[:0]
	for u := 0; u+1 < units; u++ {
		for b := 0; b < reps; b++ {
			x = append(x, float64(m[u][b]))
			y = append(y, float64(m[u+1][b]))
		}
	}
	require.Less(t, math.Abs(corr(x, y)), 0.012, "neighbouring units")
	// Neighbouring seeds for the same unit and replicate.
	m2 := weightMatrix(12346, units, reps)
	x, y = x[:0], y[:0]
	for u := range m {
		for b := 0; b < reps; b++ {
			x = append(x, float64(m[u][b]))
			y = append(y, float64(m2[u][b]))
		}
	}
	require.Less(t, math.Abs(corr(x, y)), 0.012, "seeds 12345 and 12346")
}

func TestPoissonWeightsDependOnlyOnSeedUnitReplicate(t *testing.T) {
	long := make([]uint8, 1000)
	PoissonWeights(12345, UnitOfText("doc-7"), long)
	for _, n := range []int{0, 1, 2, 3, 17, 999} {
		short := make([]uint8, n)
		PoissonWeights(12345, UnitOfText("doc-7"), short)
		require.Equal(t, long[:n], short, "the first %d replicates do not depend on B", n)
	}
	again := make([]uint8, 1000)
	PoissonWeights(12345, UnitOfText("doc-7"), again)
	require.Equal(t, long, again)

	// Pinned values: saved states and paired tests across runs (months apart) rely on the
	// weights never changing for a given (seed, unit, replicate).
	pinned := []struct {
		seed, unit uint64
		want       []uint8
	}{
		{12345, UnitOfRow(0), []uint8{0, 1, 2, 1, 0, 0, 1, 1, 1, 0, 2, 0, 0, 1, 1, 1, 2, 1, 0, 0, 0, 0, 1, 0}},
		{12345, UnitOfText("doc-7"), []uint8{0, 0, 1, 2, 0, 0, 0, 2, 1, 2, 2, 2, 2, 0, 0, 2, 2, 2, 3, 2, 0, 1, 2, 3}},
		{0, 0, []uint8{1, 0, 0, 1, 0, 0, 2, 3, 2, 0, 0, 2, 1, 1, 0, 3, 4, 3, 0, 1, 0, 2, 0, 1}},
	}
	for _, p := range pinned {
		got := make([]uint8, len(p.want))
		PoissonWeights(p.seed, p.unit, got)
		require.Equal(t, p.want, got, "seed %d unit %#x", p.seed, p.unit)
	}
	require.Equal(t, uint64(0x3564b439cd1e1f16), UnitOfRow(0))
	require.Equal(t, uint64(0xea2c3897eb9b895b), UnitOfText("doc-7"))
	require.Equal(t, uint64(0x219089fe6047a238), UnitOfOffset(3, 42))

	// Another seed gives other weights: two independent Poisson(1) draws agree with
	// probability Σ p_k² = e^-2·I0(2) ≈ 0.3085; over 10^5 pairs that is within ±0.01.
	const units, reps = 1000, 100
	a, b := weightMatrix(1, units, reps), weightMatrix(2, units, reps)
	same := 0
	for u := range a {
		for r := range a[u] {
			if a[u][r] == b[u][r] {
				same++
			}
		}
	}
	var agree float64
	for k := 0; k < 13; k++ {
		agree += poissonPMF(k) * poissonPMF(k)
	}
	require.InDelta(t, agree, float64(same)/(units*reps), 0.01)
}

// TestUnitsAreDistinct: different rows, texts and offsets are different units (a collision
// would give two segments the same weights in every replicate).
func TestUnitsAreDistinct(t *testing.T) {
	seen := map[uint64]string{}
	add := func(u uint64, what string) {
		prev, dup := seen[u]
		require.False(t, dup, "%s and %s share unit %#x", what, prev, u)
		seen[u] = what
	}
	for i := int64(0); i < 20000; i++ {
		add(UnitOfRow(i), "row")
	}
	for i := 0; i < 20000; i++ {
		add(UnitOfText("r"+strconv.Itoa(i)), "text")
	}
	for p := 0; p < 4; p++ {
		for o := int64(0); o < 5000; o++ {
			add(UnitOfOffset(p, o), "offset")
		}
	}
}
