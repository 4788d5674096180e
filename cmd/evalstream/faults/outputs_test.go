//go:build linux

package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// corpusLines is a JSONL corpus of n records in 30 slices, with a bad record (a long
// truncated line) every 50 records, so that every output of a run is well over a page.
func corpusLines(n int, seed int64) string {
	rng := rand.New(rand.NewSource(seed))
	words := strings.Fields("the cat sat on a mat dog ran in park über naïve it's , . ! ?")
	sentence := func() string {
		w := make([]string, 1+rng.Intn(12))
		for i := range w {
			w[i] = words[rng.Intn(len(words))]
		}
		return strings.Join(w, " ")
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i%50 == 49 {
			fmt.Fprintf(&b, "{\"prediction\": %q, \"references\": [\"trunc\n", strings.Repeat(sentence()+" ", 40))
			continue
		}
		rec, _ := json.Marshal(map[string]any{
			"id": fmt.Sprintf("r%05d", i), "lang": fmt.Sprintf("l%02d", rng.Intn(30)),
			"prediction": sentence(), "references": []string{sentence(), sentence()},
			"cls": rng.Intn(3), "label": rng.Intn(3),
		})
		b.Write(rec)
		b.WriteByte('\n')
	}
	return b.String()
}

// outputsConfig writes every kind of file output of a file run to out/: results JSON, CSV,
// JSONL history, per-record scores (examples) and dead letters; --save-state adds a state.
const outputsConfig = `
source: {type: file, path: in.jsonl}
pipeline: {on_error: dead_letter, dead_letter: {path: out/dead.jsonl}, workers: 2, batch_size: 64}
slice_by: [lang]
metrics:
  - {type: bleu}
  - {type: chrf}
  - {type: accuracy, prediction: cls}
  - {type: confusion_matrix, prediction: cls, num_classes: 3}
sinks:
  - {type: json, path: out/r.json}
  - {type: csv, path: out/r.csv}
  - {type: jsonl, path: out/history.jsonl}
  - {type: examples, path: out/ex.jsonl}
`

// output is one file output of outputsConfig, and the arguments that move it to path.
type output struct {
	name string
	args func(path string) []string
}

var outputs = []output{
	{"results json", func(p string) []string { return []string{"--set", "sinks[0].path=" + p} }},
	{"results csv", func(p string) []string { return []string{"--set", "sinks[1].path=" + p} }},
	{"jsonl history", func(p string) []string { return []string{"--set", "sinks[2].path=" + p} }},
	{"examples jsonl", func(p string) []string { return []string{"--set", "sinks[3].path=" + p} }},
	{"examples parquet", func(p string) []string {
		return []string{"--set", "sinks[3].path=" + p, "--set", "sinks[3].format=parquet"}
	}},
	{"dead letters", func(p string) []string { return []string{"--set", "pipeline.dead_letter.path=" + p} }},
	{"state", func(p string) []string { return []string{"--save-state", p} }},
}

func outputsDir(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, "in.jsonl", corpusLines(600, 1))
	write(t, dir, "c.yaml", outputsConfig)
	return dir
}

// The run writes all its outputs or none: a good run for reference.
func TestOutputsOfAGoodRun(t *testing.T) {
	dir := outputsDir(t)
	r := run(t, dir, "run", "-c", "c.yaml", "--save-state", "out/s.state")
	require.Equal(t, 0, r.code, r.stderr)
	got := files(t, filepath.Join(dir, "out"))
	require.ElementsMatch(t, []string{"r.json", "r.csv", "history.jsonl", "ex.jsonl", "dead.jsonl", "s.state"}, got)
	for _, f := range got {
		st, err := os.Stat(filepath.Join(dir, "out", f))
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(4096), "%s must be over a page for the full-disk cases", f)
	}

	// A pipe (here /dev/stdout) is written in place, not replaced by a renamed file.
	before, err := os.Lstat("/dev/stdout")
	require.NoError(t, err)
	r = run(t, dir, "run", "-c", "c.yaml", "--set", "sinks[0].path=/dev/stdout")
	require.Equal(t, 0, r.code, r.stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.EqualValues(t, 588, res["records"])
	after, err := os.Lstat("/dev/stdout")
	require.NoError(t, err)
	require.Equal(t, before.Mode(), after.Mode(), "/dev/stdout is what it was")
	requireNoTempIn(t, "/dev")
}

