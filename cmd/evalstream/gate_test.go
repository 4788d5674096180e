package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Values are binary fractions so that drops are exact: accuracy falls 0.8125 → 0.75
// (drop 0.0625, relative 0.0769), mse rises 1.75 → 2 (drop 0.25 in its worse direction).
const (
	gateCurrent = `{"records": 10, "skipped": 0, "errors": {}, "metrics": {
  "acc": {"type": "accuracy", "value": 0.75},
  "err": {"type": "mse", "value": 2},
  "cm":  {"type": "confusion_matrix", "value": [[1, 0], [0, 1]]}},
 "slices": {"lang=de": {"records": 5, "metrics": {"acc": {"type": "accuracy", "value": 0.625}, "err": {"type": "mse", "value": 2.5}}},
            "lang=fr": {"records": 5, "metrics": {"acc": {"type": "accuracy", "value": 0.875}, "err": {"type": "mse", "value": 1.5}}}}}`
	gateBaseline = `{"records": 10, "skipped": 0, "errors": {}, "metrics": {
  "acc": {"type": "accuracy", "value": 0.8125},
  "err": {"type": "mse", "value": 1.75}},
 "slices": {"lang=de": {"records": 5, "metrics": {"acc": {"type": "accuracy", "value": 0.75}, "err": {"type": "mse", "value": 2}}}}}`
	gateZero = `{"metrics": {"acc": {"type": "accuracy", "value": 0}, "err": {"type": "mse", "value": 0}}}`
)

func TestGateRules(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"cur.json": gateCurrent, "base.json": gateBaseline, "zero.json": gateZero} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	// A history whose last line is the baseline (the first line would pass every rule).
	hist := `{"time": "2026-11-01T00:00:00Z", "config_signature": "x", "results": {"metrics": {"acc": {"type": "accuracy", "value": 0.5}}}}` + "\n" +
		`{"time": "2026-11-02T00:00:00Z", "config_signature": "x", "results": ` + compactJSON(t, gateBaseline) + "}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(hist), 0o644))
	for _, tc := range []struct {
		name     string
		baseline string
		rules    string
		code     int
		want     []string
	}{
		{"min passes", "", "{metric: acc, min: 0.5}", 0, []string{"gate PASS acc: 0.75 ≥ min 0.5", "gate PASSED"}},
		{"min fails", "", "{metric: acc, min: 0.8}", 3, []string{"gate FAIL acc: 0.75 < min 0.8", "gate FAILED"}},
		{"max passes", "", "{metric: err, max: 3}", 0, []string{"gate PASS err: 2 ≤ max 3"}},
		{"max fails", "", "{metric: err, max: 1.5}", 3, []string{"gate FAIL err: 2 > max 1.5"}},
		{"max_drop passes", "base.json", "{metric: acc, max_drop: 0.1}", 0, []string{"gate PASS acc: dropped 0.0625 ≤ max_drop 0.1"}},
		{"max_drop fails", "base.json", "{metric: acc, max_drop: 0.05}", 3, []string{"gate FAIL acc: dropped 0.0625 > max_drop 0.05"}},
		{"max_drop lower is better passes", "base.json", "{metric: err, max_drop: 0.5}", 0, []string{"gate PASS err: dropped 0.25 ≤ max_drop 0.5"}},
		{"max_drop lower is better fails", "base.json", "{metric: err, max_drop: 0.125}", 3, []string{"gate FAIL err: dropped 0.25 > max_drop 0.125"}},
		{"max_drop_relative passes", "base.json", "{metric: acc, max_drop_relative: 0.1}", 0, []string{"gate PASS acc: dropped 0.07692 ≤ max_drop_relative 0.1"}},
		{"max_drop_relative fails", "base.json", "{metric: acc, max_drop_relative: 0.05}", 3, []string{"gate FAIL acc: dropped 0.07692 > max_drop_relative 0.05"}},
		{"history baseline: its last line", "history.jsonl", "{metric: acc, max_drop: 0.05}", 3, []string{"gate FAIL acc: dropped 0.0625 > max_drop 0.05"}},
		{"one slice", "base.json", "{metric: acc, slice: lang=de, max_drop: 0.2, min: 0.6}", 0, []string{"gate PASS acc [lang=de]: 0.625 ≥ min 0.6; dropped 0.125 ≤ max_drop 0.2"}},
		{"every slice", "base.json", "{metric: acc, slices: all, min: 0.7, max_drop: 0.2}", 3, []string{
			"gate FAIL acc [lang=de]: 0.625 < min 0.7",
			"gate PASS acc [lang=fr]: 0.875 ≥ min 0.7; no baseline value in this slice"}},
		{"several rules, one fails", "base.json", "{metric: acc, min: 0.5}\n    - {metric: err, max_drop: 0.125}", 3, []string{"gate PASS acc", "gate FAIL err"}},
		{"improvement", "cur.json", "{metric: acc, max_drop: 0}", 0, []string{"gate PASS acc: no drop (delta +0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := "gate:\n"
			if tc.baseline != "" {
				cfg += "  baseline: " + tc.baseline + "\n"
			}
			cfg += "  rules:\n    - " + tc.rules + "\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "gate.yaml"), []byte(cfg), 0o644))
			r := run(t, dir, "gate", "-c", "gate.yaml", "cur.json")
			require.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			for _, w := range tc.want {
				require.Contains(t, r.stdout, w)
			}
			if tc.code == 3 {
				require.Contains(t, r.stderr, "gate failed")
			}
		})
	}
}

