// Package htmlreport renders evaluation results as one self-contained HTML page: a header with
// the run's counts and rejections, the metrics table with deltas against a baseline, per-slice
// bar charts, confusion-matrix heatmaps and per-metric trends over a history. The page loads
// nothing: its CSS is embedded in the binary and inlined, its charts are inline SVG, and it
// has no script.
//
// The model is read from the results JSON of the interface contract, the one format every
// input shares (a results file, a history line's "results", a state file's Results), so the
// page shows exactly what the JSON says. Confidence intervals and a gate verdict are not in
// the results yet; when they are, they become fields of Metric and Run read by ParseResults,
// and the table and charts draw them where Metric.Value is drawn now.
package htmlreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evalstream/evalstream/pipeline"
)

// Run is one run's results as the page shows them.
type Run struct {
	Records       int64
	Skipped       int64
	Errors        map[string]int64
	ErrorExamples map[string][]string
	Window        *Window
	Metrics       []Metric
	Slices        []Slice
}

// Window is the time window of a per-window result (RFC 3339 strings as in the JSON).
type Window struct{ Start, End string }

// Metric is one metric's value. Value is nil (with a Reason) when undefined; otherwise a
// float64, a []any of numbers (per class) or a []any of []any (a matrix).
type Metric struct {
	Name      string
	Type      string
	Value     any
	Reason    string
	Signature string
}

// Scalar returns the value as a number when it is one.
func (m Metric) Scalar() (float64, bool) {
	f, ok := m.Value.(float64)
	return f, ok
}

// Slice is every metric's value over the records of one slice.
type Slice struct {
	Key     string
	Records int64
	Metrics []Metric
}

// HistoryPoint is one line of a history JSONL (the jsonl sink's lines).
type HistoryPoint struct {
	Time            time.Time
	ConfigSignature string
	Run             *Run
}

// FromResults converts pipeline results to the page's model through their JSON, so that
// a page from a run and a page from the run's results file are the same.
func FromResults(r *pipeline.Results) (*Run, error) {
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return ParseResults(b)
}

type jsonMetric struct {
	Type      string          `json:"type"`
	Value     json.RawMessage `json:"value"`
	Reason    string          `json:"reason"`
	Signature string          `json:"signature"`
}

type jsonRun struct {
	Records       *int64              `json:"records"`
	Skipped       int64               `json:"skipped"`
	Errors        map[string]int64    `json:"errors"`
	ErrorExamples map[string][]string `json:"error_examples"`
	Window        *struct {
		Start string `json:"start"`
		End   string `json:"end"`
	} `json:"window"`
	Metrics json.RawMessage `json:"metrics"`
	Slices  json.RawMessage `json:"slices"`
}

// ParseResults reads a results JSON document. Metric and slice order is the document's order
// (the results JSON keeps the config order in its objects).
func ParseResults(b []byte) (*Run, error) {
	var j jsonRun
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("not a results JSON: %w", err)
	}
	if j.Records == nil || j.Metrics == nil {
		return nil, fmt.Errorf(`not a results JSON: expected an object with "records" and "metrics"`)
	}
	r := &Run{Records: *j.Records, Skipped: j.Skipped, Errors: j.Errors, ErrorExamples: j.ErrorExamples}
	if j.Window != nil {
		r.Window = &Window{Start: j.Window.Start, End: j.Window.End}
	}
	var err error
	if r.Metrics, err = parseMetrics(j.Metrics); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if len(j.Slices) > 0 {
		err := orderedObject(j.Slices, func(key string, raw json.RawMessage) error {
			var s struct {
				Records int64           `json:"records"`
				Metrics json.RawMessage `json:"metrics"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("slice %q: %w", key, err)
			}
			ms, err := parseMetrics(s.Metrics)
			if err != nil {
				return fmt.Errorf("slice %q: %w", key, err)
			}
			r.Slices = append(r.Slices, Slice{Key: key, Records: s.Records, Metrics: ms})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("slices: %w", err)
		}
	}
	return r, nil
}

func parseMetrics(raw json.RawMessage) ([]Metric, error) {
	var out []Metric
	err := orderedObject(raw, func(name string, v json.RawMessage) error {
		var jm jsonMetric
		if err := json.Unmarshal(v, &jm); err != nil {
			return fmt.Errorf("metric %q: %w", name, err)
		}
		m := Metric{Name: name, Type: jm.Type, Reason: jm.Reason, Signature: jm.Signature}
		if len(jm.Value) > 0 {
			if err := json.Unmarshal(jm.Value, &m.Value); err != nil {
				return fmt.Errorf("metric %q value: %w", name, err)
			}
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// orderedObject calls fn for each member of a JSON object in document order.
func orderedObject(raw json.RawMessage, fn func(string, json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("expected an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%q: %w", key, err)
		}
		if err := fn(key, v); err != nil {
			return err
		}
	}
	return nil
}

// ReadHistory reads a history JSONL file written by the jsonl sink. A line that is not a
// history line is an error naming the file and line: a trend drawn over a silently shortened
// history would mislead.
func ReadHistory(path string) ([]HistoryPoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseHistory(path, f)
}

func parseHistory(name string, r io.Reader) ([]HistoryPoint, error) {
	var out []HistoryPoint
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var h struct {
			Time            string          `json:"time"`
			ConfigSignature string          `json:"config_signature"`
			Results         json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			return nil, fmt.Errorf("%s:%d: not a history line: %w", name, line, err)
		}
		t, err := time.Parse(time.RFC3339Nano, h.Time)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: time: expected an RFC 3339 timestamp: %w", name, line, err)
		}
		if h.Results == nil {
			return nil, fmt.Errorf(`%s:%d: expected a "results" member`, name, line)
		}
		run, err := ParseResults(h.Results)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, HistoryPoint{Time: t, ConfigSignature: h.ConfigSignature, Run: run})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return out, nil
}
