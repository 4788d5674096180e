package sinks

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// Stager is a sink that writes one file atomically. Stage writes the file under a temporary
// name; the caller moves it into place with Commit (or drops it with Abort), so that a run
// with several outputs can write them all before it moves any: a failed run changes none.
type Stager interface {
	Stage(r *pipeline.Results) (*AtomicFile, error)
}

// stage writes data to a new AtomicFile for path and finishes it (see Stager).
func stage(path string, data []byte) (*AtomicFile, error) {
	f, err := CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return nil, err
	}
	if err := f.Finish(); err != nil {
		return nil, err
	}
	return f, nil
}

// JSON writes the results JSON of the interface contract to a file, atomically.
type JSON struct{ Path string }

// Write replaces the file with r.
func (s *JSON) Write(_ context.Context, r *pipeline.Results) error {
	f, err := s.Stage(r)
	if err != nil {
		return err
	}
	return f.Commit()
}

// Stage writes r to a temporary file (see Stager).
func (s *JSON) Stage(r *pipeline.Results) (*AtomicFile, error) {
	b, err := IndentedJSON(r)
	if err != nil {
		return nil, err
	}
	return stage(s.Path, b)
}

// Close does nothing.
func (s *JSON) Close() error { return nil }

// IndentedJSON renders results as indented JSON with a final newline.
func IndentedJSON(r *pipeline.Results) ([]byte, error) {
	raw, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// JSONL appends one line per run: a timestamp, the run's description (see RunMeta), the
// config signature and the results — a history for nightly jobs. The line is written with a
// single append.
type JSONL struct {
	Path string
	// Signature identifies the config (hash of the metric signatures, slices and source,
	// paths included). Kept for existing readers of the history; metrics_signature is the
	// path-independent key to group runs by.
	Signature string
	// Meta, when set, is called at each write for the run's description.
	Meta func() RunMeta
	Now  func() time.Time
}

// historyLine is the layout of one JSONL line. Field order is the output order.
type historyLine struct {
	Time             string          `json:"time"`
	Run              *string         `json:"run,omitempty"`
	StartedAt        string          `json:"started_at,omitempty"`
	DurationS        *float64        `json:"duration_s,omitempty"`
	Version          string          `json:"version,omitempty"`
	GitCommit        string          `json:"git_commit,omitempty"`
	Input            []Input         `json:"input,omitempty"`
	MetricsSignature string          `json:"metrics_signature,omitempty"`
	ConfigSignature  string          `json:"config_signature"`
	Results          json.RawMessage `json:"results"`
}

// Write appends a history line.
func (s *JSONL) Write(_ context.Context, r *pipeline.Results) error {
	raw, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	line := historyLine{Time: now().UTC().Format(time.RFC3339Nano), ConfigSignature: s.Signature, Results: raw}
	if s.Meta != nil {
		m := s.Meta()
		d := m.Duration.Seconds()
		line.Run, line.DurationS = &m.Run, &d
		line.StartedAt = m.StartedAt.UTC().Format(time.RFC3339Nano)
		line.Version, line.GitCommit, line.MetricsSignature = m.Version, m.GitCommit, m.MetricsSignature
		line.Input = m.Inputs
		if line.Input == nil {
			line.Input = []Input{}
		}
	}
	// Without HTML escaping, the results inside the line are their MarshalJSON bytes
	// (already escaped), not escaped a second time.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line); err != nil {
		return fmt.Errorf("history line: %w", err)
	}
	return appendFile(s.Path, b.Bytes())
}

// Close does nothing.
func (s *JSONL) Close() error { return nil }

// CSV writes one row per metric and slice: slice, metric, type, value, records, reason,
// signature. Per-class arrays and matrices are JSON in the value cell.
type CSV struct{ Path string }

// Write replaces the file with r.
func (s *CSV) Write(_ context.Context, r *pipeline.Results) error {
	f, err := s.Stage(r)
	if err != nil {
		return err
	}
	return f.Commit()
}

