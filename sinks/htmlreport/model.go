// Package htmlreport renders evaluation results as one self-contained HTML page: a header with
// the run's counts and rejections, the metrics table with deltas against a baseline, per-slice
// bar charts, confusion-matrix heatmaps and per-metric trends over a history. The page loads
// nothing: its CSS is embedded in the binary and inlined, its charts are inline SVG, and it
// has no script.
//
// The model is read from the results JSON of the interface contract, the one format every
// input shares (a results file, a history line's "results", a state file's Results), so the
// page shows exactly what the JSON says: values, confidence intervals, the run's description
// and the gate verdict.
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
	// Meta is the run's description the results carry (run, started_at, duration_s,
	// version, git_commit, input), in document order.
	Meta []MetaItem
	Gate *Gate
}

// MetaItem is one member of the run's description, rendered as text.
type MetaItem struct{ Key, Value string }

// Gate is the gate verdict of a run (statistics.md §3).
type Gate struct {
	Passed   bool       `json:"passed"`
	Baseline string     `json:"baseline"`
	Rules    []GateRule `json:"rules"`
}

// GateRule is one rule's verdict. Pointers are nil where the JSON has null or nothing.
type GateRule struct {
	Metric   string   `json:"metric"`
	Slice    *string  `json:"slice"`
	Value    *float64 `json:"value"`
	Baseline *float64 `json:"baseline"`
	Delta    *float64 `json:"delta"`
	PValue   *float64 `json:"p_value"`
	Min      *float64 `json:"min"`
	Max      *float64 `json:"max"`
	Passed   bool     `json:"passed"`
	Reason   string   `json:"reason"`
}

// CI is a metric's confidence interval: Low and High are float64 for a scalar value, []any
// of numbers (or nulls) for per-class values.
type CI struct {
	Low    any     `json:"low"`
	High   any     `json:"high"`
	Level  float64 `json:"level"`
	Method string  `json:"method"`
}

// Bounds returns a scalar interval.
func (c *CI) Bounds() (lo, hi float64, ok bool) {
	if c == nil {
		return 0, 0, false
	}
	lo, ok1 := c.Low.(float64)
	hi, ok2 := c.High.(float64)
	return lo, hi, ok1 && ok2
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
	CI        *CI
	// Details are the metric's details (bins of a calibration error, for instance).
	Details map[string]any
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
	CI        *CI             `json:"ci"`
	Details   map[string]any  `json:"details"`
}

// metaKeys are the members of the run's description the header shows, in this order.
var metaKeys = []string{"run", "started_at", "duration_s", "version", "git_commit", "input"}

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
	Gate    *Gate           `json:"gate"`
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
	r := &Run{Records: *j.Records, Skipped: j.Skipped, Errors: j.Errors, ErrorExamples: j.ErrorExamples, Gate: j.Gate}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err == nil {
		for _, k := range metaKeys {
			if raw, ok := all[k]; ok && string(raw) != "null" {
				r.Meta = append(r.Meta, MetaItem{Key: k, Value: metaText(raw)})
			}
		}
	}
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
		m := Metric{Name: name, Type: jm.Type, Reason: jm.Reason, Signature: jm.Signature, CI: jm.CI, Details: jm.Details}
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

// metaText renders a member of the run's description: strings as they are, numbers
// exactly, anything else (input fingerprints) as compact JSON.
func metaText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
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
