package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/cmd/evalstream/internal/startup"
	corpuswriter "github.com/evalstream/evalstream/sinks/corpus"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "evalstream-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "evalstream")
	out, err := exec.Command("go", "build", "-race", "-o", binary, ".").CombinedOutput()
	if err != nil {
		// -race needs cgo; fall back to a plain build.
		if out2, err2 := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err2 != nil {
			fmt.Fprintf(os.Stderr, "build failed: %v\n%s\n%s", err2, out, out2)
			os.Exit(1)
		}
	}
	// Package startup left the process on one CPU (score and run give the CPUs back in
	// their fold); m.Run takes -cpu's default from GOMAXPROCS.
	startup.AllCPUs()
	// It also turned off heap profiling; go test -memprofile sets the rate only when
	// -memprofilerate is given, and would write an empty profile. 512 KB is the runtime's
	// default.
	runtime.MemProfileRate = 512 * 1024
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func run(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

var vocab = strings.Fields("the cat sat on mat a dog ran in park über naïve 3.5 U.S.A. it's e.g. , . ! ? - 1999 ½ Ελλάδα 東京")

func sentence(rng *rand.Rand) string {
	n := rng.Intn(14)
	w := make([]string, n)
	for i := range w {
		w[i] = vocab[rng.Intn(len(vocab))]
	}
	return strings.Join(w, " ")
}

// corpus is a mixed corpus: text fields for BLEU/chrF/ROUGE, class ids, regression values.
func corpus(n int, seed int64) []map[string]any {
	rng := rand.New(rand.NewSource(seed))
	recs := make([]map[string]any, n)
	for i := range recs {
		var refs []any
		for k := 0; k < 1+rng.Intn(3); k++ {
			refs = append(refs, sentence(rng))
		}
		y := float64(rng.Intn(20)) / 4
		recs[i] = map[string]any{
			"id":         fmt.Sprintf("r%04d", i),
			"lang":       []string{"de", "fr", "cs"}[rng.Intn(3)],
			"prediction": sentence(rng),
			"references": refs,
			"cls":        int64(rng.Intn(3)),
			"label":      int64(rng.Intn(3)),
			"score":      y + rng.NormFloat64(),
			"y":          y,
		}
	}
	return recs
}

const metricsYAML = `
slice_by: [lang]
metrics:
  - {type: bleu}
  - {name: bleu_nltk, type: bleu, compat: nltk, smooth: method1}
  - {type: chrf, word_order: 2}
  - {type: rouge_n, n: 2, stem: true}
  - {type: rouge_l}
  - {type: rouge_lsum}
  - {type: distinct}
  - {type: exact_match}
  - {type: token_f1}
  - {type: accuracy, prediction: cls}
  - {type: f1, prediction: cls, compat: sklearn, average: macro}
  - {type: mcc, prediction: cls}
  - {type: confusion_matrix, prediction: cls, num_classes: 3}
  - {type: pearson, prediction: score, label: y}
  - {type: spearman, prediction: score, label: y}
`

func writeConfig(t *testing.T, dir, name, path, extra string) string {
	t.Helper()
	cfg := fmt.Sprintf("source: {type: file, path: %q}\n%s%s\nsinks:\n  - {type: json, path: out/%s.json}\n", path, metricsYAML, extra, name)
	p := filepath.Join(dir, name+".yaml")
	require.NoError(t, os.WriteFile(p, []byte(cfg), 0o644))
	return p
}

// readResults reads a results JSON file without its run description (run, started_at,
// duration_s, ...: they differ from run to run), as report prints results: the part that
// must be identical across formats, workers and splits.
func readResults(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v), string(b))
	require.Contains(t, v, "started_at", "a results file describes its run")
	return withoutRunMeta(t, string(b))
}

// withoutRunMeta removes the run description that the json sink writes before the results'
// own keys, which start with "records".
func withoutRunMeta(t *testing.T, s string) string {
	t.Helper()
	i := strings.Index(s, "\n  \"records\": ")
	require.Positive(t, i, s)
	return "{" + s[i:]
}

