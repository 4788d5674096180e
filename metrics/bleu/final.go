package bleu

import (
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

// stats are BLEU sufficient statistics (§2.1): of a corpus, or of one sentence for macro
// averaging and sentence scores.
type stats struct {
	c, r int64   // hypothesis length, closest reference length
	m, t []int64 // per order: clipped matches, totals (NLTK: Σ max(1, t) per sentence)
	last lastSent
	// sentence marks per-sentence statistics: ignite then counts in float32 (§2.2 QUIRK).
	sentence bool
	// prec, when its capacity suffices, receives the precisions (scratch reuse).
	prec []float64
}

// precBuf returns a zeroed slice of n precisions, reusing s.prec when it can.
func (s *stats) precBuf(n int) []float64 {
	if cap(s.prec) < n {
		return make([]float64, n)
	}
	p := s.prec[:n]
	clear(p)
	return p
}

// outcome is a BLEU value on the preset's native scale (sacrebleu 0..100, others 0..1).
type outcome struct {
	score     float64
	prec      []float64
	bp        float64
	undefined string // why there is no value (Paddle's ZeroDivisionError, NLTK's assertion)
}

const (
	reasonPaddleEmpty = "empty hypotheses: PaddleNLP divides by the hypothesis length"
	reasonNLTK6       = "nltk method6 needs a non-zero trigram precision"
)

// final computes the preset's BLEU from statistics.
func (m *Metric) final(s *stats) outcome {
	switch m.preset {
	case presetSacre:
		return m.finalSacre(s)
	case presetIgnite:
		return m.finalIgnite(s)
	case presetMindNLP:
		return m.finalMindNLP(s)
	case presetPaddle:
		return m.finalPaddle(s)
	default:
		return m.finalNLTK(s)
	}
}

// rawPrecisions are M_n/T_n (0 when T_n = 0), reported when a formula returns early.
func (m *Metric) rawPrecisions(s *stats) []float64 {
	p := s.precBuf(m.order)
	for i := range p {
		if s.t[i] > 0 {
			p[i] = float64(s.m[i]) / float64(s.t[i])
		}
	}
	return p
}

// bpShort is exp(1 - r/c) for 0 < c < r, 0 for c = 0 and 1 otherwise (sacrebleu, ignite).
func bpShort(c, r int64) float64 {
	if c < r {
		if c > 0 {
			return pyExp(1 - float64(r)/float64(c))
		}
		return 0
	}
	return 1
}

// finalSacre is sacrebleu's BLEU.compute_bleu (§2.4), on the 0..100 scale.
func (m *Metric) finalSacre(s *stats) outcome {
	N := m.order
	out := outcome{bp: bpShort(s.c, s.r), prec: s.precBuf(N)}
	var corr, tot [maxOrder]float64
	for i := 0; i < N; i++ {
		corr[i], tot[i] = float64(s.m[i]), float64(s.t[i])
	}
	out.score = m.sacreScore(out.bp, corr[:N], tot[:N], core.StatsExact, out.prec)
	return out
}

// sacreScore is the body of BLEU.compute_bleu after the brevity penalty bp, with the counts
// as the arithmetic p holds them (see core.StatsPrecision); prec receives the precisions.
// It changes corr and tot (add-k smoothing adds to them, as sacrebleu does).
func (m *Metric) sacreScore(bp float64, corr, tot []float64, p core.StatsPrecision, prec []float64) float64 {
	N := m.order
	any := false
	for _, x := range corr[:N] {
		any = any || x != 0
	}
	if !any {
		return 0
	}
	// r32 rounds where numpy 2 keeps a float32 scalar's arithmetic in float32 (a Python
	// number meeting a float32 is cast to float32 first). Computing one IEEE operation in
	// float64 and rounding once to float32 gives the float32 result for +, -, * and /.
	f32 := p == core.StatsFloat32
	r32 := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	smoothMteval := 1.0
	eff := N
	for n := 1; n <= N; n++ {
		if m.smooth == smAddK && n > 1 {
			switch p {
			case core.StatsFloat32:
				sv := r32(m.smoothValue)
				corr[n-1], tot[n-1] = r32(corr[n-1]+sv), r32(tot[n-1]+sv)
			case core.StatsInt64:
				// The float sum is stored back into the int64 row: numpy truncates it.
				corr[n-1], tot[n-1] = math.Trunc(corr[n-1]+m.smoothValue), math.Trunc(tot[n-1]+m.smoothValue)
			default:
				corr[n-1] += m.smoothValue
				tot[n-1] += m.smoothValue
			}
		}
		c, t := corr[n-1], tot[n-1]
		if t == 0 {
			break
		}
		if m.effective {
			eff = n
		}
		if c == 0 {
			switch m.smooth {
			case smExp:
				smoothMteval *= 2
				prec[n-1] = r32(100 / r32(smoothMteval*t))
			case smFloor:
				prec[n-1] = r32(r32(100*m.smoothValue) / t)
			}
		} else {
			prec[n-1] = r32(r32(100*c) / t)
		}
	}
	sum := 0.0
	for _, p := range prec[:eff] {
		if p == 0 {
			sum += -9999999999
		} else {
			sum += pyLog(p)
		}
	}
	return bp * pyExp(sum/float64(eff))
}

// finalIgnite is ignite's Bleu._brevity_penalty_smoothing (§2.2).
func (m *Metric) finalIgnite(s *stats) outcome {
	N := m.order
	out := outcome{prec: m.rawPrecisions(s)}
	out.bp = bpShort(s.c, s.r)
	if s.m[0] == 0 {
		return out
	}
	if m.smooth == smIgNo {
		for _, x := range s.m[:N] {
			if x == 0 {
				return out
			}
		}
	}
	for i := 0; i < N; i++ {
		M, T := float64(s.m[i]), float64(s.t[i])
		var p float64
		switch m.smooth {
		case smIgSmooth1:
			d := math.Max(1, T)
			if M != 0 {
				p = M / d
			} else {
				p = 0.1 / d
			}
		case smIgNLTK2:
			d := math.Max(1, T)
			if !s.sentence {
				d = float64(float32(d)) // torch.tensor([...]) of Python floats is float32
			}
			if i == 0 {
				p = M / d
			} else {
				p = (M + 1) / (d + 1)
			}
		case smIgSmooth2:
			if i == 0 {
				p = M / T
			} else {
				p = (M + 1) / (T + 1)
			}
		default: // no_smooth: n.item() / max(1, d) divides by the tensor as reciprocal()*n.
			switch {
			case T <= 1:
				p = M
			case s.sentence: // float32 counters
				p = float64(float32(1/float32(T)) * float32(M))
			default:
				p = (1 / T) * M
			}
		}
		out.prec[i] = p
	}
	out.score = out.bp * pyExp(fsumRounded(m.weights[:N], out.prec))
	return out
}

// fsumRounded is math.fsum(w_i * log(p_i)): each product rounded, the sum exact.
func fsumRounded(w, p []float64) float64 {
	var buf [maxOrder]float64
	terms := buf[:0]
	for i := range w {
		terms = append(terms, float64(w[i]*pyLog(p[i])))
	}
	return fsum(terms)
}

// fsum is Python's math.fsum of finite numbers: the exactly rounded sum (Shewchuk's
// partials, as core.Sum, but without allocating for the few terms of a BLEU formula).
func fsum(xs []float64) float64 {
	if len(xs) > maxOrder {
		var s core.Sum
		for _, x := range xs {
			s.Add(x)
		}
		return s.Float()
	}
	var buf [maxOrder]float64
	partials := buf[:0]
	for _, x := range xs {
		i := 0
		for _, y := range partials {
			if math.Abs(x) < math.Abs(y) {
				x, y = y, x
			}
			hi := x + y
			lo := y - (hi - x)
			if lo != 0 {
				partials[i] = lo
				i++
			}
			x = hi
		}
		partials = append(partials[:i], x)
	}
	n := len(partials)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := partials[n], 0.0
	for n > 0 {
		x := hi
		n--
		y := partials[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	if n > 0 && (lo < 0 && partials[n-1] < 0 || lo > 0 && partials[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}

// finalMindNLP is MindNLP BleuScore.eval (§2.5).
func (m *Metric) finalMindNLP(s *stats) outcome {
	N := m.order
	out := outcome{prec: m.rawPrecisions(s), bp: 1}
	for _, x := range s.m[:N] {
		if x == 0 {
			return out
		}
	}
	sum := 0.0 // numpy sums a short array left to right
	for i := 0; i < N; i++ {
		sum += float64(m.weights[i] * pyLog(out.prec[i]))
	}
	geo := pyExp(sum)
	if !(s.c > s.r) {
		out.bp = pyExp(1 - float64(s.r)/float64(s.c))
	}
	out.score = out.bp * geo
	return out
}

// finalPaddle is PaddleNLP BLEU.accumulate (§2.6).
func (m *Metric) finalPaddle(s *stats) outcome {
	N := m.order
	out := outcome{prec: s.precBuf(N)}
	for i := 0; i < N; i++ {
		p := 0.0
		if s.t[i] != 0 {
			p = float64(s.m[i]) / float64(s.t[i])
		}
		if p == 0 {
			p = 2.2250738585072014e-308 // sys.float_info.min
		}
		out.prec[i] = p
	}
	if s.c == 0 {
		out.undefined = reasonPaddleEmpty
		return out
	}
	logs := fsumRounded(m.weights[:N], out.prec)
	out.bp = pyExp(math.Min(1-float64(s.r)/float64(s.c), 0))
	out.score = out.bp * pyExp(logs)
	return out
}
