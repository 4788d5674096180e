package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidateChecksPaths: validate reports inputs that do not exist and outputs that cannot
// be written, each with its config path, together with every other problem (exit 2), and
// creates nothing.
func TestValidateChecksPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	write("data/a.jsonl", `{"prediction": "a", "references": ["a"]}`+"\n")
	write("a.txt", "x\n")
	write("ref.txt", "x\n")
	write("plain", "not a directory\n")
	write("old.csv", "slice,metric,type,value,records,reason,signature\n")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "adir"), 0o755))
	for _, tc := range []struct {
		name, cfg string
		code      int
		want      []string
	}{
		{"valid: output directories are created by the run", `source: {path: data/a.jsonl}
sinks: [{type: json, path: out/new/r.json}, {type: jsonl, path: out/h.jsonl}]`, 0, []string{"ok (1 metrics, 2 sinks)"}},
		{"valid directory and glob", `source: {path: "data/*.jsonl"}
sinks: [{type: stdout}]`, 0, []string{"ok"}},
		{"missing file", `source: {path: data/missing.jsonl}
sinks: [{type: stdout}]`, 2, []string{"source.path: sources: stat data/missing.jsonl: no such file or directory"}},
		{"glob selecting nothing", `source: {path: "data/*.parquet"}
sinks: [{type: stdout}]`, 2, []string{`source.path: sources: pattern "data/*.parquet" matches no`}},
		{"empty directory", `source: {path: adir}
sinks: [{type: stdout}]`, 2, []string{"source.path: sources: directory adir holds no"}},
		{"text files", `source: {type: text, hypotheses: [a.txt, nohyp.txt], references: [ref.txt, noref.txt, adir]}
sinks: [{type: stdout}]`, 2, []string{
			"source.hypotheses[1]: open nohyp.txt: no such file or directory",
			"source.references[1]: open noref.txt: no such file or directory",
			"source.references[2]: adir is a directory, not a file",
		}},
		{"sink under a file, sink on a directory, dead letters", `source: {path: data/a.jsonl}
pipeline: {on_error: dead_letter, dead_letter: {path: plain/bad.jsonl}}
sinks: [{type: json, path: plain/sub/r.json}, {type: csv, path: adir}]`, 2, []string{
			"pipeline.dead_letter.path: cannot create plain/bad.jsonl: plain is not a directory",
			"sinks[0].path: cannot create plain/sub/r.json: ",
			"sinks[1].path: adir is a directory, not a file",
		}},
		{"csv of another layout", `source: {path: data/a.jsonl}
run_name: nightly
sinks: [{type: csv, path: old.csv}]`, 2, []string{
			"sinks[0].path: old.csv: existing CSV file has another header",
		}},
		{"every problem at once", `source: {path: data/missing.jsonl, fromat: jsonl}
pipelin: {}
metrics: [{type: bleu, tokenise: 13a}, {type: acuracy}]
sinks: [{type: json, path: adir, pth: x}]`, 2, []string{
			"source.path: sources: stat data/missing.jsonl",
			`source.fromat: unknown key "fromat" in source`, `did you mean "format"?`,
			`pipelin: unknown key "pipelin" in the top level`, `did you mean "pipeline"?`,
			`metrics[0].tokenise: unknown option`, `did you mean "tokenize"?`,
			`metrics[1].type: unknown metric type "acuracy"`, `did you mean "accuracy"?`,
			`sinks[0].pth: unknown key "pth" in a sink`, `did you mean "path"?`,
			"sinks[0].path: adir is a directory, not a file",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			if !strings.Contains(cfg, "metrics:") {
				cfg += "\nmetrics: [{type: bleu}]\n"
			}
			p := write("v.yaml", cfg)
			r := run(t, dir, "validate", "-c", p)
			require.Equal(t, tc.code, r.code, r.stderr)
			out := r.stdout
			if tc.code != 0 {
				out = r.stderr
				require.Empty(t, r.stdout)
			}
			for _, w := range tc.want {
				require.Contains(t, out, w)
			}
		})
	}
	_, err := os.Stat(filepath.Join(dir, "out"))
	require.ErrorIs(t, err, os.ErrNotExist, "validate created an output directory")
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		require.False(t, strings.HasPrefix(e.Name(), ".evalstream-validate"), "probe file left behind: %s", e.Name())
	}
}