// compactJSON returns s on one line.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestGateBadConfigs(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"cur.json": gateCurrent, "base.json": gateBaseline, "zero.json": gateZero} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	for _, tc := range []struct {
		name string
		gate string
		want string
	}{
		{"unknown metric", "rules: [{metric: blue, min: 0.2}]", `gate.rules[0] (blue).metric: unknown metric "blue"`},
		{"relative drop on a zero baseline", "baseline: zero.json\n  rules: [{metric: acc, max_drop_relative: 0.1}]", "gate.rules[0] (acc).max_drop_relative: the baseline's acc is 0"},
		{"significant_only with a results JSON", "baseline: base.json\n  rules: [{metric: acc, max_drop: 0.1, significant_only: true}]", "gate.rules[0] (acc).significant_only: the baseline base.json has no bootstrap replicates"},
		{"direction none", "rules: [{metric: cm, min: 0}]", `gate.rules[0] (cm): metric cm (type confusion_matrix) has no better direction`},
		{"no bound", "rules: [{metric: acc}]", "gate.rules[0] (acc): has no bound"},
		{"drop without baseline", "rules: [{metric: acc, max_drop: 0.1}]", "gate.rules[0] (acc): max_drop/max_drop_relative need gate.baseline"},
		{"significant_only without a drop", "baseline: base.json\n  rules: [{metric: acc, min: 0.1, significant_only: true}]", "gate.rules[0] (acc).significant_only: applies to max_drop/max_drop_relative"},
		{"negative drop", "baseline: base.json\n  rules: [{metric: acc, max_drop: -1}]", "gate.rules[0] (acc).max_drop: -1 is negative"},
		{"slices other than all", "rules: [{metric: acc, slices: some, min: 0}]", `gate.rules[0] (acc).slices: must be all, got "some"`},
		{"baseline without the slice", "baseline: base.json\n  rules: [{metric: acc, slice: lang=fr, max_drop: 0.1}]", "gate.rules[0] (acc): the baseline base.json has no value of acc in slice lang=fr"},
		{"missing baseline", "baseline: nope.json\n  rules: [{metric: acc, max_drop: 0.1}]", "gate.baseline: open nope.json"},
		{"unknown key", "rules: [{metric: acc, mni: 0.1}]", `unknown key "mni" in a gate rule`},
		{"alpha", "alpha: 2\n  rules: [{metric: acc, min: 0}]", "gate.alpha: 2 is not strictly between 0 and 1"},
		{"no rules", "rules: []", "gate.rules: at least one rule is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "gate.yaml"), []byte("gate:\n  "+tc.gate+"\n"), 0o644))
			r := run(t, dir, "gate", "-c", "gate.yaml", "cur.json")
			require.Equal(t, 2, r.code, r.stdout+r.stderr)
			require.Contains(t, r.stderr, tc.want)
		})
		if tc.name == "significant_only with a results JSON" {
			// validate reads the gate's baseline as run would, before any input is read.
			t.Run(tc.name+" (validate)", func(t *testing.T) {
				cfg := "source: {type: file, path: cur.json}\nmetrics: [{name: acc, type: accuracy}]\nsinks: [{type: stdout}]\ngate:\n  " + tc.gate + "\n"
				require.NoError(t, os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(cfg), 0o644))
				r := run(t, dir, "validate", "-c", "p.yaml")
				require.Equal(t, 2, r.code, r.stdout+r.stderr)
				require.Contains(t, r.stderr, tc.want)
			})
		}
	}
}

