package ter

import (
	"errors"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

var _ core.SegmentStatser = (*Metric)(nil)

// segments is the core.SegmentScorer of a ter metric.
type segments struct{ m *Metric }

// SegmentScorer implements core.SegmentStatser; every ter metric is sacrebleu's.
func (m *Metric) SegmentScorer() (core.SegmentScorer, error) { return segments{m}, nil }

// StatsLen implements core.SegmentScorer: the fewest edits and the average reference length.
func (segments) StatsLen() int { return 2 }

// SegmentStats implements core.SegmentScorer: TER._compute_segment_statistics. An alignment
// that fails (see errBeam) is an error, as it is for the metric's state. Through the record's
// memo it reuses the alignment a ter state of the same options just computed for ex.
func (s segments) SegmentStats(ex *core.Example, dst []float64) ([]float64, error) {
	if !textinput.Usable(ex) {
		return dst, errors.New("record has no usable prediction and references")
	}
	m := s.m
	w, _ := m.scratch.Get().(*work)
	if w == nil {
		w = newWork()
	}
	defer m.scratch.Put(w)
	edits, refLen, nrefs, err := m.memoSegment(w, ex)
	if err != nil {
		return dst, err
	}
	return append(dst, float64(edits), float64(refLen)/float64(nrefs)), nil
}

// ScoreFromStats implements core.SegmentScorer: TER._compute_score_from_stats, 100 × edits /
// reference length. On a float32 row the quotient and the product stay float32 unless the
// reference length is 0 (then sacrebleu's 1.0 or 0.0 is a Python float).
func (segments) ScoreFromStats(sum []float64, p core.StatsPrecision) (float64, bool) {
	if p != core.StatsFloat32 {
		return 100 * finalScore(sum[0], sum[1]), false
	}
	edits, refLen := float32(sum[0]), float32(sum[1])
	if refLen > 0 {
		q := float64(float32(float64(edits) / float64(refLen)))
		return float64(float32(100 * q)), true
	}
	return 100 * finalScore(float64(edits), 0), false
}

// Scaled implements core.SegmentScorer.
func (s segments) Scaled(v float64) float64 {
	if s.m.scale100 {
		return v
	}
	return v / 100
}
