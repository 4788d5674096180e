package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// systemsCorpus writes, into dir, the outputs of four systems on the same 120 segments:
// all.jsonl (every system, records interleaved) and SYSTEM.jsonl per system (in reverse
// order, so that only the id pairs segments). base is right on about 60%; good fixes half
// of base's errors; worse breaks a third of base's right answers; tiny is base with one
// right answer broken.
func systemsCorpus(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewSource(5))
	const n = 120
	systems := []string{"base", "good", "worse", "tiny"}
	per := map[string][]map[string]any{}
	var all []map[string]any
	for i := range n {
		ref := sentence(rng)
		label := int64(rng.Intn(3))
		y := float64(rng.Intn(8)) / 4
		lang := []string{"de", "fr"}[rng.Intn(2)]
		baseOK := rng.Float64() < 0.6
		ok := map[string]bool{
			"base":  baseOK,
			"good":  baseOK || rng.Float64() < 0.5,
			"worse": baseOK && rng.Float64() < 0.67,
			"tiny":  baseOK && i != 7,
		}
		for _, s := range systems {
			rec := map[string]any{"id": fmt.Sprintf("s%03d", i), "system": s, "lang": lang, "references": []string{ref}, "label": label, "y": y}
			if ok[s] {
				rec["prediction"], rec["cls"], rec["score"] = ref, label, y
			} else {
				rec["prediction"], rec["cls"], rec["score"] = sentence(rng), (label+1)%3, y+1
			}
			per[s] = append(per[s], rec)
			all = append(all, rec)
		}
	}
	write := func(name string, recs []map[string]any) {
		var b strings.Builder
		for _, r := range recs {
			line, err := json.Marshal(r)
			require.NoError(t, err)
			b.Write(line)
			b.WriteByte('\n')
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644))
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	write("all.jsonl", all)
	for _, s := range systems {
		recs := per[s]
		for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
			recs[i], recs[j] = recs[j], recs[i]
		}
		write(s+".jsonl", recs)
	}
}

const compareMetrics = `metrics:
  - {type: bleu}
  - {type: accuracy, prediction: cls}
  - {type: mse, prediction: score, label: y}
slice_by: [lang]
`

// writeSystemConfig writes NAME.yaml reading input with the compare metrics and extra.
func writeSystemConfig(t *testing.T, dir, name, input, extra string) string {
	t.Helper()
	cfg := fmt.Sprintf("source: {type: file, path: %s}\n%s%s\nsinks:\n  - {type: json, path: out/%s.json}\n", input, compareMetrics, extra, name)
	p := filepath.Join(dir, name+".yaml")
	require.NoError(t, os.WriteFile(p, []byte(cfg), 0o644))
	return p
}

const ciSection = "ci: {key: id, resamples: 100, seed: 7}\n"

// saveStates runs every system's file with ci and saves SYSTEM.state.
func saveStates(t *testing.T, dir string, systems ...string) {
	t.Helper()
	for _, s := range systems {
		writeSystemConfig(t, dir, s, s+".jsonl", ciSection)
		r := run(t, dir, "run", "-c", s+".yaml", "--save-state", s+".state")
		require.Equal(t, 0, r.code, r.stderr)
	}
}

type compareJSON struct {
	Baseline  string  `json:"baseline"`
	Test      string  `json:"test"`
	Resamples int     `json:"resamples"`
	Seed      uint64  `json:"seed"`
	Alpha     float64 `json:"alpha"`
	Metrics   map[string][]struct {
		System      string                       `json:"system"`
		Value       *float64                     `json:"value"`
		CI          *struct{ Low, High float64 } `json:"ci"`
		Delta       *float64                     `json:"delta"`
		DeltaCI     *struct{ Low, High float64 } `json:"delta_ci"`
		PValue      *float64                     `json:"p_value"`
		Significant *bool                        `json:"significant"`
	} `json:"metrics"`
	Slices map[string]json.RawMessage `json:"slices"`
}