func TestGateInRun(t *testing.T) {
	dir := t.TempDir()
	systemsCorpus(t, dir)
	saveStates(t, dir, "base")
	writeSystemConfig(t, dir, "noci", "base.jsonl", "")
	r := run(t, dir, "run", "-c", "noci.yaml", "--save-state", "noci.state")
	require.Equal(t, 0, r.code, r.stderr)
	for _, tc := range []struct {
		name, input, ci, gate string
		sets                  []string
		code                  int
		want                  []string
	}{
		{"a one-segment drop fails a plain max_drop", "tiny", ciSection, "baseline: base.state\n  rules: [{metric: accuracy, max_drop: 0}]", nil, 3,
			[]string{"gate FAIL accuracy: dropped 0.008333 > max_drop 0 (p = "}},
		{"but is not significant", "tiny", ciSection, "baseline: base.state\n  rules: [{metric: accuracy, max_drop: 0, significant_only: true}]", nil, 0,
			[]string{"gate PASS accuracy: dropped 0.008333 > max_drop 0, not significant (p = "}},
		{"a real drop is significant", "worse", ciSection, "baseline: base.state\n  rules: [{metric: accuracy, max_drop: 0, significant_only: true}]", nil, 3,
			[]string{"gate FAIL accuracy: dropped 0."}},
		{"an improvement passes in both directions", "good", ciSection, "baseline: base.state\n  rules: [{metric: accuracy, max_drop: 0, significant_only: true}, {metric: mse, max_drop: 0}]", nil, 0,
			[]string{"gate PASS accuracy: no drop", "gate PASS mse: no drop", "gate PASSED"}},
		{"absolute rules need no baseline", "good", "", "rules: [{metric: bleu, min: 0.2, slices: all}]", nil, 0,
			[]string{"gate PASS bleu [lang=de]: ", "gate PASS bleu [lang=fr]: "}},
		{"--set reaches the gate", "good", ciSection, "rules: [{metric: bleu, min: 0.2}]", []string{"--set", "gate.alpha=2"}, 2,
			[]string{"gate.alpha: 2 is not strictly between 0 and 1"}},
		{"--set a rule's bound", "good", ciSection, "rules: [{metric: bleu, min: 0.2}]", []string{"--set", "gate.rules[0].min=0.99"}, 3,
			[]string{"< min 0.99"}},
		{"significant_only in a run without ci", "tiny", "", "baseline: base.state\n  rules: [{metric: accuracy, max_drop: 0, significant_only: true}]", nil, 2,
			[]string{"gate.rules[0] (accuracy).significant_only: the run has no bootstrap replicates"}},
		{"significant_only against a state without ci", "tiny", ciSection, "baseline: noci.state\n  rules: [{metric: accuracy, max_drop: 0, significant_only: true}]", nil, 2,
			[]string{"gate.rules[0] (accuracy).significant_only: the baseline noci.state has no bootstrap replicates"}},
		{"significant_only against another seed", "tiny", "ci: {key: id, resamples: 100, seed: 8}\n", "baseline: base.state\n  rules: [{metric: accuracy, max_drop: 0, significant_only: true}]", nil, 2,
			[]string{"the baseline and the run do not pair", "seed 7 vs 8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "out")))
			writeSystemConfig(t, dir, "gated", tc.input+".jsonl", tc.ci+"gate:\n  "+tc.gate+"\n")
			args := append([]string{"run", "-c", "gated.yaml", "--save-state", "gated.state"}, tc.sets...)
			r := run(t, dir, args...)
			require.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			for _, w := range tc.want {
				require.Contains(t, r.stdout+r.stderr, w)
			}
			if tc.code == 2 {
				return
			}
			// The results (with their gate object) are written whatever the verdict.
			var res struct {
				Gate struct {
					Passed   bool    `json:"passed"`
					Baseline *string `json:"baseline"`
					Rules    []struct {
						Metric   string                       `json:"metric"`
						Slice    *string                      `json:"slice"`
						Value    *float64                     `json:"value"`
						Baseline *float64                     `json:"baseline"`
						Delta    *float64                     `json:"delta"`
						DeltaCI  *struct{ Low, High float64 } `json:"delta_ci"`
						PValue   *float64                     `json:"p_value"`
						Passed   bool                         `json:"passed"`
						Reason   string                       `json:"reason"`
					} `json:"rules"`
				} `json:"gate"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "out", "gated.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &res))
			require.Equal(t, tc.code == 0, res.Gate.Passed)
			require.NotEmpty(t, res.Gate.Rules)
			g := res.Gate.Rules[0]
			if g.Baseline != nil {
				require.Equal(t, "base.state", *res.Gate.Baseline)
				require.InDelta(t, *g.Value-*g.Baseline, *g.Delta, 1e-12)
				if tc.ci != "" {
					require.NotNil(t, g.PValue, "both sides have replicates: the paired test is reported")
					require.NotNil(t, g.DeltaCI)
				}
			}
			// `evalstream gate` on the saved state gives the same verdict.
			require.NoError(t, os.WriteFile(filepath.Join(dir, "g.yaml"), []byte("gate:\n  "+tc.gate+"\n"), 0o644))
			args = append([]string{"gate", "-c", "g.yaml", "gated.state"}, tc.sets...)
			g2 := run(t, dir, args...)
			require.Equal(t, tc.code, g2.code, g2.stdout+g2.stderr)
			for _, w := range tc.want {
				require.Contains(t, g2.stdout, w)
			}
		})
	}
}
