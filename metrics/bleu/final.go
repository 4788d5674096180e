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
	any := false
	for _, x := range s.m[:N] {
		any = any || x != 0
	}
	if !any {
		return out
	}
	smoothMteval := 1.0
	eff := N
	for n := 1; n <= N; n++ {
		corr, tot := float64(s.m[n-1]), float64(s.t[n-1])
		if m.smooth == smAddK && n > 1 {
			corr += m.smoothValue
			tot += m.smoothValue
		}
		if tot == 0 {
			break
		}
		if m.effective {
			eff = n
		}
		if corr == 0 {
			switch m.smooth {
			case smExp:
				smoothMteval *= 2
				out.prec[n-1] = 100 / (smoothMteval * tot)
			case smFloor:
				out.prec[n-1] = 100 * m.smoothValue / tot
			}
		} else {
			out.prec[n-1] = 100 * corr / tot
		}
	}
	sum := 0.0
	for _, p := range out.prec[:eff] {
		if p == 0 {
			sum += -9999999999
		} else {
			sum += pyLog(p)
		}
	}
	out.score = out.bp * pyExp(sum/float64(eff))
	return out
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
