package htmlreport

import (
	"math"
	"strconv"
)

// short renders v with at least 4 significant digits and no exponent for ordinary
// magnitudes; full renders it exactly (the shortest string that reads back as v) for tooltips.
func short(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	mag := int(math.Floor(math.Log10(math.Abs(v))))
	if mag < -6 || mag > 12 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	dec := 3 - mag
	if dec < 0 {
		dec = 0
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

func full(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// signed is short with an explicit sign, for deltas.
func signed(v float64) string {
	if v > 0 {
		return "+" + short(v)
	}
	if v == 0 {
		return "±0"
	}
	return short(v)
}

// f2 formats an SVG coordinate.
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// niceTicks returns about n round tick values from at or below lo to at or above hi.
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	// the ticks enclose [lo, hi], so the axis ends on a labelled value
	var out []float64
	for t := math.Floor(lo/step+1e-9) * step; t < hi+step*(1-1e-9); t += step {
		r := math.Round(t/step) * step
		if r == 0 {
			r = 0 // not -0
		}
		out = append(out, r)
	}
	return out
}
