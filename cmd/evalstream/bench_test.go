package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	corpuswriter "github.com/evalstream/evalstream/sinks/corpus"
)

// The columnar path (classification metrics over Arrow/Parquet integer columns) must give
// byte-identical results to the record path (JSON Lines, or a plan it cannot take), whatever
// the workers, batch sizes and files; bad records are found and counted the same way.
var inputName = regexp.MustCompile(`c\.(jsonl|arrows?|parquet):`)

func TestColumnarClassificationDeterminism(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(5))
	recs := make([]map[string]any, 5000)
	for i := range recs {
		label := int64(rng.Intn(4))
		pred := label
		if rng.Intn(3) == 0 {
			pred = int64(rng.Intn(4))
		}
		recs[i] = map[string]any{"prediction": pred, "label": label, "lang": []string{"de", "fr"}[i%2]}
	}
	bad := append([]map[string]any(nil), recs...)
	bad[1234] = map[string]any{"prediction": int64(9), "label": int64(1), "lang": "de"} // out of range for num_classes 4
	for _, f := range []string{"c.jsonl", "c.arrow", "c.arrows", "c.parquet"} {
		require.NoError(t, corpuswriter.Write(filepath.Join(dir, f), recs))
		require.NoError(t, corpuswriter.Write(filepath.Join(dir, "bad-"+f), bad))
	}
	metrics := []string{"--metric", "accuracy", "--metric", "f1:compat=sklearn,average=macro", "--metric", "mcc",
		"--metric", "confusion_matrix:num_classes=4", "--metric", "precision:num_classes=4"}
	score := func(extra ...string) string {
		args := append(append([]string{"score", "--format", "json", "--on-error", "skip"}, metrics...), extra...)
		r := run(t, dir, args...)
		require.Equal(t, 0, r.code, "%v: %s", extra, r.stderr)
		// error_examples name the file: the same rows whatever its format. The run's
		// description (times, input fingerprints) differs by design.
		return inputName.ReplaceAllString(withoutRunMeta(t, r.stdout), "INPUT:")
	}
	for _, prefix := range []string{"", "bad-"} {
		want := score(prefix + "c.jsonl")
		if prefix == "bad-" {
			require.Contains(t, want, `"skipped": 1`)
			require.Contains(t, want, `"label out of range": 1`)
		}
		variants := [][]string{{"c.arrows"}, {"--workers", "7", "--batch-size", "13", "c.parquet"}}
		for _, w := range []string{"1", "2", "7"} {
			for _, b := range []string{"1", "13", "4096"} {
				variants = append(variants, []string{"--workers", w, "--batch-size", b, "c.arrow"})
			}
		}
		for _, v := range variants {
			v[len(v)-1] = prefix + v[len(v)-1]
			require.Equal(t, want, score(v...), "%v", v)
		}
		// With a slice the plan cannot take columns: the record path, same numbers per slice.
		sliced := score("--slice-by", "lang", prefix+"c.jsonl")
		require.Equal(t, sliced, score("--slice-by", "lang", "--workers", "2", "--batch-size", "13", prefix+"c.arrow"))
	}
}

