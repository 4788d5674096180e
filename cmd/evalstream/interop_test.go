package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The interop fixtures (testdata/interop, written by gen.py with the pinned real writers)
// hold the same 60 records, nulls included. Every one must give exactly the results of
// records.jsonl, the twin written by Python's json module, through the command users run.

const interopDir = "../../testdata/interop"

// interopMetrics reads every role: text (BLEU, ROUGE-L), class ids and score lists
// (accuracy, F1), regression values (Pearson, Spearman), and a slice field.
var interopMetrics = []string{
	"--format", "json", "--on-error", "skip", "--slice-by", "lang",
	"--metric", "bleu", "--metric", "rouge_l",
	"--metric", "accuracy:prediction=pred_class",
	"--metric", "f1:prediction=pred_class,average=macro",
	"--metric", "accuracy:name=accuracy_scores,prediction=scores",
	"--metric", "pearson:prediction=y_pred,label=y_true",
	"--metric", "spearman:prediction=y_pred,label=y_true",
}

type interopFixture struct {
	File   string `json:"file"`
	Writer string `json:"writer"`
	Format string `json:"format"`
	Needs  string `json:"needs"`
}

func interopManifest(t *testing.T) []interopFixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(interopDir, "manifest.json"))
	require.NoError(t, err)
	var m struct {
		Fixtures []interopFixture `json:"fixtures"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	return m.Fixtures
}

// interopScore runs `evalstream score` on fixture paths (relative to the fixtures) in
// process, through dispatch as main does (the built binary costs seconds a run under -race),
// and returns what main would print and its exit code.
func interopScore(t *testing.T, args ...string) result {
	t.Helper()
	files, err := filepath.Abs(filepath.Join(interopDir, "files"))
	require.NoError(t, err)
	for i, a := range args {
		if !strings.HasPrefix(a, "-") && (i == 0 || args[i-1] != "--input-format") {
			args[i] = filepath.Join(files, a)
		}
	}
	return dispatchResult(append(append([]string{"score"}, interopMetrics...), args...))
}

func dispatchResult(args []string) result {
	var out, errb bytes.Buffer
	err := dispatch(context.Background(), args, &out, &errb)
	code := 0
	if err != nil {
		code = 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		fmt.Fprintln(&errb, "evalstream:", err)
	}
	return result{out.String(), errb.String(), code}
}

func TestInteropFixturesGiveTheJSONLNumbers(t *testing.T) {
	fixtures := interopManifest(t)
	writers := map[string]bool{}
	for _, f := range fixtures {
		writers[strings.Fields(strings.ReplaceAll(f.Writer, ".", " "))[0]] = true
	}
	for _, w := range []string{"pyarrow", "polars", "pandas", "datasets", "duckdb", "json"} {
		require.True(t, writers[w], "no fixture written by %s", w)
	}
	require.GreaterOrEqual(t, len(fixtures), 40)

	twin := interopScore(t, "records.jsonl")
	require.Equal(t, 0, twin.code, twin.stderr)
	var want map[string]any
	require.NoError(t, json.Unmarshal([]byte(twin.stdout), &want))
	rowsOnly(want)
	require.NotEmpty(t, want["error_examples"])
	require.EqualValues(t, 55, want["records"]) // 5 records have a null in a field read
	require.EqualValues(t, 5, want["skipped"])

	for _, f := range fixtures {
		t.Run(f.File, func(t *testing.T) {
			if f.Format == "feather1" {
				return // TestInteropRefusals
			}
			cases := [][]string{{f.File}}
			switch f.Format {
			case "dir":
				// HF datasets' directory: its IPC streams are named .arrow and sit next to
				// JSON metadata; either Arrow IPC format name selects them by content.
				cases = [][]string{{f.File}, {"--input-format", "arrows", f.File}, {"--input-format", "arrow", f.File}}
			case "arrow", "arrows":
				other := map[string]string{"arrow": "arrows", "arrows": "arrow"}[f.Format]
				cases = append(cases, []string{"--input-format", f.Format, f.File}, []string{"--input-format", other, f.File})
			default:
				cases = append(cases, []string{"--input-format", f.Format, f.File})
			}
			for _, args := range cases {
				r := interopScore(t, args...)
				require.Equal(t, 0, r.code, "%v (%s): %s", args, f.Writer, r.stderr)
				var got map[string]any
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
				rowsOnly(got)
				require.Equal(t, want, got, "%v (%s)", args, f.Writer)
			}
		})
	}
}

// rowsOnly keeps the row numbers of results' error_examples, which name the input file, and
// drops the run's description.
func rowsOnly(results map[string]any) {
	// The run's description (times, input fingerprints) differs by design.
	for _, k := range []string{"run", "started_at", "duration_s", "version", "git_commit", "input", "metrics_signature"} {
		delete(results, k)
	}
	ex, _ := results["error_examples"].(map[string]any)
	for _, positions := range ex {
		for i, p := range positions.([]any) {
			s := p.(string)
			positions.([]any)[i] = s[strings.LastIndexByte(s, ':')+1:]
		}
	}
}

func TestInteropRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	files, err := filepath.Abs(filepath.Join(interopDir, "files"))
	require.NoError(t, err)
	jsonl, err := os.ReadFile(filepath.Join(files, "records.jsonl"))
	require.NoError(t, err)
	tests := []struct {
		name string
		args []string
		code int
		msg  []string
	}{
		{"feather v1", []string{filepath.Join(files, "pyarrow_v1.feather")}, 2,
			[]string{"pyarrow_v1.feather", "Feather V1", "pyarrow.feather.write_feather"}},
		{"unknown bytes and extension", []string{write("notes.txt", []byte("hello\n"))}, 2,
			[]string{"notes.txt", "cannot tell the format", "--input-format", "source.format"}},
		{"json array", []string{write("a.json", []byte(`[{"prediction":"a"}]`))}, 2,
			[]string{"a.json", "not JSON Lines", "--input-format jsonl"}},
		{"format contradicts the bytes", []string{"--input-format", "parquet", write("r.jsonl", jsonl)}, 2,
			[]string{"r.jsonl", "set to parquet", "JSON Lines"}},
		{"arrow format on parquet", []string{"--input-format", "arrow", filepath.Join(files, "pandas.parquet")}, 2,
			[]string{"pandas.parquet", "set to arrow", "a Parquet file"}},
		{"directory without that format", []string{"--input-format", "parquet", filepath.Join(files, "hf_save_to_disk")}, 1,
			[]string{"hf_save_to_disk", "no parquet files"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := dispatchResult(append(append([]string{"score"}, interopMetrics...), tc.args...))
			require.Equal(t, tc.code, r.code, r.stderr)
			require.Empty(t, r.stdout)
			for _, m := range tc.msg {
				require.Contains(t, r.stderr, m)
			}
		})
	}

	// The same through a config file: exit 2 and the config key named.
	cfg := write("p.yaml", []byte("source: {type: file, path: "+filepath.Join(dir, "notes.txt")+"}\nmetrics:\n  - {type: bleu}\nsinks: [{type: stdout}]\n"))
	r := run(t, dir, "run", "-c", cfg)
	require.Equal(t, 2, r.code, r.stderr)
	require.Contains(t, r.stderr, "source.format")
}
