package core

// StatsPrecision names the arithmetic sacrebleu uses to turn a summed statistics row into a
// score. The same sums give different low-order bits in each, and evalstream's `sacrebleu`
// CI method reproduces sacrebleu bit for bit, so a SegmentScorer computes all three.
type StatsPrecision uint8

const (
	// StatsExact is Python ints and floats: sacrebleu's sum_of_lists over the per-segment
	// lists, which gives a system's own score (and the test statistic of its paired tests).
	StatsExact StatsPrecision = iota
	// StatsInt64 is a numpy int64 row (float64 for TER): a trial of the paired approximate
	// randomization test, whose pseudo-systems are a boolean matrix times the statistics.
	StatsInt64
	// StatsFloat32 is a numpy float32 row: a bootstrap resample (`--confidence`,
	// `--paired-bs`), whose statistics sacrebleu converts to float32 before summing. Under
	// numpy 2 (NEP 50) the arithmetic on such a row stays float32 wherever a float32 scalar
	// meets a Python number.
	StatsFloat32
)

// SegmentScorer gives sacrebleu's per-segment statistics of a metric and sacrebleu's score of
// their sums, for the `sacrebleu` CI method and paired tests. A SegmentScorer is immutable
// and safe for concurrent use.
type SegmentScorer interface {
	// StatsLen is the number of statistics per segment.
	StatsLen() int
	// SegmentStats appends the StatsLen statistics of one example (one that passed
	// Metric.Check) to dst and returns the extended slice, as sacrebleu's
	// _extract_corpus_statistics gives them for the segment. It retains neither ex nor dst.
	// An error means the example cannot be scored (the metric's Add would count it as
	// failed).
	SegmentStats(ex *Example, dst []float64) ([]float64, error)
	// ScoreFromStats is sacrebleu's score (on its own 0..100 scale) of summed statistics
	// computed with arithmetic p. f32 reports that sacrebleu's value is a numpy float32
	// scalar rather than a Python float, which decides how means and comparisons of such
	// scores round. It does not retain or change sum.
	ScoreFromStats(sum []float64, p StatsPrecision) (score float64, f32 bool)
	// Scaled converts a number on sacrebleu's 0..100 scale to the metric's `scale` option.
	Scaled(v float64) float64
}

// SegmentStatser is implemented by metric types that can give a SegmentScorer for some of
// their options (bleu, chrf and ter with their sacrebleu preset).
type SegmentStatser interface {
	// SegmentScorer returns the metric's SegmentScorer, or an error saying which option rules
	// it out.
	SegmentScorer() (SegmentScorer, error)
}

// SegmentAdder is implemented by states of metrics with a SegmentScorer whose statistics are
// what the state itself derives from an example, so that the `sacrebleu` CI method, which
// keeps both, tokenizes and counts each segment once.
type SegmentAdder interface {
	// AddSegment has exactly the effect of Add(ex, weight) on the receiver followed by the
	// metric's SegmentScorer.SegmentStats(ex, dst), whose result it returns. It retains
	// neither ex nor dst.
	AddSegment(ex *Example, weight int64, dst []float64) ([]float64, error)
}
