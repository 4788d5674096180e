package stats

import (
	"math"
	"slices"
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
	alpha := (1 - level) / 2
	low, high = Percentile(values, alpha), Percentile(values, 1-alpha)
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
