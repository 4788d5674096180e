package sources

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/sinks/corpus"
)

// fuzzArrowSeeds returns small valid files of the format, for the Arrow fuzz targets.
func fuzzArrowSeeds(f *testing.F, ext string) [][]byte {
	dir := f.TempDir()
	var out [][]byte
	p := filepath.Join(dir, "corpus."+ext)
	if err := corpus.WriteChunks(p, testCorpus(4, 7), 2); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	out = append(out, b)
	rec := allTypesRecord(f, memory.NewGoAllocator(), typeCases, 1)
	defer rec.Release()
	p = filepath.Join(dir, "types."+ext)
	writeArrowFile(f, p, ext, rec)
	if b, err = os.ReadFile(p); err != nil {
		f.Fatal(err)
	}
	return append(out, b)
}

func fuzzArrowFormat(f *testing.F, ext string) {
	for _, s := range fuzzArrowSeeds(f, ext) {
		f.Add(s)
	}
	fields := []string{"prediction", "references", "tokens", "label", "score", "scores", "ok", "maybe"}
	for _, c := range typeCases {
		fields = append(fields, c.Name)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, fmt.Sprintf("f%d.%s", os.Getpid(), ext))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		if err := readAllErr(p, fields); err != nil {
			require.Contains(t, err.Error(), p)
		}
	})
}

// FuzzArrowFile feeds arbitrary bytes as an Arrow IPC file: an error naming the file or a
// clean read, never a panic (nor an allocation the file cannot justify).
func FuzzArrowFile(f *testing.F) { fuzzArrowFormat(f, FormatArrow) }

// FuzzArrowStream is FuzzArrowFile for Arrow IPC streams.
func FuzzArrowStream(f *testing.F) { fuzzArrowFormat(f, FormatArrows) }

var updateSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite the seed corpora under testdata/fuzz")

// TestWriteFuzzSeeds regenerates the seed corpora: go test -run TestWriteFuzzSeeds
// -update-fuzz-seeds ./sources/
func TestWriteFuzzSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -update-fuzz-seeds to rewrite testdata/fuzz")
	}
	write := func(target string, i int, data []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(content), 0o644))
	}
	for _, ext := range []string{FormatArrow, FormatArrows} {
		target := map[string]string{FormatArrow: "FuzzArrowFile", FormatArrows: "FuzzArrowStream"}[ext]
		p := filepath.Join(t.TempDir(), "s."+ext)
		require.NoError(t, corpus.WriteChunks(p, testCorpus(2, 9), 1))
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		write(target, 0, b)
		write(target, 1, b[:len(b)*2/3]) // truncated
		c := append([]byte(nil), b...)
		c[len(c)/2] ^= 0xFF
		write(target, 2, c) // one corrupted byte
	}
}
