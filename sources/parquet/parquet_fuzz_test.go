package parquet

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/schema"
	"github.com/stretchr/testify/require"
)

// parquetFuzzSeeds returns small valid Parquet files: the Parquet-able typeCases (pqarrow's
// writer), the legacy list forms (data pages v1 and, compressed, v2) and fixtures of pyarrow
// and duckdb. A corpus of two-row row groups written by evalstream's own corpus writer
// (sinks/corpus, from the test corpus of package sources, which this package's tests cannot
// import) is the committed seed testdata/fuzz/FuzzParquetFile/corpus_writer.
func parquetFuzzSeeds(f testing.TB) [][]byte {
	dir := f.TempDir()
	var paths []string
	var p string
	var cases []typeCase
	for _, c := range typeCases {
		if c.Parquet {
			cases = append(cases, c)
		}
	}
	rec := allTypesRecord(f, memory.NewGoAllocator(), cases, 1)
	defer rec.Release()
	p = filepath.Join(dir, "types.parquet")
	writeArrowFile(f, p, FormatParquet, rec)
	paths = append(paths, p)
	var nodes schema.FieldList
	var cols []rawColumn
	for _, c := range legacyColumns {
		nodes = append(nodes, c.node)
		cols = append(cols, c.cols...)
	}
	root := schema.MustGroup(schema.NewGroupNode("schema", req, nodes, -1))
	for i, opts := range [][]parquet.WriterProperty{nil, {parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy)}} {
		p = filepath.Join(dir, fmt.Sprintf("legacy%d.parquet", i))
		writeRawParquet(f, p, root, cols, 1, 2, opts...)
		paths = append(paths, p)
	}
	// Files of the real writers: LZ4_RAW, BYTE_STREAM_SPLIT, DELTA encodings, decimals.
	for _, name := range []string{"pa_lz4_v2", "pa_bss_v1", "pa_delta_v2_snappy", "duck_v2", "pa_none_v1_plaindict"} {
		paths = append(paths, filepath.Join("testdata", "parquet", name+".parquet"))
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzParquetFile feeds arbitrary bytes as a Parquet file: a clean read or an error naming
// the file and wrapping ErrCorrupt; never a panic, a hang or an allocation the file cannot
// justify.
func FuzzParquetFile(f *testing.F) {
	for _, s := range parquetFuzzSeeds(f) {
		f.Add(s)
	}
	fields := []string{"prediction", "references", "tokens", "label", "score", "scores", "ok", "maybe"}
	for _, c := range typeCases {
		fields = append(fields, c.Name)
	}
	for _, c := range legacyColumns {
		fields = append(fields, c.node.Name())
	}
	fields = append(fields, interopFields...)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, fmt.Sprintf("f%d.parquet", os.Getpid()))
		require.NoError(t, os.WriteFile(p, data, 0o644))
		done := make(chan error, 1)
		go func() { done <- readAllErr(p, fields) }()
		select {
		case err := <-done:
			if err != nil {
				require.Contains(t, err.Error(), p)
				require.ErrorIs(t, err, ErrCorrupt)
			}
		case <-time.After(20 * time.Second):
			stacks := make([]byte, 1<<20)
			t.Fatalf("reading %d bytes hangs:\n%s", len(data), stacks[:runtime.Stack(stacks, true)])
		}
	})
}
