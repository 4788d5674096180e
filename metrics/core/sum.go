package core

import (
	"math"
	"slices"
)

// Sum is an exact floating-point accumulator (Shewchuk's non-overlapping partials, as in
// Python's math.fsum). Float returns the exactly rounded value of everything added, so the
// result does not depend on the order or grouping of additions or merges. Its size is bounded
// by the float64 exponent range (at most ~40 partials). The zero value is an empty sum.
// A Sum is not safe for concurrent use.
type Sum struct {
	partials []float64
	// Non-finite inputs are kept aside so that the finite part stays exact.
	posInf, negInf, nan bool
}

// Add adds x exactly.
func (s *Sum) Add(x float64) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		switch {
		case math.IsNaN(x):
			s.nan = true
		case x > 0:
			s.posInf = true
		default:
			s.negInf = true
		}
		return
	}
	i := 0
	for _, y := range s.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.partials[i] = lo
			i++
		}
		x = hi
	}
	if math.IsInf(x, 0) { // overflow of finite values: no exact float64 representation left
		if x > 0 {
			s.posInf = true
		} else {
			s.negInf = true
		}
		s.partials = s.partials[:i]
		return
	}
	s.partials = append(s.partials[:i], x)
}

// AddProduct adds x*y exactly (the product's rounding error is added too).
func (s *Sum) AddProduct(x, y float64) {
	p := x * y
	if math.IsInf(p, 0) || math.IsNaN(p) {
		s.Add(p)
		return
	}
	s.Add(p)
	if e := math.FMA(x, y, -p); e != 0 {
		s.Add(e)
	}
}

// AddWeighted adds x*w exactly for integer weights |w| < 2^53.
func (s *Sum) AddWeighted(x float64, w int64) {
	if w == 1 {
		s.Add(x)
		return
	}
	s.AddProduct(x, float64(w))
}

// Merge adds every term of o exactly. o is unchanged.
func (s *Sum) Merge(o *Sum) {
	for _, p := range o.partials {
		s.Add(p)
	}
	s.posInf = s.posInf || o.posInf
	s.negInf = s.negInf || o.negInf
	s.nan = s.nan || o.nan
}

// Partials returns the non-overlapping terms whose exact sum is the finite part of s. The
// slice is owned by s and valid until the next change.
func (s *Sum) Partials() []float64 { return s.partials }

// Float returns the sum rounded once to the nearest float64 (ties to even).
func (s *Sum) Float() float64 {
	switch {
	case s.nan || (s.posInf && s.negInf):
		return math.NaN()
	case s.posInf:
		return math.Inf(1)
	case s.negInf:
		return math.Inf(-1)
	}
	p := s.partials
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi := p[n]
	lo := 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		yr := hi - x
		lo = y - yr
		if lo != 0 {
			break
		}
	}
	// Round half to even when the remaining partials push the tie one way.
	if n > 0 && ((lo < 0 && p[n-1] < 0) || (lo > 0 && p[n-1] > 0)) {
		y := lo * 2
		x := hi + y
		yr := x - hi
		if y == yr {
			hi = x
		}
	}
	return hi
}

// canonicalTerms returns the finite part of s as terms determined by its exact value alone,
// in increasing magnitude: the value rounded to the nearest float64, then what is left of it
// rounded, and so on. The partials themselves depend on the order of the additions, and a
// saved state must not (same input, same bytes). An exact value has at most ~2,100
// significant bits, so the loop ends after about 40 terms; the bound is a guard.
func (s *Sum) canonicalTerms() []float64 {
	left := Sum{partials: append([]float64(nil), s.partials...)}
	var terms []float64
	for range 64 {
		f := left.Float()
		if f == 0 {
			slices.Reverse(terms)
			return terms
		}
		if math.IsInf(f, 0) {
			break
		}
		terms = append(terms, f)
		left.Add(-f)
	}
	return s.partials
}

// IsZero reports whether nothing but zeros was added.
func (s *Sum) IsZero() bool {
	return len(s.partials) == 0 && !s.nan && !s.posInf && !s.negInf
}

// Clone returns an independent copy.
func (s *Sum) Clone() Sum {
	c := *s
	c.partials = append([]float64(nil), s.partials...)
	return c
}

// MulSum returns the exact product a*b of two sums as a new Sum (finite parts only).
func MulSum(a, b *Sum) Sum {
	var out Sum
	for _, x := range a.partials {
		for _, y := range b.partials {
			out.AddProduct(x, y)
		}
	}
	return out
}

// ScaleSum returns the exact product c*a as a new Sum (finite part only).
func ScaleSum(a *Sum, c float64) Sum {
	var out Sum
	for _, x := range a.partials {
		out.AddProduct(x, c)
	}
	return out
}
