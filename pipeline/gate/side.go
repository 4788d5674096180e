// Package gate applies the rules of a `gate:` config section (statistics.md §3) to a run's
// results: absolute bounds, drops against a baseline (a saved state, a results JSON, or a
// history JSONL's last line) in each metric's worse direction, and drops that count only
// when the paired bootstrap between the baseline's and the run's states says p < alpha.
package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/pipeline"
)

// Side is one run's values as the gate reads them: per slice key ("" = overall) and metric
// name the value, and, when the run is a state, the metric states (for paired tests). It
// is read-only once built.
type Side struct {
	// Types maps metric names to their types.
	Types map[string]string
	// Values maps slice key ("" = overall) to metric name to value (nil when undefined).
	Values map[string]map[string]any
	// States is like Values for the metric states; nil when the side has none (a results
	// JSON or history line).
	States map[string]map[string]core.State
	// Replicates says whether the states carry bootstrap replicates (saved with `ci`),
	// and CI is then their resampling set-up.
	Replicates bool
	CI         *stats.Config
}

// Slices returns the side's slice keys (without the overall ""), sorted.
func (s *Side) Slices() []string {
	var out []string
	for k := range s.Values {
		if k != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// FromAccumulator reads the values (as Results computes them) and the states of acc. The
// states are shared with acc, not copied.
func FromAccumulator(acc *pipeline.Accumulator) *Side { return FromRun(acc, acc.Results()) }

// FromRun is FromAccumulator with acc's results already computed (res = acc.Results()).
func FromRun(acc *pipeline.Accumulator, res *pipeline.Results) *Side {
	s := FromResults(res)
	s.States = map[string]map[string]core.State{"": {}}
	for i, m := range acc.Plan().Metrics {
		s.States[""][m.Name] = acc.States[i]
	}
	for k, sl := range acc.Slices {
		s.States[k] = map[string]core.State{}
		for i, m := range acc.Plan().Metrics {
			s.States[k][m.Name] = sl.States[i]
		}
	}
	s.CI = acc.Plan().CI()
	s.Replicates = s.CI != nil
	return s
}

// FromResults reads the values of computed results (no states).
func FromResults(res *pipeline.Results) *Side {
	s := &Side{Types: map[string]string{}, Values: map[string]map[string]any{"": {}}}
	for _, m := range res.Metrics {
		s.Types[m.Name] = m.Type
		s.Values[""][m.Name] = m.Value
	}
	for _, sl := range res.Slices {
		s.Values[sl.Key] = map[string]any{}
		for _, m := range sl.Metrics {
			s.Values[sl.Key][m.Name] = m.Value
		}
	}
	return s
}

// resultsJSON is the part of a results JSON the gate reads.
type resultsJSON struct {
	Metrics map[string]struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	} `json:"metrics"`
	Slices map[string]struct {
		Metrics map[string]struct {
			Value any `json:"value"`
		} `json:"metrics"`
	} `json:"slices"`
}

// ErrBaseline is wrapped by errors about a file that is not a readable state, results JSON
// or history.
var ErrBaseline = errors.New("not a state file, results JSON or history JSONL")

// ReadFile reads a saved state, a results JSON, or a history JSONL (its last line's
// results), telling them apart by content: a state starts with its magic, a results JSON is
// one object with "metrics", a history holds lines with "results".
func ReadFile(path string) (*Side, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' {
		acc, err := pipeline.DecodeState(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return FromAccumulator(acc), nil
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(t, &probe) == nil {
		if _, ok := probe["metrics"]; ok {
			return parseResults(path, t)
		}
	}
	lines := bytes.Split(t, []byte("\n"))
	last := bytes.TrimSpace(lines[len(lines)-1])
	var line struct {
		Results json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal(last, &line); err != nil || len(line.Results) == 0 {
		return nil, fmt.Errorf("%s: %w (its last line has no \"results\")", path, ErrBaseline)
	}
	return parseResults(path+" (last line)", line.Results)
}

func parseResults(name string, b []byte) (*Side, error) {
	var r resultsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrBaseline, err)
	}
	if r.Metrics == nil {
		return nil, fmt.Errorf("%s: %w (no \"metrics\")", name, ErrBaseline)
	}
	s := &Side{Types: map[string]string{}, Values: map[string]map[string]any{"": {}}}
	for n, m := range r.Metrics {
		s.Types[n] = m.Type
		s.Values[""][n] = number(m.Value)
	}
	for k, sl := range r.Slices {
		s.Values[k] = map[string]any{}
		for n, m := range sl.Metrics {
			s.Values[k][n] = number(m.Value)
		}
	}
	return s, nil
}

// number turns a decoded JSON scalar into float64; other values (arrays, null) are kept.
func number(v any) any {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil
		}
		return f
	}
	return v
}
