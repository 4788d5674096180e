package bleu

import (
	"math"
	"math/big"
)

// pyNum is a number as NLTK's smoothing functions see it: an exact fractions.Fraction (r is
// not nil) or a Python float. Arithmetic follows Python: Fraction op Fraction (or int) stays
// exact, and anything involving a float is done in float64 after converting the Fraction
// with correct rounding. Only used in Result, never per record.
type pyNum struct {
	r *big.Rat
	f float64
}

func frac(a, b int64) pyNum { return pyNum{r: big.NewRat(a, b)} }
func flt(f float64) pyNum   { return pyNum{f: f} }

func (x pyNum) float() float64 {
	if x.r != nil {
		f, _ := x.r.Float64()
		return f
	}
	return x.f
}

func (x pyNum) sign() int {
	if x.r != nil {
		return x.r.Sign()
	}
	switch {
	case x.f > 0:
		return 1
	case x.f < 0:
		return -1
	}
	return 0
}

func pyAdd(a, b pyNum) pyNum {
	if a.r != nil && b.r != nil {
		return pyNum{r: new(big.Rat).Add(a.r, b.r)}
	}
	return flt(a.float() + b.float())
}

func pyDiv(a, b pyNum) pyNum {
	if a.r != nil && b.r != nil {
		return pyNum{r: new(big.Rat).Quo(a.r, b.r)}
	}
	return flt(a.float() / b.float())
}

func pyMul(a, b pyNum) pyNum {
	if a.r != nil && b.r != nil {
		return pyNum{r: new(big.Rat).Mul(a.r, b.r)}
	}
	return flt(a.float() * b.float())
}

func pyInt(k int64) pyNum { return frac(k, 1) }

// finalNLTK is NLTK's corpus_bleu (§2.3) with SmoothingFunction().methodK. Methods 5-7 read
// the last sentence of the corpus (s.last, the record with the largest Seq), as NLTK does.
func (m *Metric) finalNLTK(s *stats) outcome {
	N := m.order
	out := outcome{prec: m.rawPrecisions(s)}
	switch {
	case s.c > s.r:
		out.bp = 1
	case s.c == 0:
		out.bp = 0
	default:
		out.bp = pyExp(1 - float64(s.r)/float64(s.c))
	}
	if s.m[0] == 0 {
		return out
	}
	M, T := s.m[:N], s.t[:N] // T_n >= 1: NLTK sums max(1, t) per sentence
	for _, t := range T {
		if t < 1 {
			out.undefined = reasonCorrupt
			return out
		}
	}
	// Only methods 5-7 do arithmetic on the Fractions; for the others float(M/T), correctly
	// rounded, is all NLTK ever reads.
	exact := m.nltkMethod >= 5
	ratio := func(a, b int64) pyNum {
		if exact {
			return frac(a, b)
		}
		return flt(float64(a) / float64(b))
	}
	var pbuf [maxOrder]pyNum
	p := pbuf[:N]
	for i := range p {
		p[i] = ratio(M[i], T[i])
	}
	switch m.nltkMethod {
	case 0:
		for i := range p {
			if M[i] == 0 {
				p[i] = flt(2.2250738585072014e-308) // sys.float_info.min
			}
		}
	case 1:
		for i := range p {
			if M[i] == 0 {
				p[i] = flt(0.1 / float64(T[i]))
			}
		}
	case 2:
		for i := 1; i < N; i++ {
			p[i] = ratio(M[i]+1, T[i]+1)
		}
	case 3:
		k := 1
		for i := range p {
			if M[i] == 0 {
				p[i] = flt(1 / math.Ldexp(float64(T[i]), k))
				k++
			}
		}
	case 4:
		nltkMethod4(p, M, T, s.c)
	case 5:
		nltkMethod5(p, s.last)
	case 6:
		if p[2].sign() == 0 {
			out.undefined = reasonNLTK6
			return out
		}
		for i := 2; i < N; i++ {
			l := s.last.hypLen - int64(i)
			if l < 0 {
				l = 0
			}
			if p[i-2].sign() == 0 {
				// pi0 is the int 0: (m + 0) / (l + 5) is int / int, a float.
				p[i] = flt(float64(M[i]) / float64(l+5))
				continue
			}
			pi0 := pyDiv(pyMul(p[i-1], p[i-1]), p[i-2])
			p[i] = pyDiv(pyAdd(pyInt(M[i]), pyMul(pyInt(5), pi0)), pyInt(l+5))
		}
	case 7:
		nltkMethod4(p, M, T, s.c)
		nltkMethod5(p, s.last)
	}

	w := m.weights[:N]
	if m.autoReweigh && s.c < 4 && m.uniform025 {
		w = make([]float64, s.c)
		for i := range w {
			w[i] = 1 / float64(s.c)
		}
	}
	var tbuf [maxOrder]float64
	terms := tbuf[:0]
	for i := 0; i < len(w) && i < N; i++ {
		if p[i].sign() > 0 {
			terms = append(terms, float64(w[i]*pyLog(p[i].float())))
		}
	}
	for i := range p {
		out.prec[i] = p[i].float()
	}
	out.score = out.bp * pyExp(fsum(terms))
	return out
}

// nltkMethod4 replaces zero precisions by 1/(2^k·K/ln(hyp_len))/T_n when hyp_len > 1.
func nltkMethod4(p []pyNum, M, T []int64, hypLen int64) {
	k := 1
	for i := range p {
		if M[i] == 0 && hypLen > 1 {
			num := 1 / (math.Ldexp(5, k) / pyLog(float64(hypLen)))
			p[i] = flt(num / float64(T[i]))
			k++
		}
	}
}

// nltkMethod5 averages each precision with its neighbours; the order above the last is the
// 5-gram precision of the last sentence.
func nltkMethod5(p []pyNum, last lastSent) {
	t5 := last.t5
	if t5 < 1 {
		t5 = 1
	}
	plus := append(append([]pyNum(nil), p...), frac(last.m5, t5))
	prev := pyAdd(p[0], pyInt(1))
	for i := range p {
		v := pyDiv(pyAdd(pyAdd(prev, p[i]), plus[i+1]), pyInt(3))
		p[i] = v
		prev = v
	}
}
