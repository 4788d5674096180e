package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/sinks"
)

// runStdin is run with stdin fed from in.
func runStdin(t *testing.T, dir, in string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(in)
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

type resultsJSON struct {
	Records       int64                       `json:"records"`
	Skipped       int64                       `json:"skipped"`
	Errors        map[string]int64            `json:"errors"`
	ErrorExamples map[string][]string         `json:"error_examples"`
	Metrics       map[string]map[string]any   `json:"metrics"`
	Slices        map[string]resultsJSONSlice `json:"slices"`
}

type resultsJSONSlice struct {
	Records int64                     `json:"records"`
	Metrics map[string]map[string]any `json:"metrics"`
}

func parseResults(t *testing.T, s string) resultsJSON {
	t.Helper()
	var r resultsJSON
	require.NoError(t, json.Unmarshal([]byte(s), &r), s)
	return r
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// TestTextMatchesSacrebleu checks `score -r REF SYS...` against sacrebleu 2.6.0's corpus
// scores of the same files (testdata/text/sacrebleu.json, from gen_sacrebleu.py), exactly.
func TestTextMatchesSacrebleu(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/text")
	require.NoError(t, err)
	var golden struct {
		Systems map[string]struct {
			File     string  `json:"file"`
			Segments int64   `json:"segments"`
			BLEU     float64 `json:"bleu"`
			ChrF     float64 `json:"chrf"`
		} `json:"systems"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "sacrebleu.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &golden))
	require.Len(t, golden.Systems, 2)

	for _, args := range [][]string{
		// flags first, as in the docs
		{"score", "-r", "newstest2017.ref.de", "--metric", "bleu:scale=100", "--metric", "chrf:scale=100", "--format", "json", "LIUM-NMT.de.txt", "online-B.de.txt"},
		// flags after the files, as sacrebleu allows
		{"score", "LIUM-NMT.de.txt", "online-B.de.txt", "-r", "newstest2017.ref.de", "--metric", "bleu:scale=100", "--format", "json", "--metric", "chrf:scale=100", "--workers", "3", "--batch-size", "7"},
	} {
		r := run(t, dir, args...)
		require.Equal(t, 0, r.code, r.stderr)
		res := parseResults(t, r.stdout)
		require.Len(t, res.Slices, 2)
		for name, g := range golden.Systems {
			sl, ok := res.Slices["system="+name]
			require.True(t, ok, "slice system=%s in %v", name, res.Slices)
			require.Equal(t, g.Segments, sl.Records)
			require.Equal(t, g.BLEU, sl.Metrics["bleu"]["value"], name)
			require.Equal(t, g.ChrF, sl.Metrics["chrf"]["value"], name)
		}
	}

	// The table has one row per system and no pooled corpus row.
	r := run(t, dir, "score", "-r", "newstest2017.ref.de", "LIUM-NMT.de.txt", "online-B.de.txt", "--metric", "bleu:scale=100")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(r.stdout, "\n")
	require.Regexp(t, `^system\s+records\s+bleu$`, lines[0])
	require.Regexp(t, `^LIUM-NMT\.de\s+200\s+27\.5057$`, lines[2])
	require.Regexp(t, `^online-B\.de\s+200\s+28\.2878$`, lines[3])
	require.NotContains(t, r.stdout, "[system=")
}

// TestTextMatchesJiwer checks WER and CER of `score -r REF SYS...` against jiwer 4.0.0's
// (testdata/text/jiwer.json, from gen_jiwer.py), exactly.
func TestTextMatchesJiwer(t *testing.T) {
	dir, err := filepath.Abs("../../testdata/text")
	require.NoError(t, err)
	var golden struct {
		Systems map[string]struct {
			Segments int64   `json:"segments"`
			WER      float64 `json:"wer"`
			CER      float64 `json:"cer"`
		} `json:"systems"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "jiwer.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &golden))
	require.Len(t, golden.Systems, 2)
	r := run(t, dir, "score", "-r", "newstest2017.ref.de", "LIUM-NMT.de.txt", "online-B.de.txt", "--metric", "wer", "--metric", "cer", "--format", "json")
	require.Equal(t, 0, r.code, r.stderr)
	res := parseResults(t, r.stdout)
	for name, g := range golden.Systems {
		sl := res.Slices["system="+name]
		require.Equal(t, g.Segments, sl.Records, name)
		require.Equal(t, g.WER, sl.Metrics["wer"]["value"], name)
		require.Equal(t, g.CER, sl.Metrics["cer"]["value"], name)
	}
}

// TestTextInputs covers the shapes of plain-text inputs and their errors.
func TestTextInputs(t *testing.T) {
	hyp := "the cat sat on the mat\na dog ran in the park\nit is e.g. 3.5\n"
	ref := "the cat sat on a mat\na dog ran in a park\nit's e.g. 3.5\n"
	ref2 := "a cat sat on the mat\nthe dog ran in the park\nit is e.g. 3.5\n"
	// The same records as JSON Lines: the text reader must produce exactly these.
	jsonl := func(refs ...string) string {
		var b strings.Builder
		hl := strings.Split(strings.TrimSuffix(hyp, "\n"), "\n")
		for i, h := range hl {
			var rs []string
			for _, r := range refs {
				rs = append(rs, strings.Split(strings.TrimSuffix(r, "\n"), "\n")[i])
			}
			line, _ := json.Marshal(map[string]any{"prediction": h, "references": rs})
			b.Write(line)
			b.WriteByte('\n')
		}
		return b.String()
	}
	files := map[string][]byte{
		"sys.hyp":       []byte(hyp),
		"crlf.txt":      []byte(strings.ReplaceAll(hyp, "\n", " \r\n")),
		"nonl.txt":      []byte(strings.TrimSuffix(hyp, "\n")),
		"zipped.txt":    gz(t, hyp), // gzip told by magic bytes, not by name
		"ref.de":        []byte(ref),
		"ref2.de":       []byte(ref2),
		"ref.de.gz":     gz(t, ref),
		"short.txt":     []byte("one line\n"),
		"badutf8.txt":   []byte("the cat\n\xff\xfe bad\nit is\n"),
		"a/dup.txt":     []byte(hyp),
		"b/dup.txt":     []byte(hyp),
		"one.jsonl":     []byte(jsonl(ref)),
		"two.jsonl":     []byte(jsonl(ref, ref2)),
		"empty_hyp.txt": nil,
		"empty_ref.txt": nil,
		"sys_copy.hyp":  []byte(hyp),
	}
	dir := t.TempDir()
	for name, b := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	bleuOf := func(t *testing.T, args ...string) float64 {
		r := run(t, dir, append([]string{"score", "--metric", "bleu", "--format", "json"}, args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		return parseResults(t, r.stdout).Metrics["bleu"]["value"].(float64)
	}
	oneRef := bleuOf(t, "one.jsonl")
	twoRefs := bleuOf(t, "two.jsonl")
	require.NotEqual(t, oneRef, twoRefs)

	cases := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		bleu       float64 // checked on the one system's slice when not 0
		stderr     []string
		stdout     []string
		check      func(t *testing.T, res resultsJSON)
		wantSystem string
	}{
		{name: "plain", args: []string{"-r", "ref.de", "sys.hyp"}, bleu: oneRef, wantSystem: "sys"},
		{name: "two references", args: []string{"-r", "ref.de", "-r", "ref2.de", "sys.hyp"}, bleu: twoRefs, wantSystem: "sys"},
		{name: "--ref spelling", args: []string{"--ref", "ref.de", "--ref=ref2.de", "sys.hyp"}, bleu: twoRefs, wantSystem: "sys"},
		{name: "gzip by magic bytes", args: []string{"-r", "ref.de.gz", "zipped.txt"}, bleu: oneRef, wantSystem: "zipped"},
		{name: "CRLF and trailing spaces stripped", args: []string{"-r", "ref.de", "crlf.txt"}, bleu: oneRef, wantSystem: "crlf"},
		{name: "no final newline", args: []string{"-r", "ref.de", "nonl.txt"}, bleu: oneRef, wantSystem: "nonl"},
		{name: "hypotheses on stdin", args: []string{"-r", "ref.de", "-"}, stdin: hyp, bleu: oneRef, wantSystem: "stdin"},
		{name: "reference on stdin", args: []string{"-r", "-", "sys.hyp"}, stdin: ref, bleu: oneRef, wantSystem: "sys"},
		{name: "flags after files", args: []string{"sys.hyp", "-r", "ref.de", "--workers", "2"}, bleu: oneRef, wantSystem: "sys"},
		{name: "-- ends the flags", args: []string{"-r", "ref.de", "--", "sys.hyp"}, bleu: oneRef, wantSystem: "sys"},
		{name: "empty files", args: []string{"-r", "empty_ref.txt", "empty_hyp.txt"}, code: 1, stderr: []string{"no record was scored"}},
		{
			name: "stdin twice", args: []string{"-r", "-", "-"}, code: 2,
			stderr: []string{"standard input (-) is named 2 times"},
		},
		{
			name: "hypothesis shorter than reference", args: []string{"-r", "ref.de", "sys.hyp", "short.txt"}, code: 2,
			stderr: []string{"short.txt has 1 lines but ref.de has 3", "line-aligned"},
		},
		{
			name: "references of different lengths", args: []string{"-r", "ref.de", "-r", "short.txt", "sys.hyp"}, code: 2,
			stderr: []string{"ref.de has 3 lines but short.txt has 1"},
		},
		{
			name: "two systems with one name", args: []string{"-r", "ref.de", "a/dup.txt", "b/dup.txt"}, code: 2,
			stderr: []string{"a/dup.txt and b/dup.txt both name the system \"dup\""},
		},
		{name: "missing file", args: []string{"-r", "ref.de", "nope.txt"}, code: 1, stderr: []string{"nope.txt"}},
		{name: "no hypothesis", args: []string{"-r", "ref.de"}, code: 2, stderr: []string{"needs at least one hypothesis file"}},
		{name: "text file without -r", args: []string{"sys.hyp"}, code: 2, stderr: []string{"unsupported input format", "give the references with -r REF"}},
		{name: "slice by another field", args: []string{"-r", "ref.de", "sys.hyp", "--slice-by", "lang"}, code: 2, stderr: []string{`slice_by "lang": plain-text records have only`}},
		{name: "stdin without -r", args: []string{"-"}, code: 2, stderr: []string{"give the references with -r"}},
		{name: "--input-format with -r", args: []string{"-r", "ref.de", "--input-format", "jsonl", "sys.hyp"}, code: 2, stderr: []string{"--input-format does not apply"}},
		{
			name: "invalid utf-8 fails the run", args: []string{"-r", "ref.de", "badutf8.txt"}, code: 1,
			stderr: []string{"badutf8.txt:2", "invalid utf-8"},
		},
		{
			name: "invalid utf-8 skipped and counted", args: []string{"-r", "ref.de", "badutf8.txt", "--on-error", "skip"},
			check: func(t *testing.T, res resultsJSON) {
				require.Equal(t, int64(2), res.Records)
				require.Equal(t, int64(1), res.Skipped)
				require.Equal(t, map[string]int64{"invalid utf-8": 1}, res.Errors)
				require.Len(t, res.ErrorExamples["invalid utf-8"], 1)
				require.Contains(t, res.ErrorExamples["invalid utf-8"][0], "badutf8.txt:2")
			},
		},
		{
			name: "every text metric reads the records", args: []string{"-r", "ref.de", "sys.hyp", "--metric", "chrf", "--metric", "wer", "--metric", "rouge_l"},
			check: func(t *testing.T, res resultsJSON) {
				for _, m := range []string{"bleu", "chrf", "wer", "rouge_l"} {
					require.NotNil(t, res.Slices["system=sys"].Metrics[m]["value"], m)
				}
			},
		},
		{
			name: "records in file order", args: []string{"-r", "ref.de", "sys.hyp", "sys_copy.hyp", "--batch-size", "1", "--workers", "4"},
			check: func(t *testing.T, res resultsJSON) {
				require.Equal(t, int64(6), res.Records)
				require.Equal(t, oneRef, res.Slices["system=sys"].Metrics["bleu"]["value"])
				require.Equal(t, oneRef, res.Slices["system=sys_copy"].Metrics["bleu"]["value"])
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"score", "--metric", "bleu", "--format", "json"}, tc.args...)
			r := runStdin(t, dir, tc.stdin, args...)
			require.Equal(t, tc.code, r.code, "stdout %s\nstderr %s", r.stdout, r.stderr)
			for _, s := range tc.stderr {
				require.Contains(t, r.stderr, s)
			}
			if tc.code != 0 {
				return
			}
			res := parseResults(t, r.stdout)
			if tc.bleu != 0 {
				require.Len(t, res.Slices, 1)
				require.Equal(t, tc.bleu, res.Slices["system="+tc.wantSystem].Metrics["bleu"]["value"])
				require.Equal(t, tc.bleu, res.Metrics["bleu"]["value"])
			}
			if tc.check != nil {
				tc.check(t, res)
			}
		})
	}
}

// TestTextSourceInConfig runs and validates pipeline configs with a text source.
func TestTextSourceInConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	write("a.txt", "the cat sat\na dog\n")
	write("b.txt", "the cat sat on\na dog ran\n")
	write("ref.txt", "the cat sat on\na dog ran\n")
	good := write("good.yaml", `
source: {type: text, hypotheses: [a.txt, b.txt], references: [ref.txt]}
metrics: [{type: bleu}]
sinks: [{type: stdout}, {type: json, path: out.json}]
`)
	r := run(t, dir, "run", "-c", good)
	require.Equal(t, 0, r.code, r.stderr)
	require.Regexp(t, `(?m)^system\s+records\s+bleu$`, r.stdout)
	require.Regexp(t, `(?m)^b\s+2\s+1$`, r.stdout, "6 significant digits")
	b, err := os.ReadFile(filepath.Join(dir, "out.json"))
	require.NoError(t, err)
	res := parseResults(t, string(b))
	require.InDelta(t, 1.0, res.Slices["system=b"].Metrics["bleu"]["value"], 1e-12)
	require.Contains(t, res.Slices, "system=a")

	for _, tc := range []struct {
		name, cfg string
		want      []string
	}{
		{"no files", `source: {type: text}`, []string{"source.hypotheses: required", "source.references: required"}},
		{"file keys", `source: {type: text, path: x.jsonl, hypotheses: [a.txt], references: [ref.txt], topic: t}`, []string{"source.path: does not apply to a text source", "source.topic: does not apply"}},
		{"stdin twice", `source: {type: text, hypotheses: ["-"], references: ["-"]}`, []string{"named 2 times"}},
		{"text keys on a file source", `source: {type: file, path: x.jsonl, hypotheses: [a.txt]}`, []string{"source.hypotheses: only applies to a text source"}},
		{"format", `source: {type: text, hypotheses: [a.txt], references: [ref.txt], format: jsonl}`, []string{"source.format: a text source reads plain text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write("bad.yaml", tc.cfg+"\nmetrics: [{type: bleu}]\n")
			r := run(t, dir, "validate", "-c", p)
			require.Equal(t, 2, r.code, r.stdout)
			for _, w := range tc.want {
				require.Contains(t, r.stderr, w)
			}
		})
	}
	mism := write("mism.yaml", `
source: {type: text, hypotheses: [a.txt], references: [good.yaml]}
metrics: [{type: bleu}]
sinks: [{type: stdout}]
`)
	r = run(t, dir, "run", "-c", mism)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "a.txt has 2 lines but good.yaml has")
}