// Every output written to /dev/full (writes fail with ENOSPC): exit 1, the message names
// /dev/full and the cause, no other output appears, and /dev/full is still the device
// (an atomic write must not rename a temporary file over it, which root may do).
func TestOutputToDevFull(t *testing.T) {
	st, err := os.Stat("/dev/full")
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("no /dev/full device here (%v)", err)
	}
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			dir := outputsDir(t)
			r := run(t, dir, append([]string{"run", "-c", "c.yaml"}, o.args("/dev/full")...)...)
			require.Equal(t, 1, r.code, r.stderr)
			t.Logf("exit %d: %s", r.code, r.firstLine())
			require.Regexp(t, `^evalstream: .*/dev/full: no space left on device$`, r.firstLine())
			requireNoOutputs(t, filepath.Join(dir, "out"))
			st, err := os.Stat("/dev/full")
			require.NoError(t, err)
			require.NotZero(t, st.Mode()&os.ModeCharDevice, "/dev/full is still a device")
			requireNoTempIn(t, "/dev")
		})
	}
}

// mountTmpfs mounts a small tmpfs at dir (root only) and unmounts it at cleanup.
func mountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
		t.Skipf("cannot mount a tmpfs at %s (%v): this case needs root (CI runs as root)", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
}

// fill fills the file system of dir, then frees one page: a write of more than a page
// starts, then fails with ENOSPC.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	require.NoError(t, err)
	defer f.Close()
	page := make([]byte, 4096)
	for {
		if _, err := f.Write(page); err != nil {
			require.ErrorIs(t, err, syscall.ENOSPC)
			break
		}
	}
	st, err := f.Stat()
	require.NoError(t, err)
	require.NoError(t, f.Truncate(st.Size()/4096*4096-4096))
}

// Every output on a full file system: exit 1 with "no space left on device", the other
// outputs do not appear, nothing partial or temporary is left on the full file system, and
// a JSONL history there keeps exactly its previous lines (a partial line would corrupt it).
func TestOutputOnAFullFileSystem(t *testing.T) {
	for _, o := range outputs {
		t.Run(o.name, func(t *testing.T) {
			dir := outputsDir(t)
			full := filepath.Join(dir, "full")
			mountTmpfs(t, full, "size=256k")
			history := `{"time":"2026-01-01T00:00:00Z","config_signature":"sha256:x","results":{}}` + "\n"
			if o.name == "results csv" {
				// Rows are appended to a CSV file only under its own header.
				history = "time,run,slice,metric,type,class,predicted,stat,value,records,reason,signature\n2026-01-01T00:00:00Z,c,,bleu,bleu,,,,0.5,3,,s\n"
			}
			write(t, full, "out.jsonl", history)
			fill(t, full)
			r := run(t, dir, append([]string{"run", "-c", "c.yaml"}, o.args("full/out.jsonl")...)...)
			require.Equal(t, 1, r.code, r.stderr)
			t.Logf("exit %d: %s", r.code, r.firstLine())
			require.Regexp(t, `^evalstream: .*full/out.jsonl: no space left on device$`, r.firstLine())
			requireNoOutputs(t, filepath.Join(dir, "out"))
			require.ElementsMatch(t, []string{"filler", "out.jsonl"}, files(t, full))
			b, err := os.ReadFile(filepath.Join(full, "out.jsonl"))
			require.NoError(t, err)
			require.Equal(t, history, string(b), "the file on the full disk is unchanged")
		})
	}
}

