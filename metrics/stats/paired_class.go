package stats

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/evalstream/evalstream/metrics/core"
)

// ErrNotPerClass is returned by PairedBootstrapClasses for values that are not per-class
// arrays (a scalar, a matrix).
var ErrNotPerClass = errors.New("the value is not a per-class array")

// ClassPaired is the paired bootstrap of one class of a per-class metric (per-class
// precision, recall, F1...): the test of PairedBootstrap applied to that class's entry.
type ClassPaired struct {
	// Class is the class's label as the results name it (details.classes): its name when
	// the metric names its classes, else its integer id.
	Class any
	// Tested says whether the class was tested; when not, Reason says why (a class that
	// one system's results do not list, an undefined value) and Paired is zero.
	Tested bool
	Reason string
	Paired
}

// ClassKey renders a class label (a ClassPaired.Class) as text: the name, or the id.
func ClassKey(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(c)
}

// ClassLabels returns the labels of a per-class result's entries: its details.classes (ids
// or names), or the positions 0..n-1 when it lists none. It reports false when the list's
// length is not n.
func ClassLabels(r core.Result, n int) ([]any, bool) {
	var out []any
	switch cs := r.Details["classes"].(type) {
	case []int64:
		for _, c := range cs {
			out = append(out, c)
		}
	case []string:
		for _, c := range cs {
			out = append(out, c)
		}
	case []any:
		out = append(out, cs...)
	case nil:
		out = make([]any, n)
		for i := range out {
			out[i] = int64(i)
		}
	default:
		return nil, false
	}
	return out, len(out) == n
}

// PairedBootstrapClasses is PairedBootstrap for a per-class metric: for every class listed
// by the baseline's or the candidate's results (the baseline's order, then the
// candidate's other classes), the paired bootstrap of that class's entry. Entries are
// matched by class label, not position: a class one side does not list (sklearn-style
// per-class results list the classes seen) is reported untested, and a replicate in which
// a side's results lack the class or hold a non-finite value for it is left out of that
// class's test (counted in Undefined). It fails like PairedBootstrap when the states do
// not pair or lack replicates, and with ErrNotPerClass when a main value is not a per-class
// array (ErrUndefined when it is null).
func PairedBootstrapClasses(base, cand *BootstrapState) ([]ClassPaired, error) {
	if err := SameConfig(base.m.Config, cand.m.Config); err != nil {
		return nil, err
	}
	if base.m.Metric.Signature() != cand.m.Metric.Signature() {
		return nil, fmt.Errorf("%w: metric signatures differ (%s vs %s)", ErrUnpaired, base.m.Metric.Signature(), cand.m.Metric.Signature())
	}
	if !base.HasReplicates() || !cand.HasReplicates() {
		return nil, ErrNoReplicates
	}
	bm, err := perClass(base.Main.Result())
	if err != nil {
		return nil, err
	}
	cm, err := perClass(cand.Main.Result())
	if err != nil {
		return nil, err
	}
	var order []string
	labels := map[string]any{}
	for _, side := range []classValues{bm, cm} {
		for _, l := range side.labels {
			k := ClassKey(l)
			if _, seen := labels[k]; !seen {
				labels[k] = l
				order = append(order, k)
			}
		}
	}
	brep, crep := base.replicateClasses(), cand.replicateClasses()
	level := base.m.Config.Level
	out := make([]ClassPaired, 0, len(order))
	for _, k := range order {
		cp := ClassPaired{Class: labels[k]}
		bv, inB := bm.byClass[k]
		cv, inC := cm.byClass[k]
		switch {
		case !inB:
			cp.Reason = "the baseline's results do not list this class"
		case !inC:
			cp.Reason = "the candidate's results do not list this class"
		case !finiteF(bv) || !finiteF(cv):
			cp.Reason = ErrUndefined.Error()
		default:
			bs, cs := make([]any, len(brep)), make([]any, len(crep))
			for b := range brep {
				if v, ok := brep[b][k]; ok {
					bs[b] = v
				}
				if v, ok := crep[b][k]; ok {
					cs[b] = v
				}
			}
			cp.Tested, cp.Paired = true, PairedFromReplicates(bv, cv, bs, cs, level)
		}
		out = append(out, cp)
	}
	return out, nil
}

// classValues is a per-class result keyed by class.
type classValues struct {
	labels  []any
	byClass map[string]float64
}

// perClass reads a per-class result; a label list that does not match the values makes
// every entry unknown (none is listed).
func perClass(r core.Result) (classValues, error) {
	switch v := r.Value.(type) {
	case nil:
		return classValues{}, ErrUndefined
	case []float64:
		cv := classValues{byClass: map[string]float64{}}
		labels, ok := ClassLabels(r, len(v))
		if !ok {
			return cv, nil
		}
		cv.labels = labels
		for i, l := range labels {
			cv.byClass[ClassKey(l)] = v[i]
		}
		return cv, nil
	}
	return classValues{}, ErrNotPerClass
}

// replicateClasses returns, per replicate, its finite per-class values keyed by class. A
// replicate's entries are labelled by its own details.classes; replicates kept as sum
// vectors have no details, and their entries are labelled by the main result's classes
// when the lengths agree.
func (s *BootstrapState) replicateClasses() []map[string]float64 {
	out := make([]map[string]float64, s.m.Config.Resamples)
	mainLabels, _ := ClassLabels(s.Main.Result(), -1)
	for b := range out {
		var r core.Result
		switch {
		case s.vec != nil:
			r = s.Main.(core.SumVectorState).VectorResult(s.vec[b*s.dim : (b+1)*s.dim])
			if v, ok := r.Value.([]float64); ok && len(v) == len(mainLabels) && r.Details["classes"] == nil {
				r.Details = map[string]any{"classes": mainLabels}
			}
		case s.Reps != nil:
			r = s.Reps[b].Result()
		default:
			continue
		}
		cv, err := perClass(r)
		if err != nil {
			continue
		}
		m := make(map[string]float64, len(cv.byClass))
		for k, x := range cv.byClass {
			if finiteF(x) {
				m[k] = x
			}
		}
		out[b] = m
	}
	return out
}

func finiteF(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
