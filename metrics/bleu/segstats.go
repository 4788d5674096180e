package bleu

import (
	"errors"
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// errUnusable is returned by SegmentStats for an example Check would reject.
var errUnusable = errors.New("record has no usable prediction and references")

var (
	_ core.SegmentStatser = (*Metric)(nil)
	_ core.SegmentStatser = (*CHRF)(nil)
	_ core.SegmentAdder   = (*state)(nil)
	_ core.SegmentAdder   = (*chrfState)(nil)
)

// bleuSegments is the core.SegmentScorer of a bleu metric with the sacrebleu preset.
type bleuSegments struct{ m *Metric }

// SegmentScorer implements core.SegmentStatser: only the sacrebleu preset with micro
// averaging has sacrebleu's per-segment statistics.
func (m *Metric) SegmentScorer() (core.SegmentScorer, error) {
	if m.preset != presetSacre {
		return nil, fmt.Errorf("bleu compat %s has no sacrebleu segment statistics (compat sacrebleu has)", m.preset)
	}
	if m.macro {
		return nil, fmt.Errorf("bleu average macro has no sacrebleu segment statistics (average micro has)")
	}
	return bleuSegments{m}, nil
}

// StatsLen implements core.SegmentScorer: hypothesis length, closest reference length, then
// the clipped matches and the totals of each order.
func (b bleuSegments) StatsLen() int { return 2 + 2*b.m.order }

// SegmentStats implements core.SegmentScorer: BLEU._compute_segment_statistics.
func (b bleuSegments) SegmentStats(ex *core.Example, dst []float64) ([]float64, error) {
	if !textinput.Usable(ex) {
		return dst, errUnusable
	}
	m := b.m
	w, _ := m.scratch.Get().(*work)
	if w == nil {
		w = &work{}
	}
	defer m.scratch.Put(w)
	m.sentence(w, ex)
	return m.appendSegment(w, dst), nil
}

// appendSegment appends the statistics derived in w as SegmentStats gives them.
func (m *Metric) appendSegment(w *work, dst []float64) []float64 {
	dst = append(dst, float64(w.cLen), float64(w.rLen))
	for _, x := range w.m[:m.order] {
		dst = append(dst, float64(x))
	}
	for _, x := range w.t[:m.order] {
		dst = append(dst, float64(x))
	}
	return dst
}

// AddSegment implements core.SegmentAdder: the record is tokenized and counted once for the
// state and its segment statistics, and once for every state of the metric that folds it
// (the overall state and its slice's), through the record's memo. Only a metric with a
// SegmentScorer has the statistics; otherwise it adds ex and returns the error SegmentScorer
// gives.
func (s *state) AddSegment(ex *core.Example, weight int64, dst []float64) ([]float64, error) {
	if _, err := s.m.SegmentScorer(); err != nil {
		s.Add(ex, weight)
		return dst, err
	}
	if !textinput.Usable(ex) {
		return dst, errUnusable
	}
	if s.w == nil {
		s.w = &work{}
	}
	w, N := s.w, s.m.order
	if r := lookupSegment(ex, s.m.segKey); r != nil {
		w.cLen, w.rLen, w.nrefs = r.stats[0], r.stats[1], r.nrefs
		w.m = append(w.m[:0], r.stats[2:2+N]...)
		w.t = append(w.t[:0], r.stats[2+N:2+2*N]...)
	} else {
		s.m.sentence(w, ex)
		if r := storeSegment(ex, s.m.segKey, w.nrefs); r != nil {
			r.stats = append(append(append(r.stats, w.cLen, w.rLen), w.m[:N]...), w.t[:N]...)
		}
	}
	if weight >= 1 {
		s.fold(w, ex.Seq, weight, s.m.sentenceOutcome(w, ex.Seq))
	}
	return s.m.appendSegment(w, dst), nil
}

// segmentMemo is what AddSegment stores in a core.Memo: the segment statistics of the record
// whose values it names, and its number of references.
type segmentMemo struct {
	pred, refs core.ValueID
	nrefs      int
	stats      []int64
}

// lookupSegment returns the statistics stored under key for ex's values, or nil.
func lookupSegment(ex *core.Example, key string) *segmentMemo {
	v, current := ex.Memo.Lookup(key)
	r, _ := v.(*segmentMemo)
	if !current || r == nil || r.pred != core.Identify(ex.Values[0]) || r.refs != core.Identify(ex.Values[1]) {
		return nil
	}
	return r
}

// storeSegment stores, under key, an entry for ex's values with empty statistics for the
// caller to fill (reusing the stale entry's memory), or returns nil when ex has no memo.
func storeSegment(ex *core.Example, key string, nrefs int) *segmentMemo {
	if ex.Memo == nil {
		return nil
	}
	v, _ := ex.Memo.Lookup(key)
	r, _ := v.(*segmentMemo)
	if r == nil {
		r = new(segmentMemo)
	}
	*r = segmentMemo{pred: core.Identify(ex.Values[0]), refs: core.Identify(ex.Values[1]), nrefs: nrefs, stats: r.stats[:0]}
	ex.Memo.Store(key, r)
	return r
}

// ScoreFromStats implements core.SegmentScorer: BLEU._compute_score_from_stats. Its value is
// always a Python float (bp * math.exp(...)), so f32 is false.
func (b bleuSegments) ScoreFromStats(sum []float64, p core.StatsPrecision) (float64, bool) {
	m := b.m
	N := m.order
	// int(stats[0]) truncates the float row's lengths.
	c, r := int64(sum[0]), int64(sum[1])
	var corr, tot, prec [maxOrder]float64
	copy(corr[:N], sum[2:2+N])
	copy(tot[:N], sum[2+N:2+2*N])
	return m.sacreScore(bpShort(c, r), corr[:N], tot[:N], p, prec[:N]), false
}

// Scaled implements core.SegmentScorer.
func (b bleuSegments) Scaled(v float64) float64 { return b.m.scaled(v) }

// chrfSegments is the core.SegmentScorer of a chrf metric.
type chrfSegments struct{ m *CHRF }

// SegmentScorer implements core.SegmentStatser; every chrf metric is sacrebleu's.
func (m *CHRF) SegmentScorer() (core.SegmentScorer, error) { return chrfSegments{m}, nil }

// StatsLen implements core.SegmentScorer: [hypothesis, reference, match] n-gram counts per
// order, character orders first.
func (c chrfSegments) StatsLen() int { return 3 * c.m.order() }

// SegmentStats implements core.SegmentScorer: CHRF._compute_segment_statistics (the counts of
// the reference with the best sentence F-score).
func (c chrfSegments) SegmentStats(ex *core.Example, dst []float64) ([]float64, error) {
	if !textinput.Usable(ex) {
		return dst, errUnusable
	}
	m := c.m
	w, _ := m.scratch.Get().(*chrfWork)
	if w == nil {
		w = &chrfWork{}
	}
	defer m.scratch.Put(w)
	m.record(w, ex)
	return appendBest(w, dst), nil
}

func appendBest(w *chrfWork, dst []float64) []float64 {
	for _, x := range w.best {
		dst = append(dst, float64(x))
	}
	return dst
}

// AddSegment implements core.SegmentAdder: the record's n-grams are counted once for the
// state and its segment statistics, and once for every state of the metric that folds it,
// through the record's memo.
func (s *chrfState) AddSegment(ex *core.Example, weight int64, dst []float64) ([]float64, error) {
	if !textinput.Usable(ex) {
		return dst, errUnusable
	}
	var nr int64
	var best []int64
	if r := lookupSegment(ex, s.m.segKey); r != nil {
		nr, best = int64(r.nrefs), r.stats
	} else {
		if s.w == nil {
			s.w = &chrfWork{}
		}
		nr, best = int64(s.m.record(s.w, ex)), s.w.best
		if r := storeSegment(ex, s.m.segKey, int(nr)); r != nil {
			r.stats = append(r.stats, best...)
		}
	}
	if weight >= 1 {
		s.fold(nr, best, weight)
	}
	for _, x := range best {
		dst = append(dst, float64(x))
	}
	return dst, nil
}

// ScoreFromStats implements core.SegmentScorer: CHRF._compute_f_score. On Python ints and
// numpy int64 rows it is the metric's own formula; on a float32 row every step that meets a
// float32 count stays float32.
func (c chrfSegments) ScoreFromStats(sum []float64, p core.StatsPrecision) (float64, bool) {
	if p == core.StatsFloat32 {
		v := c.m.fscore32(sum)
		return v.v, v.f32
	}
	var buf [3 * 2 * maxOrder]int64
	st := buf[:len(sum)]
	for i, x := range sum {
		st[i] = int64(x)
	}
	return c.m.fscore(st), false
}

// Scaled implements core.SegmentScorer.
func (c chrfSegments) Scaled(v float64) float64 { return c.m.scaled(v) }

// npNum is a number in sacrebleu's arithmetic on a float32 row: a numpy float32 scalar (f32)
// or a Python float. Under NEP 50 an operation with a float32 operand casts the Python
// operand to float32 and rounds the result to float32; two Python floats stay float64.
type npNum struct {
	v   float64
	f32 bool
}

func npPy(v float64) npNum  { return npNum{v: v} }
func npF32(v float64) npNum { return npNum{v: float64(float32(v)), f32: true} }

// op applies one IEEE operation: computed in float64 and rounded once to float32 it equals the
// float32 operation for +, -, * and /.
func npOp(a, b npNum, f func(x, y float64) float64) npNum {
	if a.f32 || b.f32 {
		return npF32(f(float64(float32(a.v)), float64(float32(b.v))))
	}
	return npPy(f(a.v, b.v))
}

func npAdd(a, b npNum) npNum { return npOp(a, b, func(x, y float64) float64 { return x + y }) }
func npMul(a, b npNum) npNum { return npOp(a, b, func(x, y float64) float64 { return x * y }) }
func npDiv(a, b npNum) npNum { return npOp(a, b, func(x, y float64) float64 { return x / y }) }

// fscore32 is CHRF._compute_f_score on a numpy float32 row (sacrebleu's bootstrap resamples).
func (m *CHRF) fscore32(st []float64) npNum {
	eps := npPy(1e-16)
	factor := npPy(float64(m.beta * m.beta))
	one := npPy(1)
	score, avgP, avgR := npPy(0), npPy(0), npPy(0)
	eff := 0
	order := len(st) / 3
	for i := 0; i < order; i++ {
		nh, nr, nm := npF32(st[3*i]), npF32(st[3*i+1]), npF32(st[3*i+2])
		prec, rec := eps, eps
		if nh.v > 0 {
			prec = npDiv(nm, nh)
		}
		if nr.v > 0 {
			rec = npDiv(nm, nr)
		}
		denom := npAdd(npMul(factor, prec), rec)
		if denom.v > 0 {
			score = npAdd(score, npDiv(npMul(npMul(npAdd(one, factor), prec), rec), denom))
		} else {
			score = npAdd(score, eps)
		}
		if nh.v > 0 && nr.v > 0 {
			avgP = npAdd(avgP, prec)
			avgR = npAdd(avgR, rec)
			eff++
		}
	}
	hundred := npPy(100)
	if m.eps {
		return npDiv(npMul(hundred, score), npPy(float64(order)))
	}
	if eff == 0 {
		avgP, avgR = npPy(0), npPy(0)
	} else {
		avgP = npDiv(avgP, npPy(float64(eff)))
		avgR = npDiv(avgR, npPy(float64(eff)))
	}
	if npAdd(avgP, avgR).v != 0 {
		score = npMul(npMul(npAdd(one, factor), avgP), avgR)
		score = npDiv(score, npAdd(npMul(factor, avgP), avgR))
		return npMul(hundred, score)
	}
	return npPy(0)
}
