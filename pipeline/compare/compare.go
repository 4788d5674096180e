// Package compare runs the paired significance tests of statistics.md §2 between a baseline
// system and candidates whose metric states share their resampling set-up: the paired
// bootstrap from the states' replicates (test bs) or paired approximate randomization from
// their per-trial kept and swapped parts (test ar). It renders the outcome as the table
// and the JSON of `evalstream compare`. It does no I/O beyond the writer it is given.
package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// The tests.
const (
	TestBootstrap     = "bs"
	TestRandomization = "ar"
)

// System is one system's metric states: States[i] is metric i's state over all its records
// (a *stats.BootstrapState), Slices its states per slice key, and AR, for test ar, the
// *stats.RandomizationState of metric i overall and per slice. The states are only read.
type System struct {
	Name     string
	States   []core.State
	Slices   map[string][]core.State
	AR       []core.State
	ARSlices map[string][]core.State
}

// Options says which test to run and at which level a difference is significant.
type Options struct {
	Test  string
	Alpha float64
	// Names are the metric names, in output order (the states' order).
	Names []string
	// CI is the systems' common resampling set-up; Trials the number of ar trials.
	CI     stats.Config
	Trials int
}

// Report is the outcome of Compare. Metrics keep the Options.Names order; Slices are
// sorted by key and hold only slices that every system has.
type Report struct {
	Baseline string
	Options
	Metrics []Metric
	Slices  []Slice
}

// Slice is the comparison within one slice.
type Slice struct {
	Key     string
	Metrics []Metric
}

// Metric is one metric's rows: the baseline first, then every candidate in order.
type Metric struct {
	Name string
	Rows []Row
}

// Row is one system's value and, for a candidate, its paired test against the baseline.
type Row struct {
	System string
	Value  any
	// Reason explains a null Value, or why the candidate was not tested.
	Reason   string
	Low      *float64
	High     *float64
	Tested   bool
	Test     stats.Paired
	Baseline bool
	// Classes holds, for a per-class metric, each class's value, interval and (for a
	// candidate) paired test; nil for other metrics. Value keeps the whole array.
	Classes []ClassRow
}

// Significant reports whether the candidate's difference is significant at alpha.
func (r Row) Significant(alpha float64) bool { return r.Tested && r.Test.P < alpha }

// Compare tests every candidate of systems against systems[base]. Every system must hold
// states of the same metrics and set-up (the caller checks headers and names the
// difference; here a mismatch surfaces as an error wrapping stats.ErrUnpaired). It stops
// between two paired tests when ctx is done, with an error wrapping ctx's cause.
func Compare(ctx context.Context, systems []System, base int, o Options) (*Report, error) {
	r := &Report{Baseline: systems[base].Name, Options: o}
	order := append([]int{base}, without(len(systems), base)...)
	overall := func(s System) []core.State { return s.States }
	overallAR := func(s System) []core.State { return s.AR }
	var err error
	if r.Metrics, err = compareStates(ctx, systems, order, o, overall, overallAR); err != nil {
		return nil, err
	}
	for _, k := range commonSlices(systems) {
		ms, err := compareStates(ctx, systems, order, o,
			func(s System) []core.State { return s.Slices[k] },
			func(s System) []core.State { return s.ARSlices[k] })
		if err != nil {
			return nil, fmt.Errorf("slice %s: %w", k, err)
		}
		r.Slices = append(r.Slices, Slice{Key: k, Metrics: ms})
	}
	return r, nil
}