func TestBenchCommand(t *testing.T) {
	dir := t.TempDir()
	for mix, file := range map[string]string{"bleu": "t.jsonl", "rouge": "s.jsonl", "classification": "c.arrow", "regression": "r.parquet"} {
		r := run(t, dir, "bench", "--mix", mix, "--records", "300", "--write-corpus", file)
		require.Equal(t, 0, r.code, r.stderr)
		require.Contains(t, r.stdout, fmt.Sprintf("wrote 300 %s records", mix))
		st, err := os.Stat(filepath.Join(dir, file))
		require.NoError(t, err)
		require.NotZero(t, st.Size())
	}
	// A summary has several sentences, one per line, for rougeLsum.
	b, err := os.ReadFile(filepath.Join(dir, "s.jsonl"))
	require.NoError(t, err)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &rec))
	require.GreaterOrEqual(t, strings.Count(rec["prediction"].(string), "\n"), 2)

	for _, mix := range []string{"bleu", "chrf", "text", "rouge", "classification", "regression"} {
		r := run(t, dir, "bench", "--mix", mix, "--records", "500", "--workers", "1,2", "--json")
		require.Equal(t, 0, r.code, "%s: %s", mix, r.stderr)
		var rep struct {
			Records int64 `json:"records"`
			Runs    []struct {
				Workers    int     `json:"workers"`
				RecordsSec float64 `json:"records_per_s"`
			} `json:"runs"`
			Scaling float64        `json:"scaling"`
			Same    bool           `json:"identical_results"`
			Values  map[string]any `json:"values"`
			PeakRSS int64          `json:"peak_rss_bytes"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		require.Equal(t, int64(500), rep.Records, mix)
		require.Len(t, rep.Runs, 2, mix)
		require.Equal(t, 1, rep.Runs[0].Workers)
		require.Equal(t, 2, rep.Runs[1].Workers)
		require.True(t, rep.Same, "%s: 1 and 2 workers must give identical results", mix)
		require.NotZero(t, rep.Scaling, mix)
		require.NotEmpty(t, rep.Values, mix)
	}
	// The text report, a profile and a file input.
	prof := filepath.Join(dir, "cpu.prof")
	r := run(t, dir, "bench", "--input", "t.jsonl", "--metric", "bleu", "--metric", "chrf", "--cpuprofile", prof, "--memprofile", prof+".mem")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"read+split (1 reader)", "decode (1 goroutine)", "score, ", "peak RSS", "bleu#1", "chrf#2"} {
		require.Contains(t, r.stdout, want)
	}
	for _, p := range []string{prof, prof + ".mem"} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.NotZero(t, st.Size())
	}
	// Usage errors.
	for _, args := range [][]string{{"bench", "--mix", "nope"}, {"bench", "--workers", "x"}, {"bench", "--records", "-1"}} {
		r := run(t, dir, args...)
		require.Equal(t, 2, r.code, "%v", args)
	}
}

// bench --compare without a Python interpreter: every Python peer is listed as not installed
// (not an error), evalstream runs every task on the generated files, and the C n-gram
// counter, when a compiler is there, gives evalstream's BLEU.
func TestBenchCompareCommand(t *testing.T) {
	dir := t.TempDir()
	r := run(t, dir, "bench", "--compare", "--python", "/nonexistent/python3", "--records", "40", "--classification-records", "300",
		"--repeat", "2", "--format", "json", "--no-progress")
	require.Equal(t, 0, r.code, r.stderr)
	var rep struct {
		Machine struct {
			Cores int `json:"cores"`
		} `json:"machine"`
		Repeat int `json:"repeat"`
		Tasks  []struct {
			Task       string `json:"task"`
			Records    int64  `json:"records"`
			Evalstream struct {
				CPU []float64 `json:"cpu_seconds"`
			} `json:"evalstream"`
			Values map[string]any `json:"values"`
			Peers  []struct {
				Name    string `json:"name"`
				Missing string `json:"missing"`
				Agree   bool   `json:"scores_agree"`
				Scores  string `json:"scores"`
			} `json:"peers"`
		} `json:"tasks"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	require.Equal(t, 2, rep.Repeat)
	require.NotZero(t, rep.Machine.Cores)
	require.Len(t, rep.Tasks, 8)
	_, ccErr := exec.LookPath("cc")
	for _, task := range rep.Tasks {
		require.Len(t, task.Evalstream.CPU, 2, task.Task)
		require.NotEmpty(t, task.Values, task.Task)
		if task.Task == "accuracy + F1 + confusion, Parquet" {
			require.Equal(t, int64(300), task.Records)
			require.Len(t, task.Values["confusion_matrix"], 5)
		} else {
			require.Equal(t, int64(40), task.Records, task.Task)
		}
		for _, p := range task.Peers {
			if p.Name == "minimal C n-gram counter" {
				if ccErr == nil {
					require.Empty(t, p.Missing)
					require.True(t, p.Agree, p.Scores)
				} else {
					require.Contains(t, p.Missing, "not available")
				}
				continue
			}
			require.Equal(t, "not installed (no Python interpreter /nonexistent/python3)", p.Missing, p.Name)
		}
	}

	r = run(t, dir, "bench", "--compare", "--python", "/nonexistent/python3", "--cc", "/nonexistent/cc", "--tasks", "bleu", "--records", "20", "--repeat", "1", "--format", "markdown")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "| BLEU-13a | summaries.jsonl (20 records) | minimal C n-gram counter (cc; pre-tokenized text: no JSON, no 13a) | not available: no C compiler (/nonexistent/cc) |")
	require.NotContains(t, r.stdout, "| chrF |")

	for _, args := range [][]string{
		{"bench", "--compare", "--tasks", "bleu,nope"},
		{"bench", "--compare", "--format", "xml"},
		{"bench", "--compare", "--repeat", "0"},
		{"bench", "--compare", "extra"},
	} {
		r := run(t, dir, args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
}

func TestCompareProgressLine(t *testing.T) {
	for _, c := range []struct {
		el          time.Duration
		done, total int
		what, want  string
	}{
		{0, 0, 0, "", "compare: 0 of 0 runs"},
		{time.Second, 0, 40, "BLEU-13a: evalstream (run 1 of 5)", "compare: 0 of 40 runs, 0%; BLEU-13a: evalstream (run 1 of 5)"},
		{30 * time.Second, 10, 40, "chrF: sacrebleu (run 2 of 5)", "compare: 10 of 40 runs, 25%, ETA 1m30s; chrF: sacrebleu (run 2 of 5)"},
		{time.Minute, 40, 40, "done", "compare: 40 of 40 runs, 100%; done"},
	} {
		require.Equal(t, c.want, compareProgressLine(c.el, c.done, c.total, c.what))
		// The progress display shows the line as it is, in place of the counters.
		require.Equal(t, c.want, progressLine(c.el, progressCounts{records: 7, lag: -1, line: c.want}))
	}
}