func TestCompareAcrossRunsEqualsWithinOneRun(t *testing.T) {
	dir := t.TempDir()
	systemsCorpus(t, dir)
	saveStates(t, dir, "base", "good", "worse")
	across := run(t, dir, "compare", "--baseline", "base.state", "good.state", "worse.state", "--format", "json")
	require.Equal(t, 0, across.code, across.stderr)
	writeSystemConfig(t, dir, "all", "all.jsonl", ciSection)
	// Only base, good and worse: tiny is filtered by naming the states; within one run every
	// system of the input is compared, so the input for this check holds the same three.
	b, err := os.ReadFile(filepath.Join(dir, "all.jsonl"))
	require.NoError(t, err)
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(line, `"system":"tiny"`) {
			keep = append(keep, line)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.jsonl"), []byte(strings.Join(keep, "\n")+"\n"), 0o644))
	within := run(t, dir, "compare", "-c", "all.yaml", "--system-field", "system", "--baseline", "base", "--format", "json")
	require.Equal(t, 0, within.code, within.stderr)
	require.Equal(t, across.stdout, within.stdout, "compare of saved states and of one input must agree to the bit")

	var c compareJSON
	require.NoError(t, json.Unmarshal([]byte(across.stdout), &c))
	require.Equal(t, "base", c.Baseline)
	require.Equal(t, "bs", c.Test)
	require.Equal(t, 100, c.Resamples)
	require.Equal(t, uint64(7), c.Seed)
	require.Equal(t, 0.05, c.Alpha)
	require.Contains(t, c.Slices, "lang=de")
	require.Contains(t, c.Slices, "lang=fr")
	for _, tc := range []struct {
		metric, system string
		sign           float64 // the sign of delta
		significant    bool
	}{
		{"accuracy", "good", 1, true},
		{"accuracy", "worse", -1, true},
		{"bleu", "good", 1, true},
		{"mse", "good", -1, true}, // lower is better: delta is still candidate − baseline
	} {
		t.Run(tc.metric+"/"+tc.system, func(t *testing.T) {
			rows := c.Metrics[tc.metric]
			require.Len(t, rows, 3)
			require.Equal(t, "base", rows[0].System)
			require.Nil(t, rows[0].PValue, "the baseline row has no test")
			require.NotNil(t, rows[0].CI)
			for _, r := range rows[1:] {
				if r.System != tc.system {
					continue
				}
				require.Equal(t, tc.sign, sign(*r.Delta))
				require.InDelta(t, *r.Value-*rows[0].Value, *r.Delta, 1e-12)
				require.LessOrEqual(t, r.DeltaCI.Low, *r.Delta)
				require.GreaterOrEqual(t, r.DeltaCI.High, *r.Delta)
				require.Equal(t, tc.significant, *r.Significant)
				require.Equal(t, tc.significant, *r.PValue < 0.05)
				return
			}
			t.Fatalf("no row for %s", tc.system)
		})
	}

	table := run(t, dir, "compare", "--baseline", "base.state", "good.state", "worse.state")
	require.Equal(t, 0, table.code, table.stderr)
	require.Regexp(t, `accuracy\s+base\s+0\.\d+ \[0\.\d+, 0\.\d+\]\s+\(baseline\)`, table.stdout)
	require.Regexp(t, `accuracy\s+good\s+0\.\d+ \[0\.\d+, 0\.\d+\]\s+\+0\.\d+ \[\+0\.\d+, \+0\.\d+\]\s+p = 0\.\d{4} \*`, table.stdout)
	require.Contains(t, table.stdout, "[lang=de] accuracy")
	require.Contains(t, table.stdout, "* p < 0.05 (paired bootstrap, 100 resamples, seed 7, two-sided)")
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func TestCompareRandomizationWithinOneRun(t *testing.T) {
	dir := t.TempDir()
	systemsCorpus(t, dir)
	writeSystemConfig(t, dir, "all", "all.jsonl", ciSection)
	r := run(t, dir, "compare", "-c", "all.yaml", "--system-field", "system", "--baseline", "base", "--test", "ar", "--trials", "200", "--format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var c compareJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &c))
	require.Equal(t, "ar", c.Test)
	byName := map[string]float64{}
	for _, row := range c.Metrics["accuracy"][1:] {
		byName[row.System] = *row.PValue
	}
	require.Equal(t, 1.0/201, byName["good"], "no permutation reaches a real difference")
	require.Equal(t, 1.0/201, byName["worse"])
	require.Greater(t, byName["tiny"], 0.05, "one changed segment in 120 is not significant")
}

func TestCompareRefusesUnpairedInputs(t *testing.T) {
	dir := t.TempDir()
	systemsCorpus(t, dir)
	saveStates(t, dir, "base", "good")
	writeSystemConfig(t, dir, "seed8", "good.jsonl", "ci: {key: id, resamples: 100, seed: 8}\n")
	writeSystemConfig(t, dir, "nokey", "good.jsonl", "ci: {resamples: 100, seed: 7}\n")
	writeSystemConfig(t, dir, "b300", "good.jsonl", "ci: {key: id, resamples: 300, seed: 7}\n")
	writeSystemConfig(t, dir, "noci", "good.jsonl", "")
	for _, s := range []string{"seed8", "nokey", "b300", "noci"} {
		r := run(t, dir, "run", "-c", s+".yaml", "--save-state", s+".state")
		require.Equal(t, 0, r.code, r.stderr)
	}
	writeSystemConfig(t, dir, "all_nokey", "all.jsonl", "")
	writeSystemConfig(t, dir, "all", "all.jsonl", ciSection)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"another seed", []string{"--baseline", "base.state", "seed8.state"}, "seed 7 vs 8"},
		{"other keys", []string{"--baseline", "base.state", "nokey.state"}, `keys "id" vs "(position)"`},
		{"other resamples", []string{"--baseline", "base.state", "b300.state"}, "resamples 100 vs 300"},
		{"saved without ci", []string{"--baseline", "base.state", "noci.state"}, "noci.state: saved without ci"},
		{"ar from states", []string{"--test", "ar", "--baseline", "base.state", "good.state"}, "--test ar needs the inputs folded by compare itself"},
		{"one input without ci.key", []string{"-c", "all_nokey.yaml", "--system-field", "system", "--baseline", "base"}, "needs ci.key"},
		{"unknown baseline system", []string{"-c", "all.yaml", "--system-field", "system", "--baseline", "nope"}, `--baseline "nope" is not a value of system in the input (systems: base, good, tiny, worse)`},
		{"no system field", []string{"-c", "all.yaml", "--baseline", "base"}, "needs --system-field"},
		{"no candidate", []string{"--baseline", "base.state"}, "needs candidate STATE files"},
		{"bad test", []string{"--test", "t", "--baseline", "base.state", "good.state"}, "--test must be bs or ar"},
		{"bad alpha", []string{"--alpha", "1.5", "--baseline", "base.state", "good.state"}, "--alpha 1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, dir, append([]string{"compare"}, tc.args...)...)
			require.Equal(t, 2, r.code, r.stderr)
			require.Contains(t, r.stderr, tc.want)
		})
	}
}

