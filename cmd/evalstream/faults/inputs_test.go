//go:build linux

package faults

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const goodLine = `{"prediction": "the cat sat", "references": ["the cat sat on the mat"]}` + "\n"

// gzipBomb writes 1 GiB of zeros (one line without a newline), then a newline and a good
// record, gzip-compressed to about 1 MiB: 16 gzip members of 64 MiB of zeros each (a
// multi-member file is one stream to every gzip reader) are cheaper to build than one.
func gzipBomb(t *testing.T, path string) {
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestCompression)
	require.NoError(t, err)
	zeros := make([]byte, 1<<20)
	for i := 0; i < 64; i++ {
		_, err := zw.Write(zeros)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	for i := 0; i < 16; i++ {
		_, err := f.Write(member.Bytes())
		require.NoError(t, err)
	}
	zw = gzip.NewWriter(f)
	_, err = zw.Write([]byte("\n" + goodLine))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	st, err := f.Stat()
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(2<<20), "a bomb: 1 GiB in about 1 MiB")
}

// hugeLine writes a JSON record whose prediction is a string of 1 GiB, then a good record.
// The file is sparse: the string's bytes are a hole, which costs neither disk nor time.
func hugeLine(t *testing.T, path string) {
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteString(`{"prediction": "`)
	require.NoError(t, err)
	_, err = f.Seek(1<<30, 1)
	require.NoError(t, err)
	_, err = f.WriteString(`", "references": ["x"]}` + "\n" + goodLine)
	require.NoError(t, err)
}

// deepNesting writes records nested 100,000 levels deep in every way a record can be:
// a requested field, a field no metric reads, objects, and a top-level array.
func deepNesting(t *testing.T, path string) {
	const n = 100000
	open, close := strings.Repeat("[", n), strings.Repeat("]", n)
	lines := []string{
		`{"prediction": ` + open + close + `, "references": ["a b"]}`,
		`{"other": ` + open + close + `, "prediction": "a b", "references": ["a b"]}`,
		`{"other": ` + strings.Repeat(`{"a":`, n) + `1` + strings.Repeat("}", n) + `, "prediction": "a b", "references": ["a b"]}`,
		`{"references": ` + open + `"x"` + close + `, "prediction": "a b"}`,
		open + close,
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"+goodLine), 0o644))
}

// Inputs built to exhaust memory are bad records (counted under on_error: skip, a clear
// error under on_error: fail), and the run's peak RSS stays within twice the configured
// max_record_bytes above the peak of the same run on a one-record file.
func TestAdversarialInputs(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "tiny.jsonl", goodLine)
	write(t, dir, "c.yaml", `
source: {type: file, path: tiny.jsonl}
pipeline: {on_error: skip}
metrics: [{type: bleu}]
sinks: [{type: json, path: out/r.json}]
`)
	gzipBomb(t, filepath.Join(dir, "bomb.jsonl.gz"))
	hugeLine(t, filepath.Join(dir, "huge.jsonl"))
	deepNesting(t, filepath.Join(dir, "deep.jsonl"))

	for _, tc := range []struct {
		name, file string
		limit      int // max_record_bytes
		fail       string
		errors     map[string]int64
	}{
		{"gzip bomb", "bomb.jsonl.gz", 16 << 20,
			`^evalstream: bad record at bomb.jsonl.gz:1: record too large: record of 1073741824 bytes exceeds the limit of 16777216 bytes$`,
			map[string]int64{"record too large": 1}},
		{"1 GiB line", "huge.jsonl", 16 << 20,
			`^evalstream: bad record at huge.jsonl:1: record too large: record of 1073741863 bytes exceeds the limit of 16777216 bytes$`,
			map[string]int64{"record too large": 1}},
		{"1 GiB line, 64 MiB limit", "huge.jsonl", 64 << 20,
			`^evalstream: bad record at huge.jsonl:1: record too large: record of 1073741863 bytes exceeds the limit of 67108864 bytes$`,
			map[string]int64{"record too large": 1}},
		{"nested 100,000 deep", "deep.jsonl", 16 << 20,
			`^evalstream: bad record at deep.jsonl:1: invalid json: exceeded max depth: arrays and objects nested more than 10000 levels deep at column 10015$`,
			map[string]int64{"invalid json": 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := []string{"--set", "source.max_record_bytes=" + itoa(tc.limit)}
			base := runRSS(t, dir, append([]string{"run", "-c", "c.yaml", "--set", "sinks[0].path=base/r.json"}, set...)...)
			require.Equal(t, 0, base.code, base.stderr)

			r := runRSS(t, dir, append([]string{"run", "-c", "c.yaml", "--set", "source.path=" + tc.file, "--set", "pipeline.on_error=fail"}, set...)...)
			require.Equal(t, 1, r.code, r.stderr)
			require.Regexp(t, tc.fail, r.firstLine())
			requireNoOutputs(t, filepath.Join(dir, "out"))
			t.Logf("on_error fail: exit %d: %s; peak RSS %d MiB (one-record run %d MiB)", r.code, r.firstLine(), r.maxRSS>>20, base.maxRSS>>20)
			require.Less(t, r.maxRSS-base.maxRSS, int64(2*tc.limit), "peak RSS within twice max_record_bytes")

			r = runRSS(t, dir, append([]string{"run", "-c", "c.yaml", "--set", "source.path=" + tc.file, "--set", "sinks[0].path=out/skip.json"}, set...)...)
			require.Equal(t, 0, r.code, r.stderr)
			t.Logf("on_error skip: peak RSS %d MiB", r.maxRSS>>20)
			require.Less(t, r.maxRSS-base.maxRSS, int64(2*tc.limit), "peak RSS within twice max_record_bytes")
			var res struct {
				Records int64            `json:"records"`
				Skipped int64            `json:"skipped"`
				Errors  map[string]int64 `json:"errors"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "out/skip.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &res))
			require.Equal(t, int64(1), res.Records, "the good record after the bad one is scored")
			require.Equal(t, tc.errors, res.Errors)
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "out")))
		})
	}
}