func without(n, skip int) []int {
	var out []int
	for i := range n {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

// commonSlices returns the slice keys every system has, sorted.
func commonSlices(systems []System) []string {
	var keys []string
	for k := range systems[0].Slices {
		ok := true
		for _, s := range systems[1:] {
			if _, has := s.Slices[k]; !has {
				ok = false
				break
			}
		}
		if ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func compareStates(ctx context.Context, systems []System, order []int, o Options, get, getAR func(System) []core.State) ([]Metric, error) {
	out := make([]Metric, len(o.Names))
	for i, name := range o.Names {
		m := Metric{Name: name}
		bst := get(systems[order[0]])[i]
		for j, si := range order {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("compare stopped: %w", context.Cause(ctx))
			}
			st := get(systems[si])[i]
			row := Row{System: systems[si].Name, Baseline: j == 0}
			res := st.Result()
			row.Value, row.Reason = res.Value, res.Reason
			if !finite(res.Value) {
				// As in results: no NaN or Inf reaches the output.
				row.Value, row.Reason = nil, "the value is not a finite number"
				res.CI = nil
			}
			if res.CI != nil {
				if lo, ok := res.CI.Low.(float64); ok {
					hi := res.CI.High.(float64)
					row.Low, row.High = &lo, &hi
				}
			}
			if row.Value != nil {
				row.Classes = classRows(res)
			}
			if j > 0 && row.Value != nil && row.Classes != nil && bootstrapped(bst, st) {
				if err := testClasses(&row, bst, st, o.Test); err != nil {
					return nil, fmt.Errorf("metric %s, system %s: %w", name, row.System, err)
				}
			} else if _, matrix := row.Value.([][]float64); j > 0 && matrix {
				row.Reason = "not compared: a matrix (the confusion matrix) is shown, not tested"
			} else if j > 0 && row.Value != nil {
				if err := test(&row, bst, st, o, i, systems[order[0]], systems[si], getAR); err != nil {
					return nil, fmt.Errorf("metric %s, system %s: %w", name, row.System, err)
				}
			}
			m.Rows = append(m.Rows, row)
		}
		out[i] = m
	}
	return out, nil
}

// test fills row's paired test; reasons that leave a candidate untested (an undefined or
// non-scalar value) are kept in row.Reason, other failures are errors.
func test(row *Row, bst, st core.State, o Options, i int, bsys, csys System, getAR func(System) []core.State) error {
	var p stats.Paired
	var err error
	b, ok1 := bst.(*stats.BootstrapState)
	c, ok2 := st.(*stats.BootstrapState)
	pr, isPairer := bst.(stats.Pairer)
	switch {
	case isPairer:
		// The state's method runs both tests its own way (method sacrebleu).
		p, err = pr.PairedTest(o.Test, st, o.Trials)
		return finish(row, p, err)
	case !ok1 || !ok2:
		return stats.ErrNoReplicates
	}
	p, err = stats.PairedBootstrap(b, c)
	if err == nil && o.Test == TestRandomization {
		ba, ok1 := getAR(bsys)[i].(*stats.RandomizationState)
		ca, ok2 := getAR(csys)[i].(*stats.RandomizationState)
		if !ok1 || !ok2 {
			return errors.New("no randomization trials (test ar needs the inputs folded by compare itself)")
		}
		var ar stats.Paired
		if ar, err = stats.PairedRandomization(ba, ca); err == nil {
			// The delta interval stays the paired bootstrap's; p is the randomization test's.
			p.P, p.Draws, p.Undefined = ar.P, ar.Draws, ar.Undefined
		}
	}
	return finish(row, p, err)
}

// finish records a test's outcome in row: an undefined or non-scalar value leaves the
// candidate untested with the reason; other errors are returned.
func finish(row *Row, p stats.Paired, err error) error {
	switch {
	case errors.Is(err, stats.ErrNotScalar), errors.Is(err, stats.ErrUndefined):
		row.Reason = "not compared: " + err.Error()
		return nil
	case err != nil:
		return err
	}
	row.Tested, row.Test = true, p
	return nil
}

// testName is the test's name in the table footer.
func (r *Report) testName() string {
	how := ""
	if r.CI.Method == stats.MethodSacrebleu {
		how = "sacrebleu's " // its own resampling and p-value formulas
	}
	if r.Test == TestRandomization {
		return fmt.Sprintf("%spaired approximate randomization, %d trials, seed %d", how, r.Trials, r.CI.Seed)
	}
	return fmt.Sprintf("%spaired bootstrap, %d resamples, seed %d", how, r.CI.Resamples, r.CI.Seed)
}

// WriteTable prints one block per metric (and per slice): one row per system, baseline
// first, with its value and interval, and for candidates the delta with its interval, the
// p-value and a `*` when p < alpha.
func (r *Report) WriteTable(w io.Writer, digits int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tsystem\tvalue\tdelta\tp\t")
	block := func(prefix string, ms []Metric) {
		for _, m := range ms {
			if m.perClass() {
				r.classBlock(tw, prefix, m, digits)
				continue
			}
			for _, row := range m.Rows {
				val := "null (" + row.Reason + ")"
				if row.Value != nil {
					val = formatValue(row.Value, digits)
					if row.Low != nil {
						val += " [" + num(*row.Low, digits) + ", " + num(*row.High, digits) + "]"
					}
				}
				delta, p := "", ""
				switch {
				case row.Baseline:
					delta = "(baseline)"
				case row.Tested:
					delta, p = formatTest(row.Test, r.Alpha, digits)
				case row.Value != nil:
					delta = row.Reason
				}
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t\n", prefix, m.Name, row.System, val, delta, p)
			}
		}
	}
	block("", r.Metrics)
	for _, s := range r.Slices {
		block("["+s.Key+"] ", s.Metrics)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sided := "two-sided"
	if r.CI.Method == stats.MethodSacrebleu {
		sided = "p-values as sacrebleu computes them" // its bootstrap p-value is not a two-sided test
	}
	_, err := fmt.Fprintf(w, "* p < %v (%s, %s); delta = candidate − baseline\n", r.Alpha, r.testName(), sided)
	return err
}

// formatTest is a paired test's table cells: the delta with its interval, and the p-value
// marked * when significant at alpha.
func formatTest(t stats.Paired, alpha float64, digits int) (delta, p string) {
	delta = signed(t.Delta, digits)
	if !math.IsNaN(t.DeltaLow) {
		delta += " [" + signed(t.DeltaLow, digits) + ", " + signed(t.DeltaHigh, digits) + "]"
	}
	p = "p = " + strconv.FormatFloat(t.P, 'f', 4, 64)
	if t.P < alpha {
		p += " *"
	}
	return delta, p
}

// finite reports whether every number in a metric value (a scalar, a per-class list or a
// matrix) is finite.
func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []float64:
		for _, f := range x {
			if !finite(f) {
				return false
			}
		}
	case [][]float64:
		for _, r := range x {
			if !finite(r) {
				return false
			}
		}
	}
	return true
}

func num(x float64, digits int) string { return strconv.FormatFloat(x, 'g', digits, 64) }

func signed(x float64, digits int) string {
	s := num(x, digits)
	if x >= 0 {
		s = "+" + s
	}
	return s
}

func formatValue(v any, digits int) string {
	switch x := v.(type) {
	case float64:
		return num(x, digits)
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = num(f, digits)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// MarshalJSON renders the report as statistics.md §2 shows it: baseline, test, set-up,
// alpha, then per metric (in config order) the rows, baseline first; slices under
// "slices", keyed by slice.
func (r *Report) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"baseline":`)
	put(&b, r.Baseline)
	b.WriteString(`,"test":`)
	put(&b, r.Test)
	b.WriteString(`,"resamples":`)
	put(&b, r.CI.Resamples)
	b.WriteString(`,"seed":`)
	put(&b, r.CI.Seed)
	if r.Test == TestRandomization {
		b.WriteString(`,"trials":`)
		put(&b, r.Trials)
	}
	b.WriteString(`,"alpha":`)
	put(&b, r.Alpha)
	b.WriteString(`,"metrics":`)
	r.writeMetrics(&b, r.Metrics)
	if len(r.Slices) > 0 {
		b.WriteString(`,"slices":{`)
		for i, s := range r.Slices {
			if i > 0 {
				b.WriteByte(',')
			}
			put(&b, s.Key)
			b.WriteString(`:{"metrics":`)
			r.writeMetrics(&b, s.Metrics)
			b.WriteByte('}')
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type jsonInterval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

type jsonRow struct {
	System string `json:"system"`
	Value  any    `json:"value"`
	Reason string `json:"reason,omitempty"`
	jsonTest
	Classes []jsonClass `json:"classes,omitempty"`
}

// jsonTest is what a value's interval and, for a candidate, its paired test add to a row or
// a class entry.
type jsonTest struct {
	CI          *jsonInterval `json:"ci,omitempty"`
	Delta       *float64      `json:"delta,omitempty"`
	DeltaCI     *jsonInterval `json:"delta_ci,omitempty"`
	PValue      *float64      `json:"p_value,omitempty"`
	Significant *bool         `json:"significant,omitempty"`
	Undefined   int           `json:"undefined,omitempty"`
}

func newJSONTest(low, high *float64, tested bool, t stats.Paired, alpha float64) jsonTest {
	var jt jsonTest
	if low != nil {
		jt.CI = &jsonInterval{*low, *high}
	}
	if tested {
		jt.Delta, jt.PValue = &t.Delta, &t.P
		if !math.IsNaN(t.DeltaLow) {
			jt.DeltaCI = &jsonInterval{t.DeltaLow, t.DeltaHigh}
		}
		sig := t.P < alpha
		jt.Significant = &sig
		jt.Undefined = t.Undefined
	}
	return jt
}

func (r *Report) writeMetrics(b *bytes.Buffer, ms []Metric) {
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		put(b, m.Name)
		b.WriteString(`:[`)
		for j, row := range m.Rows {
			if j > 0 {
				b.WriteByte(',')
			}
			jr := jsonRow{System: row.System, Value: row.Value, Reason: row.Reason,
				jsonTest: newJSONTest(row.Low, row.High, row.Tested, row.Test, r.Alpha)}
			jr.Classes = r.jsonClasses(row)
			put(b, jr)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
}

func put(b *bytes.Buffer, v any) {
	enc, err := json.Marshal(v)
	if err != nil {
		// Only finite numbers, strings and the values of metric results reach here; a
		// value encoding/json refuses is rendered as null rather than corrupting the output.
		enc = []byte("null")
	}
	b.Write(enc)
}
