package sinks

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"slices"
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
type JSON struct {
	Path string
	// Meta, when set, is called at each write for the run's description, written before
	// the results' own keys (see RunMeta).
	Meta func() RunMeta
}

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
	var meta *RunMeta
	if s.Meta != nil {
		m := s.Meta()
		meta = &m
	}
	b, err := ResultsJSON(r, meta)
	if err != nil {
		return nil, err
	}
	return stage(s.Path, b)
}

// Close does nothing.
func (s *JSON) Close() error { return nil }

// IndentedJSON renders results as indented JSON with a final newline.
func IndentedJSON(r *pipeline.Results) ([]byte, error) { return ResultsJSON(r, nil) }

// ResultsJSON renders results as indented JSON with a final newline, with the run's
// description (meta, may be nil) before the results' own keys.
func ResultsJSON(r *pipeline.Results, meta *RunMeta) ([]byte, error) {
	raw, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if meta != nil {
		if raw, err = withMeta(raw, *meta); err != nil {
			return nil, err
		}
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
	Time string `json:"time"`
	// The run's description; nil (absent) without Meta.
	*runFields
	ConfigSignature string          `json:"config_signature"`
	Results         json.RawMessage `json:"results"`
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
		line.runFields = s.Meta().fields()
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

// CSV appends tidy rows to a file: one row per run × slice × metric × class, the columns
// of CSVHeader. A scalar metric has one row with empty class, predicted and stat cells; a
// per-class array one row per class; a matrix (confusion_matrix) one row per cell (class =
// true class, predicted = predicted class); a report (classification_report) one row per
// entry and statistic (class = "0", "macro avg"..., stat = precision, recall, f1-score or
// support; accuracy one row with class "accuracy"); a null value an empty value cell and
// its reason. Classes are named by the metric's details.classes when it lists one per element
// (the sklearn preset's classes seen), else by their index. The header is written once,
// when the file is new or empty; an existing file with another header is refused rather
// than mixed. A CSV is not safe for concurrent use; concurrent runs appending to one file
// must be serialized by their caller.
type CSV struct {
	Path string
	// Meta, when set, is called at each write for the run label (see RunMeta).
	Meta func() RunMeta
	// Now, when set, replaces time.Now for the time column (tests).
	Now func() time.Time
}

// CSVHeader is the CSV sink's header row.
var CSVHeader = []string{"time", "run", "slice", "metric", "type", "class", "predicted", "stat", "value", "records", "reason", "signature"}

// ErrCSVHeader is wrapped when an existing CSV file has another header.
var ErrCSVHeader = errors.New("existing CSV file has another header")

// Write appends r's rows (and the header, to a new or empty file) with a single append:
// the continuous Kafka runs, which write at every emission, use it.
func (s *CSV) Write(_ context.Context, r *pipeline.Results) error {
	fresh, err := CheckCSVHeader(s.Path)
	if err != nil {
		return err
	}
	b, err := s.rows(r, fresh)
	if err != nil {
		return err
	}
	return appendFile(s.Path, b)
}

// Stage writes a temporary copy of the file with r's rows appended (see Stager), so that a
// file run appends all or nothing together with its other outputs: until Commit renames
// the copy into place, the file keeps its previous rows only. A device or a pipe is written
// in place (it has no previous rows to copy).
func (s *CSV) Stage(r *pipeline.Results) (*AtomicFile, error) {
	fresh, err := CheckCSVHeader(s.Path)
	if err != nil {
		return nil, err
	}
	b, err := s.rows(r, fresh)
	if err != nil {
		return nil, err
	}
	f, err := CreateAtomic(s.Path)
	if err != nil {
		return nil, err
	}
	if !fresh && !f.direct {
		if err := copyInto(f, s.Path); err != nil {
			f.Abort()
			return nil, err
		}
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return nil, err
	}
	if err := f.Finish(); err != nil {
		return nil, err
	}
	return f, nil
}

// copyInto copies the file at path to the end of f.
func copyInto(f *AtomicFile, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s to append to it: %w", path, pathErrCause(err))
	}
	defer src.Close()
	// Through f's Write (hidden from io.Copy's ReaderFrom) so that an error names path.
	_, err = io.Copy(struct{ io.Writer }{f}, src)
	return err
}

// rows renders r's rows, after the header when fresh.
func (s *CSV) rows(r *pipeline.Results, fresh bool) ([]byte, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	ts := now().UTC().Format(time.RFC3339Nano)
	run := ""
	if s.Meta != nil {
		run = s.Meta().Run
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if fresh {
		_ = w.Write(CSVHeader)
	}
	row := func(slice string, records int64, m pipeline.MetricResult) {
		rec := strconv.FormatInt(records, 10)
		cellStat := func(class, pred, stat string, v any) {
			val := ""
			if v != nil {
				val = FormatValue(v, -1)
			}
			_ = w.Write([]string{ts, run, slice, m.Name, m.Type, class, pred, stat, val, rec, m.Reason, m.Signature})
		}
		cell := func(class, pred string, v any) { cellStat(class, pred, "", v) }
		if obj, ok := m.Value.(map[string]any); ok {
			// A report: class = the entry's key, stat = the statistic within it.
			for _, k := range objectKeys(obj, m.Details) {
				e, ok := obj[k].(map[string]any)
				if !ok {
					cell(k, "", obj[k])
					continue
				}
				for _, st := range statKeys(e) {
					cellStat(k, "", st, e[st])
				}
			}
			return
		}
		rv := reflect.ValueOf(m.Value)
		if m.Value == nil || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
			cell("", "", m.Value)
			return
		}
		name := classNamer(m.Details, rv.Len())
		for i := 0; i < rv.Len(); i++ {
			e := reflect.ValueOf(rv.Index(i).Interface())
			if e.Kind() != reflect.Slice && e.Kind() != reflect.Array {
				cell(name(i), "", rv.Index(i).Interface())
				continue
			}
			for j := 0; j < e.Len(); j++ {
				cell(name(i), name(j), e.Index(j).Interface())
			}
		}
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
	return buf.Bytes(), nil
}

// classNamer names the i-th element of a per-class value of length n: details.classes[i]
// when details lists exactly n classes, else i.
func classNamer(details map[string]any, n int) func(int) string {
	cv := reflect.ValueOf(details["classes"])
	if (cv.Kind() == reflect.Slice || cv.Kind() == reflect.Array) && cv.Len() == n {
		return func(i int) string { return fmt.Sprint(cv.Index(i).Interface()) }
	}
	return strconv.Itoa
}

// CheckCSVHeader reports whether path needs a header (it does not exist, is empty, or is
// not a regular file: a pipe cannot be read back), and fails when it is a CSV file whose
// first row is not CSVHeader.
func CheckCSVHeader(path string) (fresh bool, err error) {
	// Stat before opening: opening a FIFO for reading would wait for a writer.
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if st.IsDir() {
		return false, fmt.Errorf("%s is a directory", path)
	}
	if !st.Mode().IsRegular() || st.Size() == 0 {
		return true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	got, err := csv.NewReader(f).Read()
	if err != nil {
		return false, fmt.Errorf("%s: %w: its first row does not read as CSV (%v); write to a new file", path, ErrCSVHeader, err)
	}
	if !slices.Equal(got, CSVHeader) {
		return false, fmt.Errorf("%s: %w: %q, this version writes %q (a file of an older version or another tool); write to a new file or move this one away", path, ErrCSVHeader, strings.Join(got, ","), strings.Join(CSVHeader, ","))
	}
	return false, nil
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
			if obj, ok := m.Value.(map[string]any); ok {
				// A report (classification_report): one row per entry, classes first.
				for i, k := range objectKeys(obj, m.Details) {
					label := ""
					if i == 0 {
						label = name
					}
					rows = append(rows, [4]string{label, k + ": " + formatEntry(obj[k], digits), rec, m.Signature})
					rec, m.Signature = "", ""
				}
				continue
			}
			if mat, ok := m.Value.([][]float64); ok {
				class := classNamer(m.Details, len(mat))
				for i, row := range mat {
					label := ""
					if i == 0 {
						label = name
					}
					rows = append(rows, [4]string{label, fmt.Sprintf("true %s: %s", class(i), FormatValue(row, digits)), rec, m.Signature})
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

// objectKeys orders the entries of an object value (a report): the classes in the order of
// details.classes, then the other keys sorted ("accuracy", "macro avg", "weighted avg", as
// sklearn prints them).
func objectKeys(obj map[string]any, details map[string]any) []string {
	var keys []string
	seen := map[string]bool{}
	if cv := reflect.ValueOf(details["classes"]); cv.Kind() == reflect.Slice {
		for i := 0; i < cv.Len(); i++ {
			k := fmt.Sprint(cv.Index(i).Interface())
			if _, ok := obj[k]; ok && !seen[k] {
				keys = append(keys, k)
				seen[k] = true
			}
		}
	}
	var rest []string
	for k := range obj {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// statOrder is the order of a report entry's statistics (sklearn's columns); others follow,
// sorted.
var statOrder = []string{"precision", "recall", "f1-score", "support"}

// statKeys orders the statistics of one report entry.
func statKeys(e map[string]any) []string {
	var keys []string
	for _, k := range statOrder {
		if _, ok := e[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range e {
		if !slices.Contains(statOrder, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// formatEntry prints one entry of a report: a number, or its statistics in order.
func formatEntry(v any, digits int) string {
	e, ok := v.(map[string]any)
	if !ok {
		return FormatValue(v, digits)
	}
	parts := make([]string, 0, len(e))
	for _, k := range statKeys(e) {
		parts = append(parts, k+" "+FormatValue(e[k], digits))
	}
	return strings.Join(parts, "  ")
}