// Outputs that cannot be written at all fail the run before it reads its input, with
// exit 1 and a message naming the path: a read-only directory, a path that is a
// directory, a directory that is a file.
func TestOutputThatCannotBeWritten(t *testing.T) {
	for _, o := range outputs {
		t.Run(o.name+" in a read-only directory", func(t *testing.T) {
			dir := outputsDir(t)
			ro := filepath.Join(dir, "ro")
			want := "permission denied"
			if os.Geteuid() == 0 { // root writes whatever the mode: use a read-only mount
				mountTmpfs(t, ro, "size=64k")
				require.NoError(t, syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""))
				want = "read-only file system"
			} else {
				require.NoError(t, os.Mkdir(ro, 0o555))
			}
			r := run(t, dir, append([]string{"run", "-c", "c.yaml"}, o.args("ro/x.out")...)...)
			require.Equal(t, 1, r.code, r.stderr)
			t.Logf("exit %d: %s", r.code, r.firstLine())
			require.Regexp(t, `^evalstream: .*ro/x.out: `+want+`$`, r.firstLine())
			requireNoOutputs(t, filepath.Join(dir, "out"))
			requireNoOutputs(t, ro)
		})
		t.Run(o.name+" is a directory", func(t *testing.T) {
			dir := outputsDir(t)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "out", "isdir"), 0o755))
			r := run(t, dir, append([]string{"run", "-c", "c.yaml"}, o.args("out/isdir")...)...)
			require.Equal(t, 1, r.code, r.stderr)
			t.Logf("exit %d: %s", r.code, r.firstLine())
			require.Regexp(t, `^evalstream: .*out/isdir: is a directory$`, r.firstLine())
			requireNoOutputs(t, filepath.Join(dir, "out"))
		})
		t.Run(o.name+" under a file", func(t *testing.T) {
			dir := outputsDir(t)
			r := run(t, dir, append([]string{"run", "-c", "c.yaml"}, o.args("in.jsonl/x.out")...)...)
			require.Equal(t, 1, r.code, r.stderr)
			t.Logf("exit %d: %s", r.code, r.firstLine())
			require.Regexp(t, `^evalstream: .*in.jsonl/x.out: .*not a directory$`, r.firstLine())
			requireNoOutputs(t, filepath.Join(dir, "out"))
		})
	}
	// A Kafka run checks its file outputs before it connects (nothing listens on port 1).
	dir := outputsDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "out", "isdir"), 0o755))
	write(t, dir, "k.yaml", `
source: {type: kafka, brokers: ["127.0.0.1:1"], topic: t, group: g}
pipeline: {on_error: dead_letter, dead_letter: {path: out/dead.jsonl}}
metrics: [{type: bleu}]
sinks: [{type: json, path: out/r.json}, {type: jsonl, path: out/h.jsonl}]
`)
	for _, args := range [][]string{
		{"--set", "sinks[0].path=out/isdir"},
		{"--set", "sinks[1].path=out/isdir"},
		{"--set", "pipeline.dead_letter.path=out/isdir"},
		{"--save-state", "out/isdir"},
	} {
		r := run(t, dir, append([]string{"run", "-c", "k.yaml"}, args...)...)
		require.Equal(t, 1, r.code, r.stderr)
		require.Regexp(t, `^evalstream: write out/isdir: is a directory$`, r.firstLine())
		requireNoOutputs(t, filepath.Join(dir, "out"))
	}

	// merge writes a state too.
	r := run(t, dir, "run", "-c", "c.yaml", "--save-state", "s.state")
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "isdir"), 0o755))
	for _, tc := range []struct{ out, want string }{
		{"/dev/full", `^evalstream: write /dev/full: no space left on device$`},
		{"isdir", `^evalstream: write isdir: is a directory$`},
		{"s.state/x", `^evalstream: create directory for s.state/x: .*not a directory$`},
	} {
		r := run(t, dir, "merge", "-o", tc.out, "s.state") // one state: merging it with itself is refused
		require.Equal(t, 1, r.code, r.stderr)
		require.Regexp(t, tc.want, r.firstLine())
		requireNoTempIn(t, dir)
	}
	_, err := os.Stat(filepath.Join(dir, "isdir"))
	require.False(t, errors.Is(err, os.ErrNotExist))
}