func TestRunDeterminismAcrossFormatsWorkersBatchesAndSplits(t *testing.T) {
	dir := t.TempDir()
	recs := corpus(900, 1)
	for _, f := range []string{"c.jsonl", "c.jsonl.gz", "c.arrow", "c.arrows", "c.parquet"} {
		require.NoError(t, corpuswriter.Write(filepath.Join(dir, f), recs))
	}
	// The same records split into three parts, for shuffled file order and merge.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "parts"), 0o755))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "parts", "b.jsonl"), recs[:300]))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "parts", "a.parquet"), recs[300:700]))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "parts", "c.arrow"), recs[700:]))

	cfg := writeConfig(t, dir, "base", "c.jsonl", "")
	r := run(t, dir, "run", "-c", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	want := readResults(t, filepath.Join(dir, "out/base.json"))
	require.Contains(t, want, `"records": 900`)
	require.Contains(t, want, `"lang=cs"`)

	variants := [][]string{}
	for _, f := range []string{"c.jsonl.gz", "c.arrow", "c.arrows", "c.parquet"} {
		variants = append(variants, []string{"--set", "source.path=" + f})
	}
	for _, w := range []string{"1", "2", "7"} {
		for _, b := range []string{"1", "13", "4096"} {
			variants = append(variants, []string{"--set", "pipeline.workers=" + w, "--set", "pipeline.batch_size=" + b})
		}
	}
	for i, v := range variants {
		args := append([]string{"run", "-c", cfg, "--set", fmt.Sprintf("sinks[0].path=out/v%d.json", i)}, v...)
		r := run(t, dir, args...)
		require.Equal(t, 0, r.code, "%v: %s", v, r.stderr)
		require.Equal(t, want, readResults(t, filepath.Join(dir, fmt.Sprintf("out/v%d.json", i))), "variant %v", v)
	}

	// Split into parts: each part saved as a state, merged in a shuffled order, reported.
	var states []string
	for _, part := range []string{"parts/c.arrow", "parts/a.parquet", "parts/b.jsonl"} {
		st := filepath.Join("out", filepath.Base(part)+".state")
		r := run(t, dir, "run", "-c", cfg, "--set", "source.path="+part, "--set", "sinks[0].path=out/part.json", "--save-state", st)
		require.Equal(t, 0, r.code, r.stderr)
		states = append(states, st)
	}
	r = run(t, dir, append([]string{"merge", "-o", "out/all.state"}, states...)...)
	require.Equal(t, 0, r.code, r.stderr)
	r = run(t, dir, "report", "--format", "json", "out/all.state")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout)
	// report also merges several states directly, in any order.
	r = run(t, dir, "report", "--format", "json", states[2], states[0], states[1])
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout)
	// A directory of parts in sorted order gives the same numbers except for the
	// order-dependent MindNLP-only metrics (none here), so the whole results are equal.
	r = run(t, dir, "run", "-c", cfg, "--set", "source.path=parts", "--set", "sinks[0].path=out/dir.json")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, readResults(t, filepath.Join(dir, "out/dir.json")))
}

func TestCommandsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "c.jsonl"), corpus(50, 2)))
	cfg := writeConfig(t, dir, "ok", "c.jsonl", "")

	r := run(t, dir, "version")
	require.Equal(t, 0, r.code)
	require.Regexp(t, `^evalstream \d+\.\d+\.\d+`, r.stdout)

	r = run(t, dir, "list")
	require.Equal(t, 0, r.code)
	for _, typ := range []string{"bleu", "chrf", "rouge_n", "rouge_l", "rouge_lsum", "rouge_l_dureader", "distinct", "exact_match", "token_f1", "accuracy", "precision", "recall", "f1", "confusion_matrix", "mcc", "pearson", "spearman", "perplexity"} {
		require.Regexp(t, regexp.MustCompile(`(?m)^`+typ+`$`), r.stdout)
	}

	r = run(t, dir, "validate", "-c", cfg)
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "ok")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`
source: {type: file}
metrics:
  - {type: bleu, ngram: 0}
  - {type: bleu, smooth: sideways}
  - {type: nosuch}
  - {type: accuracy, tokenize: 13a}
sinks: [{type: json}]
`), 0o644))
	r = run(t, dir, "validate", "-c", bad)
	require.Equal(t, 2, r.code)
	for _, want := range []string{"source.path: required", "metrics[0].ngram: must be >= 1", "metrics[1].smooth", "metrics[2].type: unknown metric type", "metrics[3].tokenize: unknown option", "sinks[0].path: required", `metrics[1].name: "bleu" is already used`} {
		require.Contains(t, r.stderr, want)
	}
	require.Equal(t, 2, run(t, dir, "run", "-c", bad).code)
	require.Equal(t, 2, run(t, dir, "frobnicate").code)
	require.Equal(t, 2, run(t, dir, "run").code)
	require.Equal(t, 2, run(t, dir, "run", "-c", filepath.Join(dir, "missing.yaml")).code)
	// report --from-kafka takes its connection from --brokers or a Kafka config's source.
	for _, args := range [][]string{
		{"report", "--from-kafka", "state"},
		{"report", "--from-kafka", "state", "-c", cfg}, // a file source
		{"report", "-c", cfg, "out/all.state"},
		{"report", "--brokers", "127.0.0.1:1", "out/all.state"},
	} {
		r = run(t, dir, args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	require.Contains(t, run(t, dir, "report", "--from-kafka", "state", "-c", cfg).stderr, "needs a config with a kafka source")

	// A missing input is a runtime failure.
	r = run(t, dir, "run", "-c", cfg, "--set", "source.path=nothing-here.jsonl")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "nothing-here.jsonl")

	// An unwritable sink: exit 1 and no partial file.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ro"), 0o555))
	if os.Geteuid() != 0 { // root ignores permissions
		r = run(t, dir, "run", "-c", cfg, "--set", "sinks[0].path=ro/x.json")
		require.Equal(t, 1, r.code)
		entries, _ := os.ReadDir(filepath.Join(dir, "ro"))
		require.Empty(t, entries)
	}
	r = run(t, dir, "run", "-c", cfg, "--set", "sinks[0].path=c.jsonl/x.json")
	require.Equal(t, 1, r.code, r.stderr)

	// score: ad-hoc, table and json, several inputs.
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "d.arrow"), corpus(30, 3)))
	r = run(t, dir, "score", "--metric", "bleu", "--metric", "bleu:compat=nltk,weights=[0.5,0.5],ngram=2", "--metric", "accuracy", "--prediction", "prediction", "c.jsonl", "d.arrow")
	require.Equal(t, 1, r.code, "--prediction applies to every metric, so accuracy gets text: bad records")
	require.Contains(t, r.stderr, "mixed class types") // a text prediction is a class name beside an integer label
	r = run(t, dir, "score", "--format", "json", "--metric", "bleu", "--metric", "bleu:compat=nltk,weights=[0.5,0.5],ngram=2", "--metric", "accuracy:prediction=cls", "c.jsonl", "d.arrow")
	require.Equal(t, 0, r.code, r.stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	require.EqualValues(t, 80, res["records"])
	require.Contains(t, res["metrics"], "bleu_2")
	r = run(t, dir, "score", "--metric", "chrf", "c.jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	require.Contains(t, r.stdout, "chrf")
	require.Equal(t, 2, run(t, dir, "score", "c.jsonl").code)
	require.Equal(t, 2, run(t, dir, "score", "--metric", "bleu:ngram=x", "c.jsonl").code)

	// merge/report refuse garbage and mismatched states.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk.state"), []byte("not a state"), 0o644))
	r = run(t, dir, "report", "junk.state")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "not an evalstream state file")
	r = run(t, dir, "run", "-c", cfg, "--save-state", "a.state")
	require.Equal(t, 0, r.code, r.stderr)
	r = run(t, dir, "score", "--metric", "bleu", "--save-state", "b.state", "c.jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	r = run(t, dir, "merge", "-o", "ab.state", "a.state", "b.state")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "incompatible")
	st, err := os.ReadFile(filepath.Join(dir, "a.state"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cut.state"), st[:len(st)/2], 0o644))
	r = run(t, dir, "report", "cut.state")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "cut.state")
	flipped := append([]byte(nil), st...)
	flipped[len(flipped)/2] ^= 0x40
	require.NoError(t, os.WriteFile(filepath.Join(dir, "flip.state"), flipped, 0o644))
	r = run(t, dir, "report", "flip.state")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "checksum")
}

func TestBadRecordsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"prediction": "the cat", "references": ["the cat"], "cls": 1, "label": 1}`,
		`{"prediction": "the cat", "references": [], "cls": 1, "label": 1}`,
		`{"prediction": "truncated`,
		`{"prediction": "a dog", "references": ["a dog ran"], "cls": 7, "label": 1}`,
		`{"prediction": "a dog", "references": ["a dog ran"], "cls": 0, "label": 0}`,
		`{"prediction": 5, "references": ["x"], "cls": 0, "label": 0}`,
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mixed.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.jsonl"), []byte(lines[0]+"\n"+lines[4]+"\n"), 0o644))
	cfg := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
source: {type: file, path: mixed.jsonl}
metrics:
  - {type: bleu}
  - {type: accuracy, prediction: cls}
  - {type: confusion_matrix, prediction: cls, num_classes: 2}
sinks: [{type: json, path: out/r.json}, {type: stdout}]
`), 0o644))

	r := run(t, dir, "run", "-c", cfg)
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "mixed.jsonl:2")
	require.Contains(t, r.stderr, "empty references")
	_, err := os.Stat(filepath.Join(dir, "out/r.json"))
	require.True(t, os.IsNotExist(err), "no results file after a failed run")

	r = run(t, dir, "run", "-c", cfg, "--set", "pipeline.on_error=dead_letter", "--set", "pipeline.dead_letter.path=out/bad.jsonl")
	require.Equal(t, 0, r.code, r.stderr)
	var res struct {
		Records int64            `json:"records"`
		Skipped int64            `json:"skipped"`
		Errors  map[string]int64 `json:"errors"`
		Metrics map[string]any   `json:"metrics"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "out/r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &res))
	require.Equal(t, int64(2), res.Records)
	require.Equal(t, int64(4), res.Skipped)
	require.Equal(t, map[string]int64{"empty references": 1, "invalid json": 1, "label out of range": 1, "wrong type": 1}, res.Errors)
	dead, err := os.ReadFile(filepath.Join(dir, "out/bad.jsonl"))
	require.NoError(t, err)
	deadLines := strings.Split(strings.TrimSpace(string(dead)), "\n")
	require.Len(t, deadLines, 4)
	for i, row := range []int{2, 3, 4, 6} {
		var dl map[string]any
		require.NoError(t, json.Unmarshal([]byte(deadLines[i]), &dl))
		require.Equal(t, fmt.Sprintf("mixed.jsonl:%d", row), dl["position"])
		require.Equal(t, lines[row-1], dl["payload"])
	}
	// The good records alone give the same metrics, bit for bit.
	r = run(t, dir, "run", "-c", cfg, "--set", "source.path=good.jsonl", "--set", "sinks[0].path=out/good.json")
	require.Equal(t, 0, r.code, r.stderr)
	var good struct {
		Metrics map[string]any `json:"metrics"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "out/good.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &good))
	require.Equal(t, good.Metrics, res.Metrics)

	// max_bad exceeded under skip: exit 1.
	r = run(t, dir, "run", "-c", cfg, "--set", "pipeline.on_error=skip", "--set", "pipeline.max_bad=3")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "too many bad records")
}

func TestInterruptStopsWithoutResults(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "big.jsonl"), corpus(200000, 4)))
	cfg := writeConfig(t, dir, "big", "big.jsonl", "pipeline: {workers: 1, batch_size: 1}")
	cmd := exec.Command(binary, "run", "-c", cfg)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	time.Sleep(700 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 130, ee.ExitCode(), "128 + SIGINT")
	require.Contains(t, errb.String(), "interrupted by SIGINT")
	_, err = os.Stat(filepath.Join(dir, "out/big.json"))
	require.True(t, os.IsNotExist(err), "no misleading results file")
}

// TestEveryKindOfBadRecord mixes good records with one record of every rejection reason.
func TestEveryKindOfBadRecord(t *testing.T) {
	dir := t.TempDir()
	good := map[string]any{"prediction": "the cat sat on the mat", "references": []any{"the cat sat on a mat"}, "scores": []any{0.2, 0.8}, "label": 1, "x": 0.5, "y": 1.0}
	rec := func(change map[string]any) string {
		r := map[string]any{}
		for k, v := range good {
			r[k] = v
		}
		for k, v := range change {
			if v == nil {
				delete(r, k)
			} else {
				r[k] = v
			}
		}
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return string(b)
	}
	good2 := rec(map[string]any{"prediction": "a dog", "label": 0, "x": 1.5, "y": 0.5})
	bad := []struct{ line, reason string }{
		{`{"prediction": "trunc`, "invalid json"},
		{strings.Replace(rec(map[string]any{"prediction": "bad @"}), "@", "\xff", 1), "invalid utf-8"},
		{rec(map[string]any{"prediction": strings.Repeat("x", 400)}), "record too large"},
		{rec(map[string]any{"references": nil}), "missing field"},
		{rec(map[string]any{"prediction": 5}), "wrong type"},
		{rec(map[string]any{"references": []any{}}), "empty references"},
		{rec(map[string]any{"label": 7}), "label out of range"},
		{rec(map[string]any{"scores": []any{0.1, 0.2, 0.7}}), "ragged scores"},
		{rec(map[string]any{"scores": []any{1.5, -0.5}}), "probability out of range"},
		{strings.Replace(rec(map[string]any{"x": 12345.5}), "12345.5", "1e999", 1), "non-finite value"},
	}
	lines := []string{rec(nil)}
	for _, b := range bad {
		lines = append(lines, b.line)
	}
	lines = append(lines, good2)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mixed.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.jsonl"), []byte(rec(nil)+"\n"+good2+"\n"), 0o644))
	cfg := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
source: {type: file, path: mixed.jsonl, max_record_bytes: 350}
pipeline: {on_error: skip}
metrics:
  - {type: bleu}
  - {type: confusion_matrix, prediction: scores, num_classes: 2}
  - {type: perplexity, prediction: scores}
  - {type: pearson, prediction: x, label: y}
sinks: [{type: json, path: out/r.json}]
`), 0o644))
	type results struct {
		Records int64            `json:"records"`
		Skipped int64            `json:"skipped"`
		Errors  map[string]int64 `json:"errors"`
		Metrics json.RawMessage  `json:"metrics"`
	}
	read := func(p string) results {
		var r results
		b, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &r))
		return r
	}
	for _, w := range []string{"1", "3"} {
		r := run(t, dir, "run", "-c", cfg, "--set", "pipeline.workers="+w, "--set", "pipeline.batch_size=2")
		require.Equal(t, 0, r.code, r.stderr)
		got := read("out/r.json")
		require.Equal(t, int64(2), got.Records)
		require.Equal(t, int64(len(bad)), got.Skipped)
		want := map[string]int64{}
		for _, b := range bad {
			want[b.reason]++
		}
		require.Equal(t, want, got.Errors)
		r = run(t, dir, "run", "-c", cfg, "--set", "source.path=good.jsonl", "--set", "sinks[0].path=out/good.json")
		require.Equal(t, 0, r.code, r.stderr)
		require.JSONEq(t, string(read("out/good.json").Metrics), string(got.Metrics), "the metrics of the good records alone, bit for bit")
	}

	r := run(t, dir, "run", "-c", cfg, "--set", "pipeline.on_error=fail", "--set", "pipeline.workers=1")
	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "bad record at mixed.jsonl:2: invalid json")

	r = run(t, dir, "run", "-c", cfg, "--set", "pipeline.on_error=dead_letter", "--set", "pipeline.dead_letter.path=out/dead.jsonl", "--set", "pipeline.workers=2", "--set", "pipeline.batch_size=1")
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "out/dead.jsonl"))
	require.NoError(t, err)
	dead := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, dead, len(bad), "every bad record exactly once")
	for i, line := range dead {
		var d map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &d))
		require.Equal(t, bad[i].reason, d["reason"], line)
		require.Equal(t, fmt.Sprintf("mixed.jsonl:%d", i+2), d["position"])
	}
}