// Stage writes r to a temporary file (see Stager).
func (s *CSV) Stage(r *pipeline.Results) (*AtomicFile, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"slice", "metric", "type", "value", "records", "reason", "signature"})
	row := func(slice string, records int64, m pipeline.MetricResult) {
		_ = w.Write([]string{slice, m.Name, m.Type, FormatValue(m.Value, -1), strconv.FormatInt(records, 10), m.Reason, m.Signature})
	}
	for _, m := range r.Metrics {
		row("", r.Records, m)
	}
	for _, sl := range r.Slices {
		for _, m := range sl.Metrics {
			row(sl.Key, sl.Records, m)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return stage(s.Path, buf.Bytes())
}

// Close does nothing.
func (s *CSV) Close() error { return nil }

// FormatValue prints a metric value: a number with the given significant digits (-1 =
// shortest exact), null, or a JSON-like array.
func FormatValue(v any, digits int) string {
	if v == nil {
		return "null"
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'g', digits, 64)
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Slice, reflect.Array:
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = FormatValue(rv.Index(i).Interface(), digits)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// FormatResult prints a metric's value for a table: FormatValue followed by its confidence
// interval as `[low, high]` (per component for per-class values), or `null (reason)`.
func FormatResult(r core.Result, digits int) string {
	if r.Value == nil {
		return "null (" + r.Reason + ")"
	}
	if r.CI == nil {
		return FormatValue(r.Value, digits)
	}
	f := func(x float64) string { return FormatValue(x, digits) }
	switch v := r.Value.(type) {
	case float64:
		lo, _ := r.CI.Low.(float64)
		hi, _ := r.CI.High.(float64)
		return fmt.Sprintf("%s [%s, %s]", f(v), f(lo), f(hi))
	case []float64:
		lo, _ := r.CI.Low.([]float64)
		hi, _ := r.CI.High.([]float64)
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = f(x)
			if i < len(lo) && i < len(hi) && !math.IsNaN(lo[i]) {
				parts[i] += fmt.Sprintf(" [%s, %s]", f(lo[i]), f(hi[i]))
			}
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return FormatValue(r.Value, digits)
}

// Table prints an aligned, human-readable table: metric, value, records and signature,
// then every slice; matrices get one row per true class.
type Table struct {
	W io.Writer
	// Digits is the number of significant digits printed (default 6).
	Digits int
}

// Write prints r.
func (s *Table) Write(_ context.Context, r *pipeline.Results) error {
	digits := s.Digits
	if digits == 0 {
		digits = 6
	}
	var rows [][4]string
	add := func(prefix string, records int64, ms []pipeline.MetricResult) {
		for _, m := range ms {
			name := prefix + m.Name
			val := FormatResult(m.Result, digits)
			rec := strconv.FormatInt(records, 10)
			if mat, ok := m.Value.([][]float64); ok {
				for i, row := range mat {
					label := ""
					if i == 0 {
						label = name
					}
					rows = append(rows, [4]string{label, fmt.Sprintf("true %d: %s", i, FormatValue(row, digits)), rec, m.Signature})
					rec, m.Signature = "", ""
				}
				continue
			}
			rows = append(rows, [4]string{name, val, rec, m.Signature})
		}
	}
	add("", r.Records, r.Metrics)
	for _, sl := range r.Slices {
		add("["+sl.Key+"] ", sl.Records, sl.Metrics)
	}
	header := [4]string{"metric", "value", "records", "signature"}
	width := [4]int{}
	for _, row := range append([][4]string{header}, rows...) {
		for i, c := range row {
			if n := len([]rune(c)); n > width[i] {
				width[i] = n
			}
		}
	}
	var b strings.Builder
	if r.Window != nil {
		fmt.Fprintf(&b, "window %s .. %s\n", r.Window.Start.UTC().Format(time.RFC3339), r.Window.End.UTC().Format(time.RFC3339))
	}
	line := func(row [4]string) {
		for i, c := range row {
			if i == 3 {
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))+2))
		}
		b.WriteString("\n")
	}
	line(header)
	line([4]string{strings.Repeat("-", width[0]), strings.Repeat("-", width[1]), strings.Repeat("-", width[2]), strings.Repeat("-", width[3])})
	for _, row := range rows {
		line(row)
	}
	fmt.Fprintf(&b, "records: %d scored, %d skipped\n", r.Records, r.Skipped)
	writeBadRecords(&b, r)
	_, err := io.WriteString(s.W, b.String())
	return err
}

// writeBadRecords lists the rejection counts by reason, each with the first positions.
func writeBadRecords(b *strings.Builder, r *pipeline.Results) {
	keys := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "  bad records: %-28s %d\n", k, r.Errors[k])
		if ex := r.ErrorExamples[k]; len(ex) > 0 {
			fmt.Fprintf(b, "    first at: %s\n", strings.Join(ex, ", "))
		}
	}
}

// Close does nothing.
func (s *Table) Close() error { return nil }