// A text source pairs its hypothesis files line by line: compare needs no ci.key, and
// comparing the states of two single-system runs gives the same output to the bit.
func TestCompareTextSystemsPairByLine(t *testing.T) {
	dir := t.TempDir()
	text, err := filepath.Abs("../../testdata/text")
	require.NoError(t, err)
	cfg := func(name string, hyps ...string) {
		var hs []string
		for _, h := range hyps {
			hs = append(hs, filepath.Join(text, h+".de.txt"))
		}
		body := fmt.Sprintf("source: {type: text, hypotheses: [%s], references: [%s]}\nmetrics: [{type: bleu}, {type: chrf}]\nci: {resamples: 100, seed: 3}\nsinks: [{type: stdout}]\n",
			strings.Join(hs, ", "), filepath.Join(text, "newstest2017.ref.de"))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(body), 0o644))
	}
	cfg("both", "LIUM-NMT", "online-B")
	for _, s := range []string{"LIUM-NMT", "online-B"} {
		cfg(s, s)
		r := run(t, dir, "run", "-c", s+".yaml", "--save-state", s+".de.state")
		require.Equal(t, 0, r.code, r.stderr)
	}
	within := run(t, dir, "compare", "-c", "both.yaml", "--baseline", "LIUM-NMT.de", "--format", "json")
	require.Equal(t, 0, within.code, within.stderr)
	across := run(t, dir, "compare", "--baseline", "LIUM-NMT.de.state", "online-B.de.state", "--format", "json")
	require.Equal(t, 0, across.code, across.stderr)
	require.Equal(t, across.stdout, within.stdout)
	var c compareJSON
	require.NoError(t, json.Unmarshal([]byte(within.stdout), &c))
	require.Equal(t, "LIUM-NMT.de", c.Metrics["bleu"][0].System)
	require.Equal(t, "online-B.de", c.Metrics["bleu"][1].System)
	require.NotNil(t, c.Metrics["bleu"][1].PValue)
}

