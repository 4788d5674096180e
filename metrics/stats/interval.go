package stats

import (
	"math"
	"math/big"
	"slices"
	"strconv"
)

// Percentile is numpy's default percentile (method "linear") of sorted values at quantile
// q in [0, 1]: linear interpolation between the order statistics around q·(n−1), computed
// as numpy computes it, so that intervals match numpy's to the last bit.
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := q * float64(n-1)
	lo := math.Floor(pos)
	i := int(lo)
	if i >= n-1 {
		return sorted[n-1]
	}
	t := pos - lo
	a, b := sorted[i], sorted[i+1]
	d := b - a
	// numpy's _lerp: a + d·t, but b − d·(1−t) from t ≥ 0.5 on, which keeps the result
	// monotone in t.
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// Spread is the percentile interval and the standard deviation (ddof 1) of replicate values.
// values is sorted in place; NaNs must have been removed.
func Spread(values []float64, level float64) (low, high, stderr float64) {
	if len(values) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(values)
	qlo, qhi := tails(level)
	low, high = Percentile(values, qlo), Percentile(values, qhi)
	if len(values) < 2 {
		return low, high, math.NaN()
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	mean := sum / float64(len(values))
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return low, high, math.Sqrt(ss / float64(len(values)-1))
}

// tails returns the quantiles (1−level)/2 and (1+level)/2 computed exactly from the level's
// shortest decimal form and rounded once: level 0.95 gives 0.025 and 0.975, the quantiles
// of np.percentile(x, [2.5, 97.5]), where the float expression (1−0.95)/2 gives
// 0.025000000000000022 and intervals that differ from numpy's in the last bits.
func tails(level float64) (lo, hi float64) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(level, 'g', -1, 64))
	if !ok { // NaN or ±Inf: no decimal form; Validate refuses such levels anyway
		return (1 - level) / 2, (1 + level) / 2
	}
	one, half := big.NewRat(1, 1), big.NewRat(1, 2)
	lo, _ = new(big.Rat).Mul(new(big.Rat).Sub(one, r), half).Float64()
	hi, _ = new(big.Rat).Mul(new(big.Rat).Add(one, r), half).Float64()
	return lo, hi
}
