package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/internal/buildinfo"
)

// TestResultSignatures: the signature of every metric in a results file has the one form
// and ends with the binary's release; sacrebleu's metrics carry nrefs at the top level, as
// in their details; a resampled metric adds its ci pair before the release; a saved state
// reports the same signatures.
func TestResultSignatures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("ref1.txt", "the cat sat on the mat\nhello there world\n")
	write("ref2.txt", "a cat sat on a mat\nhello world\n")
	write("sys.txt", "the cat sat on mat\nhello world\n")
	v := regexp.QuoteMeta(buildinfo.Version)
	want := map[string]string{
		"bleu":    `^type:bleu\|compat:sacrebleu\|nrefs:2\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|ngram:4\|average:micro\|scale:1\|version:` + v + `$`,
		"chrf":    `^type:chrf\|compat:sacrebleu\|nrefs:2\|case:mixed\|eff:yes\|nc:6\|nw:0\|space:no\|beta:2\|scale:1\|version:` + v + `$`,
		"ter":     `^type:ter\|compat:sacrebleu\|nrefs:2\|case:lc\|tok:tercom\|norm:no\|punct:yes\|asian:no\|scale:1\|version:` + v + `$`,
		"rouge_l": `^type:rouge_l\|compat:mindnlp\|tok:whitespace\|lc:no\|multiref:max_pr\|beta2:1.44\|version:` + v + `$`,
	}
	sigs := func(t *testing.T, out []byte) map[string]map[string]any {
		var res struct {
			Metrics map[string]map[string]any `json:"metrics"`
		}
		require.NoError(t, json.Unmarshal(out, &res), string(out))
		return res.Metrics
	}

	r := run(t, dir, "score", "--metric", "bleu", "--metric", "chrf", "--metric", "ter", "--metric", "rouge_l",
		"--format", "json", "--save-state", "s.state", "-r", "ref1.txt", "-r", "ref2.txt", "sys.txt")
	require.Equal(t, 0, r.code, r.stderr)
	got := sigs(t, []byte(r.stdout))
	for name, re := range want {
		sig, _ := got[name]["signature"].(string)
		require.Regexp(t, re, sig, name)
		if d, ok := got[name]["details"].(map[string]any)["signature"]; ok {
			require.Equal(t, sig, d, "%s: details and top level", name)
		}
	}

	r = run(t, dir, "report", "--format", "json", "s.state")
	require.Equal(t, 0, r.code, r.stderr)
	for name, m := range sigs(t, []byte(r.stdout)) {
		require.Equal(t, got[name]["signature"], m["signature"], "%s from the saved state", name)
	}

	// A resampled metric: its ci pair comes before the release, nrefs still after compat.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(
		`{"prediction": "the cat sat", "references": ["the cat sat down", "a cat sat"]}`+"\n"+
			`{"prediction": "hello world", "references": ["hello there world", "hello world"]}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ci.yaml"), []byte(
		"source: {type: file, path: c.jsonl}\nmetrics:\n  - {type: bleu}\nci: {resamples: 20, seed: 7}\nsinks:\n  - {type: json, path: out/ci.json}\n"), 0o644))
	r = run(t, dir, "run", "-c", "ci.yaml")
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(filepath.Join(dir, "out/ci.json"))
	require.NoError(t, err)
	require.Regexp(t, `^type:bleu\|compat:sacrebleu\|nrefs:2\|case:mixed\|.*\|scale:1\|ci:poisson,B=20,level=0.95,seed=7\|version:`+v+`$`,
		sigs(t, b)["bleu"]["signature"])
}
