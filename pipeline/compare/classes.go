package compare

import (
	"errors"
	"fmt"
	"io"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// ClassRow is one class of a per-class metric (precision, recall, F1... with average
// none) for one system: its value and interval and, for a candidate, the paired test of
// that class against the baseline's. Classes are matched by label (name or id), not by
// position.
type ClassRow struct {
	// Class is the label: the class's name when the metric names its classes, else its id.
	Class any
	// Value is nil when the system's results do not list the class or its value is not
	// finite; Reason then says which.
	Value     *float64
	Low, High *float64
	Reason    string
	Tested    bool
	Test      stats.Paired
}

// Significant reports whether the class's difference is significant at alpha.
func (c ClassRow) Significant(alpha float64) bool { return c.Tested && c.Test.P < alpha }

// classRows returns the per-class rows of a per-class result (values and intervals,
// untested), or nil when res is not one.
func classRows(res core.Result) []ClassRow {
	v, ok := res.Value.([]float64)
	if !ok {
		return nil
	}
	labels, ok := stats.ClassLabels(res, len(v))
	if !ok {
		return nil
	}
	var lows, highs []float64
	if res.CI != nil {
		lows, _ = res.CI.Low.([]float64)
		highs, _ = res.CI.High.([]float64)
	}
	out := make([]ClassRow, len(v))
	for i, x := range v {
		out[i] = ClassRow{Class: labels[i]}
		if !finite(x) {
			out[i].Reason = "the value is not a finite number"
			continue
		}
		out[i].Value = &x
		if len(lows) == len(v) && len(highs) == len(v) && finite(lows[i]) && finite(highs[i]) {
			out[i].Low, out[i].High = &lows[i], &highs[i]
		}
	}
	return out
}

// bootstrapped reports whether both states carry Poisson replicates (the per-class test
// needs them; states with a test of their own, method sacrebleu, have no per-class values).
func bootstrapped(a, b core.State) bool {
	_, ok1 := a.(*stats.BootstrapState)
	_, ok2 := b.(*stats.BootstrapState)
	return ok1 && ok2
}

// testClasses runs the per-class paired bootstrap of a candidate's per-class metric
// against the baseline's and records each class's outcome in row.Classes. Like finish, an
// undefined value leaves the candidate untested with a reason; other errors are returned.
// Test ar keeps per-trial statistics of scalar values only: per-class values are then
// shown, not tested (a bootstrap p-value under an ar footer would mislead).
func testClasses(row *Row, bst, st core.State, test string) error {
	if test == TestRandomization {
		row.Reason = "not compared: test ar compares single numbers; per-class values need --test bs"
		return nil
	}
	cps, err := stats.PairedBootstrapClasses(bst.(*stats.BootstrapState), st.(*stats.BootstrapState))
	switch {
	case errors.Is(err, stats.ErrUndefined), errors.Is(err, stats.ErrNotPerClass):
		row.Reason = "not compared: " + err.Error()
		return nil
	case err != nil:
		return err
	}
	idx := map[string]int{}
	for i, cr := range row.Classes {
		idx[stats.ClassKey(cr.Class)] = i
	}
	for _, cp := range cps {
		i, ok := idx[stats.ClassKey(cp.Class)]
		if !ok {
			// A class only the baseline lists: the candidate's row shows it as absent.
			row.Classes = append(row.Classes, ClassRow{Class: cp.Class, Reason: cp.Reason})
			continue
		}
		cr := &row.Classes[i]
		if cp.Tested {
			cr.Tested, cr.Test = true, cp.Paired
		} else if cr.Reason == "" {
			cr.Reason = "not compared: " + cp.Reason
		}
	}
	return nil
}

// classOrder returns the labels of every class that a row of m lists, in the order the
// rows list them (the baseline's first).
func classOrder(m Metric) []any {
	var out []any
	seen := map[string]bool{}
	for _, r := range m.Rows {
		for _, c := range r.Classes {
			if k := stats.ClassKey(c.Class); !seen[k] {
				seen[k] = true
				out = append(out, c.Class)
			}
		}
	}
	return out
}

// class returns the row's entry for the class with key k.
func (r Row) class(k string) (ClassRow, bool) {
	for _, c := range r.Classes {
		if stats.ClassKey(c.Class) == k {
			return c, true
		}
	}
	return ClassRow{}, false
}

// perClass reports whether a row of m holds per-class entries.
func (m Metric) perClass() bool {
	for _, r := range m.Rows {
		if r.Classes != nil {
			return true
		}
	}
	return false
}

// classBlock prints a per-class metric: for each class (in classOrder), one line per
// system, baseline first, named metric[class].
func (r *Report) classBlock(tw io.Writer, prefix string, m Metric, digits int) {
	for _, c := range classOrder(m) {
		k := stats.ClassKey(c)
		for _, row := range m.Rows {
			cr, listed := row.class(k)
			var val, delta, p string
			switch {
			case row.Value == nil:
				val = "null (" + row.Reason + ")"
			case !listed:
				val = "— (not listed)"
			case cr.Value == nil:
				val = "null (" + cr.Reason + ")"
			default:
				val = num(*cr.Value, digits)
				if cr.Low != nil {
					val += " [" + num(*cr.Low, digits) + ", " + num(*cr.High, digits) + "]"
				}
			}
			switch {
			case row.Baseline:
				delta = "(baseline)"
			case cr.Tested:
				delta, p = formatTest(cr.Test, r.Alpha, digits)
			case row.Value != nil && row.Reason != "":
				delta = row.Reason
			case listed && cr.Value != nil:
				delta = cr.Reason
			}
			fmt.Fprintf(tw, "%s%s[%s]\t%s\t%s\t%s\t%s\t\n", prefix, m.Name, k, row.System, val, delta, p)
		}
	}
}

// jsonClass is one class of a per-class row in compare's JSON.
type jsonClass struct {
	Class  any      `json:"class"`
	Value  *float64 `json:"value"`
	Reason string   `json:"reason,omitempty"`
	jsonTest
}

// jsonClasses renders a row's per-class entries (nil for other metrics).
func (r *Report) jsonClasses(row Row) []jsonClass {
	if row.Classes == nil {
		return nil
	}
	out := make([]jsonClass, len(row.Classes))
	for i, c := range row.Classes {
		out[i] = jsonClass{Class: c.Class, Value: c.Value, Reason: c.Reason,
			jsonTest: newJSONTest(c.Low, c.High, c.Tested, c.Test, r.Alpha)}
	}
	return out
}
