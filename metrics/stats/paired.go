package stats

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/evalstream/evalstream/metrics/core"
)

// ErrUnpaired is wrapped by every error about two states that cannot be compared as a
// paired test: different resampling set-ups, metrics or trials.
var ErrUnpaired = errors.New("states cannot be paired")

// SameConfig returns an error wrapping ErrUnpaired that names every field in which a and b
// differ (their replicates would then not share weights), or nil.
func SameConfig(a, b Config) error {
	var diffs []string
	if a.Method != b.Method {
		diffs = append(diffs, fmt.Sprintf("method %q vs %q", a.Method, b.Method))
	}
	if a.Key != b.Key {
		diffs = append(diffs, fmt.Sprintf("keys %q vs %q", keyName(a.Key), keyName(b.Key)))
	}
	if a.Seed != b.Seed {
		diffs = append(diffs, fmt.Sprintf("seed %d vs %d", a.Seed, b.Seed))
	}
	if a.Resamples != b.Resamples {
		diffs = append(diffs, fmt.Sprintf("resamples %d vs %d", a.Resamples, b.Resamples))
	}
	if a.Level != b.Level {
		diffs = append(diffs, fmt.Sprintf("level %v vs %v", a.Level, b.Level))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: ci %s", ErrUnpaired, strings.Join(diffs, ", "))
}

func keyName(k string) string {
	if k == "" {
		return "(position)"
	}
	return k
}

// Paired is the outcome of a paired test of a candidate against a baseline on one scalar
// metric (statistics.md §2). Delta is always candidate − baseline in the metric's own
// units.
type Paired struct {
	Base, Cand float64
	Delta      float64
	// DeltaLow and DeltaHigh are the percentile interval of the replicate deltas; NaN
	// when no replicate had both sides defined.
	DeltaLow, DeltaHigh float64
	// P is the two-sided p-value.
	P float64
	// Draws is how many replicates (or trials) entered P; Undefined how many were left out
	// because a side's value was undefined.
	Draws, Undefined int
}

// PairedBootstrap is the paired bootstrap test of statistics.md §2 from two states with
// shared-weight replicates: with δ̂ = cand − base and δ*_b the same difference in replicate
// b, p = (1 + #{b : |δ*_b − δ̂| ≥ |δ̂|}) / (B' + 1), where B' counts the replicates defined
// on both sides, and the delta interval is the percentile interval of δ*. It fails when
// the states do not pair (ErrUnpaired), lack replicates (ErrNoReplicates) or their main
// values are not scalar numbers (ErrNotScalar); an undefined main value is ErrUndefined.
func PairedBootstrap(base, cand *BootstrapState) (Paired, error) {
	if err := SameConfig(base.m.Config, cand.m.Config); err != nil {
		return Paired{}, err
	}
	if base.m.Metric.Signature() != cand.m.Metric.Signature() {
		return Paired{}, fmt.Errorf("%w: metric signatures differ (%s vs %s)", ErrUnpaired, base.m.Metric.Signature(), cand.m.Metric.Signature())
	}
	if !base.HasReplicates() || !cand.HasReplicates() {
		return Paired{}, ErrNoReplicates
	}
	bv, err := scalar(base.Main.Result().Value)
	if err != nil {
		return Paired{}, err
	}
	cv, err := scalar(cand.Main.Result().Value)
	if err != nil {
		return Paired{}, err
	}
	return PairedFromReplicates(bv, cv, base.ReplicateValues(), cand.ReplicateValues(), base.m.Config.Level), nil
}

// Pairer is implemented by states that run the paired tests themselves rather than from
// Poisson replicates or randomization trials — method sacrebleu, whose paired-bs and
// paired-ar keep sacrebleu's own resampling and p-value formulas. test is "bs" or "ar";
// trials is the ar trial count. The receiver is the baseline, cand the candidate's state of
// the same metric; neither is changed. Errors wrap ErrUnpaired, ErrNotScalar or
// ErrUndefined where those apply.
type Pairer interface {
	PairedTest(test string, cand core.State, trials int) (Paired, error)
}

// ErrNotScalar is returned for metrics whose value is not a single number (per-class
// arrays, matrices): they are not compared.
var ErrNotScalar = errors.New("the value is not a scalar (per-class and matrix values are not compared)")

// ErrUndefined is returned when a compared value is undefined (null).
var ErrUndefined = errors.New("the value is undefined")

func scalar(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, ErrUndefined
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, ErrUndefined
		}
		return x, nil
	}
	return 0, ErrNotScalar
}

// PairedFromReplicates computes the paired bootstrap from the main values and the
// replicate values (nil or non-finite where undefined; both slices of the same length,
// replicate b of both computed with the same weights). level is the delta interval's.
func PairedFromReplicates(base, cand float64, baseReps, candReps []any, level float64) Paired {
	p := Paired{Base: base, Cand: cand, Delta: cand - base}
	deltas := make([]float64, 0, len(baseReps))
	for b := range baseReps {
		x, errX := scalar(baseReps[b])
		y, errY := scalar(candReps[b])
		if errX != nil || errY != nil {
			p.Undefined++
			continue
		}
		deltas = append(deltas, y-x)
	}
	p.Draws = len(deltas)
	ad := math.Abs(p.Delta)
	extreme := 0
	for _, d := range deltas {
		if math.Abs(d-p.Delta) >= ad {
			extreme++
		}
	}
	p.P = float64(1+extreme) / float64(len(deltas)+1)
	p.DeltaLow, p.DeltaHigh, _ = Spread(deltas, level)
	return p
}
