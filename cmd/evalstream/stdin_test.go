package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Standard input ("-") carries an Arrow IPC stream or JSON Lines (the Python package pipes
// its tables this way): the results are those of the same bytes read as a file, whether
// through score or a config's source.path.
func TestStdinScoresAsTheFile(t *testing.T) {
	files, err := filepath.Abs(filepath.Join(interopDir, "files"))
	require.NoError(t, err)
	dir := t.TempDir()
	for _, name := range []string{"pyarrow_stream.arrows", "polars_ipc_stream_newest_zstd.arrows", "records.jsonl", "pandas.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(files, name)
			in, err := os.ReadFile(path)
			require.NoError(t, err)
			want := run(t, dir, append([]string{"score"}, append(interopMetrics, path)...)...)
			require.Equal(t, 0, want.code, want.stderr)
			got := runStdin(t, dir, string(in), append([]string{"score"}, append(interopMetrics, "-")...)...)
			require.Equal(t, 0, got.code, got.stderr)
			// Bad records are named by position: "-:ROW" instead of "FILE:ROW"; the run's
			// description names the input ("-") and its own time.
			require.Equal(t, withoutRunMeta(t, want.stdout), withoutRunMeta(t, strings.ReplaceAll(got.stdout, `"-:`, `"`+path+`:`)))

			config := func(source string) string {
				cfg := filepath.Join(dir, "stdin.yaml")
				require.NoError(t, os.WriteFile(cfg, []byte(`source: {type: file, path: "`+source+`"}
pipeline: {on_error: skip}
metrics: [{type: bleu}, {type: accuracy, prediction: pred_class}]
sinks: [{type: json, path: /dev/stdout}]
`), 0o644))
				return cfg
			}
			want = run(t, dir, "run", "-c", config(path))
			require.Equal(t, 0, want.code, want.stderr)
			got = runStdin(t, dir, string(in), "run", "-c", config("-"))
			require.Equal(t, 0, got.code, got.stderr)
			require.Equal(t, withoutRunMeta(t, want.stdout), withoutRunMeta(t, strings.ReplaceAll(got.stdout, `"-:`, `"`+path+`:`)))
		})
	}
}

func TestStdinUsageErrors(t *testing.T) {
	arrowFile, err := os.ReadFile(filepath.Join(interopDir, "files", "pyarrow_file.arrow"))
	require.NoError(t, err)
	dir := t.TempDir()
	tests := []struct {
		name   string
		stdin  string
		args   []string
		stderr []string
	}{
		{name: "with other inputs", args: []string{"-", "x.jsonl"}, stderr: []string{"standard input (-) is read alone"}},
		{name: "an Arrow IPC file", stdin: string(arrowFile), args: []string{"-"}, stderr: []string{"an Arrow IPC file", "give its path"}},
		{name: "plain text", stdin: "a sentence\n", args: []string{"-"}, stderr: []string{"cannot tell the format", "give the references with -r"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runStdin(t, dir, tc.stdin, append([]string{"score", "--metric", "bleu"}, tc.args...)...)
			require.Equal(t, 2, r.code, r.stderr)
			for _, s := range tc.stderr {
				require.Contains(t, r.stderr, s)
			}
		})
	}
}