// TestNoRecordScoredExitsOne: a run that scored nothing fails whatever the policy, and the
// results are still written (they hold the reasons).
func TestNoRecordScoredExitsOne(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "allbad.jsonl"), []byte("{\"prediction\": \"x\"\n{\"prediction\": 5, \"references\": [\"x\"]}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.jsonl"), nil, 0o644))
	cfg := filepath.Join(dir, "skip.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
source: {type: file, path: allbad.jsonl}
pipeline: {on_error: skip}
metrics: [{type: bleu}]
sinks: [{type: json, path: out/r.json}]
`), 0o644))
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"score skip", []string{"score", "--metric", "bleu", "--on-error", "skip", "allbad.jsonl"}, "no record was scored: all 2 records were bad"},
		{"score dead letters", []string{"score", "--metric", "bleu", "--dead-letter", "dl.jsonl", "allbad.jsonl"}, "no record was scored: all 2 records were bad"},
		{"score fail", []string{"score", "--metric", "bleu", "allbad.jsonl"}, "invalid json"},
		{"score empty input", []string{"score", "--metric", "bleu", "empty.jsonl"}, "no record was scored: the input holds no records"},
		{"run skip", []string{"run", "-c", cfg}, "no record was scored: all 2 records were bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, dir, tc.args...)
			require.Equal(t, 1, r.code, r.stdout)
			require.Contains(t, r.stderr, tc.stderr)
		})
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "r.json"))
	require.NoError(t, err)
	require.Equal(t, int64(2), parseResults(t, string(b)).Skipped)
	b, err = os.ReadFile(filepath.Join(dir, "dl.jsonl"))
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(string(b), "\n"))

	r := run(t, dir, "score", "-h")
	require.Equal(t, 0, r.code)
	require.Contains(t, r.stderr, "a run that scored no record")
	require.Contains(t, r.stderr, "name=NAME")
}

// TestScoreOutputsLikeRun: --output, --dead-letter and --max-bad on score.
func TestScoreOutputsLikeRun(t *testing.T) {
	dir := t.TempDir()
	mixed := "{\"prediction\": \"a b c d\", \"references\": [\"a b c d\"]}\n{\"prediction\": \"trunc\n{\"prediction\": \"c d e f\", \"references\": [\"c d e f\"]}\n{\"prediction\": 5, \"references\": [\"x\"]}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mixed.jsonl"), []byte(mixed), 0o644))
	score := func(args ...string) result {
		return run(t, dir, append([]string{"score", "--metric", "bleu:name=bleu4,ngram=4"}, args...)...)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
		check  func(t *testing.T)
	}{
		{name: "json output", args: []string{"--on-error", "skip", "--output", "o/r.json", "mixed.jsonl"}, check: func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, "o", "r.json"))
			require.NoError(t, err)
			res := parseResults(t, string(b))
			require.Equal(t, int64(2), res.Records)
			require.InDelta(t, 1.0, res.Metrics["bleu4"]["value"], 1e-12)
		}},
		{name: "csv output appended", args: []string{"mixed.jsonl", "--on-error", "skip", "--output", "o/r.csv"}, check: func(t *testing.T) {
			r := score("mixed.jsonl", "--on-error", "skip", "--output", "o/r.csv")
			require.Equal(t, 0, r.code, r.stderr)
			f, err := os.Open(filepath.Join(dir, "o", "r.csv"))
			require.NoError(t, err)
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			require.NoError(t, err)
			require.Equal(t, sinks.CSVHeader, rows[0])
			require.Len(t, rows, 3, "a header and one row per run")
			for _, row := range rows[1:] {
				require.Equal(t, []string{"score", "", "bleu4", "bleu", "", "", ""}, row[1:8])
				require.Equal(t, []string{"2", ""}, row[9:11], "records, reason")
				v, err := strconv.ParseFloat(row[8], 64)
				require.NoError(t, err)
				require.InDelta(t, 1.0, v, 1e-12)
			}
		}},
		{name: "csv of another layout refused before the run", args: []string{"mixed.jsonl", "--output", "o/old.csv"}, code: 1, stderr: "existing CSV file has another header", check: func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, "o", "old.csv"))
			require.NoError(t, err)
			require.Equal(t, "slice,metric,value\n", string(b), "left as it was")
		}},
		{name: "jsonl history appended", args: []string{"--on-error", "skip", "--output", "o/h.jsonl", "mixed.jsonl"}, check: func(t *testing.T) {
			r := score("--on-error", "skip", "--output", "o/h.jsonl", "mixed.jsonl")
			require.Equal(t, 0, r.code, r.stderr)
			b, err := os.ReadFile(filepath.Join(dir, "o", "h.jsonl"))
			require.NoError(t, err)
			require.Equal(t, 2, strings.Count(string(b), "\n"))
		}},
		{name: "unknown output extension", args: []string{"--output", "o/r.txt", "mixed.jsonl"}, code: 2, stderr: "use .json, .csv or .jsonl"},
		{name: "dead letters", args: []string{"--dead-letter", "o/dead.jsonl", "mixed.jsonl"}, check: func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, "o", "dead.jsonl"))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			require.Len(t, lines, 2)
			require.Contains(t, lines[0], "mixed.jsonl:2")
			require.Contains(t, lines[1], "mixed.jsonl:4")
		}},
		{name: "dead letters with another policy", args: []string{"--dead-letter", "o/dead.jsonl", "--on-error", "skip", "mixed.jsonl"}, code: 2, stderr: "--dead-letter goes with --on-error dead_letter"},
		{name: "dead_letter policy without a file", args: []string{"--on-error", "dead_letter", "mixed.jsonl"}, code: 2, stderr: "needs --dead-letter FILE"},
		{name: "max-bad count kept", args: []string{"--on-error", "skip", "--max-bad", "2", "mixed.jsonl"}},
		{name: "max-bad count exceeded", args: []string{"--on-error", "skip", "--max-bad", "1", "mixed.jsonl"}, code: 1, stderr: "too many bad records"},
		{name: "max-bad fraction exceeded", args: []string{"--on-error", "skip", "--max-bad", "0.25", "mixed.jsonl"}, code: 1, stderr: "too many bad records"},
		{name: "max-bad invalid", args: []string{"--on-error", "skip", "--max-bad", "lots", "mixed.jsonl"}, code: 2, stderr: "pipeline.max_bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "o"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "o", "old.csv"), []byte("slice,metric,value\n"), 0o644))
			r := score(tc.args...)
			require.Equal(t, tc.code, r.code, "stdout %s\nstderr %s", r.stdout, r.stderr)
			require.Contains(t, r.stderr, tc.stderr)
			if tc.code == 0 {
				require.Contains(t, r.stdout, "bleu4")
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}
