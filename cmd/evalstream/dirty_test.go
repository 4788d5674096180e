package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNonFiniteValuesEveryFormat scores the pyarrow-written fixtures of testdata/dirty
// (NaN and ±Inf in float and list<float> columns; JSON 1e999) under every on_error policy:
// no non-finite value is scored, each is counted as "non-finite value" with its position,
// dead letters keep the value ("NaN", "Infinity") and the metrics equal those of the good
// records alone.
func TestNonFiniteValuesEveryFormat(t *testing.T) {
	data, err := filepath.Abs("../../testdata/dirty")
	require.NoError(t, err)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`
source: {type: file, path: clean.jsonl}
pipeline: {workers: 3, batch_size: 4}
metrics:
  - {type: bleu, prediction: pred, references: refs}
  - {type: accuracy, prediction: scores, label: label}
  - {type: pearson, prediction: x, label: y}
  - {type: perplexity, prediction: scores, label: label}
sinks: [{type: json, path: out/r.json}, {type: stdout}]
`), 0o644))
	type results struct {
		Records       int64               `json:"records"`
		Skipped       int64               `json:"skipped"`
		Errors        map[string]int64    `json:"errors"`
		ErrorExamples map[string][]string `json:"error_examples"`
		Metrics       json.RawMessage     `json:"metrics"`
	}
	read := func() results {
		var r results
		b, err := os.ReadFile(filepath.Join(dir, "out/r.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &r))
		return r
	}
	r := run(t, dir, "run", "-c", cfg, "--set", "source.path="+filepath.Join(data, "clean.jsonl"))
	require.Equal(t, 0, r.code, r.stderr)
	clean := read()
	require.Equal(t, int64(18), clean.Records)

	for _, tc := range []struct {
		file     string
		bad      int64
		examples []string
	}{
		{"dirty.arrow", 6, []string{"dirty.arrow:4", "dirty.arrow:6", "dirty.arrow:9", "dirty.arrow:12", "dirty.arrow:15"}},
		{"dirty.arrows", 6, []string{"dirty.arrows:4", "dirty.arrows:6", "dirty.arrows:9", "dirty.arrows:12", "dirty.arrows:15"}},
		{"dirty.parquet", 6, []string{"dirty.parquet:4", "dirty.parquet:6", "dirty.parquet:9", "dirty.parquet:12", "dirty.parquet:15"}},
		// JSON has no NaN: its twin holds the ±Inf records only (1e999, -1e999).
		{"dirty.jsonl", 4, []string{"dirty.jsonl:4", "dirty.jsonl:6", "dirty.jsonl:9", "dirty.jsonl:12"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(data, tc.file)
			os.RemoveAll(filepath.Join(dir, "out"))

			r := run(t, dir, "run", "-c", cfg, "--set", "source.path="+path)
			require.Equal(t, 1, r.code, r.stderr)
			require.Contains(t, r.stderr, tc.file+":4")
			require.Contains(t, r.stderr, `field "x": non-finite value: Infinity`)
			_, err := os.Stat(filepath.Join(dir, "out/r.json"))
			require.True(t, os.IsNotExist(err), "no results after a failed run")

			for _, policy := range [][]string{{"pipeline.on_error=skip"}, {"pipeline.on_error=dead_letter", "pipeline.dead_letter.path=out/dead.jsonl"}} {
				args := []string{"run", "-c", cfg, "--set", "source.path=" + path, "--set", "pipeline.max_bad=100"}
				for _, p := range policy {
					args = append(args, "--set", p)
				}
				r = run(t, dir, args...)
				require.Equal(t, 0, r.code, r.stderr)
				got := read()
				require.Equal(t, clean.Records, got.Records)
				require.Equal(t, tc.bad, got.Skipped)
				require.Equal(t, map[string]int64{"non-finite value": tc.bad}, got.Errors)
				require.Equal(t, map[string][]string{"non-finite value": tc.examples}, relative(got.ErrorExamples, data))
				require.JSONEq(t, string(clean.Metrics), string(got.Metrics))
				require.Contains(t, r.stdout, "first at: ")
			}
			b, err := os.ReadFile(filepath.Join(dir, "out/dead.jsonl"))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			require.Len(t, lines, int(tc.bad))
			var first map[string]any
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
			require.Equal(t, "non-finite value", first["reason"])
			if rec, ok := first["record"].(map[string]any); ok { // Arrow and Parquet rows
				require.Equal(t, "Infinity", rec["x"])
			} else {
				require.Contains(t, first["payload"], `"x": 1e999`)
			}
		})
	}
}

// relative strips dir from the positions, which name the files as given.
func relative(ex map[string][]string, dir string) map[string][]string {
	out := map[string][]string{}
	for k, v := range ex {
		for _, p := range v {
			out[k] = append(out[k], strings.TrimPrefix(p, dir+string(filepath.Separator)))
		}
	}
	return out
}