// TestComparePerClass: a per-class metric (f1 per class) is compared class by class —
// deltas, delta intervals and p-values under "classes" in the JSON, one table line per class
// and system — identically from saved states and from one input.
func TestComparePerClass(t *testing.T) {
	dir := t.TempDir()
	systemsCorpus(t, dir)
	const f1 = "metrics: [{type: f1, prediction: cls}]\n" + ciSection + "sinks: [{type: json, path: out.json}]\n"
	for _, s := range []string{"base", "good", "tiny"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, s+"-f1.yaml"), []byte("source: {type: file, path: "+s+".jsonl}\n"+f1), 0o644))
		r := run(t, dir, "run", "-c", s+"-f1.yaml", "--save-state", s+".state")
		require.Equal(t, 0, r.code, r.stderr)
	}
	across := run(t, dir, "compare", "--baseline", "base.state", "good.state", "tiny.state", "--format", "json")
	require.Equal(t, 0, across.code, across.stderr)
	var c struct {
		Metrics map[string][]struct {
			System  string `json:"system"`
			Reason  string `json:"reason"`
			Classes []struct {
				Class       int64                        `json:"class"`
				Value       *float64                     `json:"value"`
				Delta       *float64                     `json:"delta"`
				DeltaCI     *struct{ Low, High float64 } `json:"delta_ci"`
				PValue      *float64                     `json:"p_value"`
				Significant *bool                        `json:"significant"`
			} `json:"classes"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(across.stdout), &c), across.stdout)
	rows := c.Metrics["f1"]
	require.Len(t, rows, 3)
	for _, r := range rows {
		require.Empty(t, r.Reason)
		require.Len(t, r.Classes, 3)
		for k, cl := range r.Classes {
			require.Equal(t, int64(k), cl.Class)
			if r.System == "base" {
				require.Nil(t, cl.PValue)
				continue
			}
			require.InDelta(t, *cl.Value-*rows[0].Classes[k].Value, *cl.Delta, 1e-12)
			require.LessOrEqual(t, cl.DeltaCI.Low, *cl.Delta)
			require.GreaterOrEqual(t, cl.DeltaCI.High, *cl.Delta)
			// good fixes half of base's errors in every class; tiny breaks one answer.
			require.Equal(t, r.System == "good", *cl.Significant, "%s class %d p = %v", r.System, k, *cl.PValue)
		}
	}

	require.NoError(t, os.WriteFile(filepath.Join(dir, "all-f1.yaml"), []byte("source: {type: file, path: all.jsonl}\n"+f1), 0o644))
	b, err := os.ReadFile(filepath.Join(dir, "all.jsonl"))
	require.NoError(t, err)
	var keep []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(line, `"system":"worse"`) {
			keep = append(keep, line)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.jsonl"), []byte(strings.Join(keep, "\n")+"\n"), 0o644))
	within := run(t, dir, "compare", "-c", "all-f1.yaml", "--system-field", "system", "--baseline", "base", "--format", "json")
	require.Equal(t, 0, within.code, within.stderr)
	require.Equal(t, across.stdout, within.stdout, "per-class compare of saved states and of one input must agree to the bit")

	table := run(t, dir, "compare", "--baseline", "base.state", "good.state", "tiny.state")
	require.Equal(t, 0, table.code, table.stderr)
	for k := 0; k < 3; k++ {
		require.Regexp(t, fmt.Sprintf(`f1\[%d\]\s+base\s+0\.\d+ \[0\.\d+, 0\.\d+\]\s+\(baseline\)`, k), table.stdout)
		require.Regexp(t, fmt.Sprintf(`f1\[%d\]\s+good\s+0\.\d+ \[0\.\d+, 0\.\d+\]\s+\+0\.\d+ \[\+0\.\d+, \+0\.\d+\]\s+p = 0\.\d{4} \*`, k), table.stdout)
	}
}

// compare -c feeds a text source segment-major (every system's line i, then line i+1) so
// that the metrics reuse a segment's reference work; the output must be the one the
// system-major feed gives, byte for byte, whatever the workers and batch size.
func TestCompareTextFeedOrder(t *testing.T) {
	dir := t.TempDir()
	text, err := filepath.Abs("../../testdata/text")
	require.NoError(t, err)
	hyps := filepath.Join(text, "LIUM-NMT.de.txt") + ", " + filepath.Join(text, "online-B.de.txt")
	ref := filepath.Join(text, "newstest2017.ref.de")
	for _, tc := range []struct{ name, ci, test string }{
		{"sacrebleu bs", "{method: sacrebleu, resamples: 200, seed: 5}", "bs"},
		{"sacrebleu ar", "{method: sacrebleu, resamples: 200, seed: 5}", "ar"},
		{"poisson bs", "{resamples: 200, seed: 5}", "bs"},
		{"poisson ar", "{resamples: 200, seed: 5}", "ar"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, "c.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(
				"source: {type: text, hypotheses: [%s], references: [%s]}\nmetrics: [{type: bleu}, {type: chrf}, {type: chrf, name: chrf_lc, lowercase: true, word_order: 2}]\nci: %s\n",
				hyps, ref, tc.ci)), 0o644))
			var want string
			for _, segmentMajor := range []bool{false, true} {
				for _, set := range []string{"pipeline.workers=1", "pipeline.workers=2", "pipeline.batch_size=3"} {
					compareSegmentMajor = segmentMajor
					var out, errb bytes.Buffer
					err := cmdCompare(context.Background(), []string{"-c", cfg, "--baseline", "LIUM-NMT.de", "--test", tc.test, "--trials", "300", "--format", "json", "--no-progress", "--set", set}, &out, &errb)
					compareSegmentMajor = true
					require.NoError(t, err, errb.String())
					if want == "" {
						want = out.String()
						require.Contains(t, want, `"p_value"`)
						continue
					}
					require.Equal(t, want, out.String(), "segment-major %v, %s", segmentMajor, set)
				}
			}
		})
	}
}
