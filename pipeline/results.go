package pipeline

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
)

// Results are the final values of a run, ready for sinks. Metrics keep the config order;
// Slices are sorted by key.
type Results struct {
	Records int64
	Skipped int64
	Errors  map[string]int64
	// ErrorExamples names, per rejection reason, the positions of the first rejected records
	// in input order (at most MaxErrorExamples).
	ErrorExamples map[string][]string
	Metrics       []MetricResult
	Slices        []SliceResult
	// Window is set for per-window results of a windowed Kafka run.
	Window *WindowSpan
	// Gate is the verdict of the run's gate (a JSON-encodable value, rendered as the
	// results' "gate" object), or nil when the run has no gate.
	Gate any
}

// WindowSpan is the [Start, End) interval of a time window.
type WindowSpan struct{ Start, End time.Time }

// MetricResult is one metric's value.
type MetricResult struct {
	Name string
	Type string
	// Signature is the metric's, with the pairs its result adds (Result.SigData: nrefs).
	Signature string
	core.Result
}

// SliceResult is every metric's value over the records of one slice.
type SliceResult struct {
	Key     string
	Records int64
	Metrics []MetricResult
}

// Results computes the final values. It does not change the accumulator.
func (a *Accumulator) Results() *Results {
	r := &Results{Records: a.Records, Skipped: a.Skipped, Errors: map[string]int64{}}
	for k, v := range a.Errors {
		r.Errors[k] = v
	}
	for k, ex := range a.ErrorExamples {
		if r.ErrorExamples == nil {
			r.ErrorExamples = map[string][]string{}
		}
		for _, e := range ex {
			r.ErrorExamples[k] = append(r.ErrorExamples[k], e.Pos)
		}
	}
	r.Metrics = a.metricResults(a.States)
	keys := make([]string, 0, len(a.Slices))
	for k := range a.Slices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := a.Slices[k]
		r.Slices = append(r.Slices, SliceResult{Key: k, Records: s.Records, Metrics: a.metricResults(s.States)})
	}
	return r
}

func (a *Accumulator) metricResults(states []core.State) []MetricResult {
	out := make([]MetricResult, len(states))
	for i, st := range states {
		m := a.plan.Metrics[i]
		res := st.Result()
		out[i] = MetricResult{Name: m.Name, Type: m.Type, Signature: core.SigWithData(m.Signature(), res.SigData), Result: sanitize(res)}
	}
	return out
}

// sanitize guarantees that no NaN or Inf reaches a sink: such a value becomes null with a
// reason. Metrics are expected to do this themselves; this is the last line of defence.
func sanitize(r core.Result) core.Result {
	if r.Value != nil && !finite(r.Value) {
		return core.Undefined("the value is not a finite number", r.Details)
	}
	return r
}

func finite(x any) bool {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if !finite(v.Index(i).Interface()) {
				return false
			}
		}
	}
	return true
}

// MarshalJSON renders the results JSON of the interface contract, with metrics in config
// order (a JSON object whose key order is meaningful to readers, not to parsers).
func (r *Results) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"records":`)
	writeJSON(&b, r.Records)
	b.WriteString(`,"skipped":`)
	writeJSON(&b, r.Skipped)
	b.WriteString(`,"errors":`)
	writeJSON(&b, r.Errors)
	if len(r.ErrorExamples) > 0 {
		b.WriteString(`,"error_examples":`)
		writeJSON(&b, r.ErrorExamples)
	}
	if r.Window != nil {
		b.WriteString(`,"window":`)
		writeJSON(&b, map[string]string{"start": r.Window.Start.UTC().Format(time.RFC3339), "end": r.Window.End.UTC().Format(time.RFC3339)})
	}
	b.WriteString(`,"metrics":`)
	if err := writeMetrics(&b, r.Metrics); err != nil {
		return nil, err
	}
	if len(r.Slices) > 0 {
		b.WriteString(`,"slices":{`)
		for i, s := range r.Slices {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(&b, s.Key)
			b.WriteString(`:{"records":`)
			writeJSON(&b, s.Records)
			b.WriteString(`,"metrics":`)
			if err := writeMetrics(&b, s.Metrics); err != nil {
				return nil, err
			}
			b.WriteByte('}')
		}
		b.WriteByte('}')
	}
	if r.Gate != nil {
		b.WriteString(`,"gate":`)
		if err := writeJSONErr(&b, r.Gate); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeMetrics(b *bytes.Buffer, ms []MetricResult) error {
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSON(b, m.Name)
		b.WriteString(`:{"type":`)
		writeJSON(b, m.Type)
		b.WriteString(`,"value":`)
		if err := writeJSONErr(b, m.Value); err != nil {
			return err
		}
		if m.Value == nil {
			b.WriteString(`,"reason":`)
			writeJSON(b, m.Reason)
		}
		if m.CI != nil {
			b.WriteString(`,"ci":`)
			writeInterval(b, m.CI)
		}
		if len(m.Details) > 0 {
			b.WriteString(`,"details":`)
			if err := writeJSONErr(b, m.Details); err != nil {
				return err
			}
		}
		b.WriteString(`,"signature":`)
		writeJSON(b, m.Signature)
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return nil
}

// writeInterval renders a confidence interval in the key order of statistics.md §1.
func writeInterval(b *bytes.Buffer, iv *core.Interval) {
	b.WriteString(`{"low":`)
	writeJSON(b, iv.Low)
	b.WriteString(`,"high":`)
	writeJSON(b, iv.High)
	b.WriteString(`,"level":`)
	writeJSON(b, iv.Level)
	b.WriteString(`,"method":`)
	writeJSON(b, iv.Method)
	b.WriteString(`,"resamples":`)
	writeJSON(b, iv.Resamples)
	b.WriteString(`,"seed":`)
	writeJSON(b, iv.Seed)
	b.WriteString(`,"stderr":`)
	writeJSON(b, iv.Stderr)
	if iv.Undefined > 0 {
		b.WriteString(`,"undefined":`)
		writeJSON(b, iv.Undefined)
	}
	if iv.Mean != nil {
		b.WriteString(`,"mean":`)
		writeJSON(b, *iv.Mean)
		b.WriteString(`,"half_width":`)
		writeJSON(b, *iv.HalfWidth)
	}
	b.WriteByte('}')
}

func writeJSON(b *bytes.Buffer, v any) { _ = writeJSONErr(b, v) }

func writeJSONErr(b *bytes.Buffer, v any) error {
	enc, err := json.Marshal(cleanJSON(v))
	if err != nil {
		return err
	}
	b.Write(enc)
	return nil
}

// cleanJSON replaces NaN and Inf (which encoding/json refuses) inside details by nil.
func cleanJSON(v any) any {
	switch t := v.(type) {
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = cleanJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = cleanJSON(x)
		}
		return out
	case []float64:
		if finite(t) {
			return t
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = cleanJSON(x)
		}
		return out
	}
	return v
}
