package sources

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks/corpus"
	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// drainDeferred reads a source like drain, but with a context asking for deferred decoding
// (and columns when columns is set). Each batch is decoded on another goroutine, as a worker
// would, and its columns (if any) are checked against the decoded records.
func drainDeferred(t testing.TB, src pipeline.Source, columns bool) (drained, int) {
	t.Helper()
	ctx := pipeline.WithDeferredDecode(context.Background())
	if columns {
		ctx = pipeline.WithColumns(context.Background())
	}
	var d drained
	colBatches := 0
	for {
		b, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		cols := b.Columns
		if !columns {
			require.Nil(t, cols)
		}
		if cols != nil {
			colBatches++
			require.Empty(t, b.Records, "a columnar batch builds its records in Decode")
			require.NotNil(t, b.Decode)
		}
		done := make(chan error)
		go func() { done <- pipeline.DecodeBatch(b) }()
		require.NoError(t, <-done)
		require.Nil(t, b.Decode)
		require.NoError(t, pipeline.DecodeBatch(b)) // a no-op once decoded
		require.NotEmpty(t, b.Records)
		if cols != nil {
			require.Equal(t, cols.N, len(b.Records))
			for f, col := range cols.Ints {
				if col == nil {
					continue
				}
				for i, r := range b.Records {
					require.Equal(t, core.Value{Kind: core.Int, Int: col[i]}, r.Values[f])
				}
			}
		}
		d.sizes = append(d.sizes, len(b.Records))
		d.files = append(d.files, b.Records[0].Pos.File)
		d.bytes += b.Bytes
		for _, r := range b.Records {
			g := gotRec{Seq: r.Seq, File: r.Pos.File, Row: r.Pos.Row, Vals: canonAll(r.Values), Raw: string(r.Raw)}
			if r.Err != nil {
				g.Err = r.Err.Error()
			}
			d.recs = append(d.recs, g)
		}
		if b.Release != nil {
			b.Release()
		}
	}
	require.NoError(t, src.Close())
	return d, colBatches
}

// requireSameRecords checks that deferred decoding gave the records of eager decoding.
func requireSameRecords(t *testing.T, want, got drained, sameBatches bool, msg string) {
	t.Helper()
	require.Equal(t, len(want.recs), len(got.recs), msg)
	for i := range want.recs {
		require.Equal(t, want.recs[i], got.recs[i], "%s: record %d", msg, i)
	}
	require.Equal(t, want.bytes, got.bytes, msg)
	if sameBatches {
		require.Equal(t, want.sizes, got.sizes, msg)
	}
}

func TestDeferredDecodeAgrees(t *testing.T) {
	dir := t.TempDir()
	recs := testCorpus(1500, 7)
	fields := []string{"prediction", "references", "tokens", "label", "score", "scores", "ok", "maybe", "absent"}
	for _, name := range []string{"c.jsonl", "c.ndjson.gz", "c.arrow", "c.arrows", "c.parquet"} {
		path := filepath.Join(dir, name)
		// Batches of 4096 records span the Parquet file's two row groups as they span the
		// Arrow files' two record batches (Write would put 1,500 records in one row group).
		require.NoError(t, corpus.WriteChunks(path, recs, corpus.Chunk))
		for _, bs := range []int{1, 13, 4096} {
			for _, columns := range []bool{false, true} {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				src, err := openFiles(FileConfig{Path: path}, fields, bs, 0, mem)
				require.NoError(t, err)
				want := drain(t, src)
				src, err = openFiles(FileConfig{Path: path}, fields, bs, 0, mem)
				require.NoError(t, err)
				got, _ := drainDeferred(t, src, columns)
				mem.AssertSize(t, 0)
				// In columns mode, batches of Arrow and Parquet files end at record batches
				// (and columnar ones may be larger).
				requireSameRecords(t, want, got, !columns || strings.Contains(name, "json"), fmt.Sprintf("%s batch %d columns %v", name, bs, columns))
				for _, s := range got.sizes {
					require.LessOrEqual(t, s, max(bs, arrowsrc.ColumnarRows))
				}
			}
		}
	}
}

func TestDeferredDecodeJSONLBadLines(t *testing.T) {
	dir := t.TempDir()
	big := `{"a":"` + strings.Repeat("x", 300) + `"}`
	content := "\xEF\xBB\xBF" + `{"a":"1","b":2}` + "\r\n\n" + `{"a":` + "\n" + big + "\n  \n" +
		`{"a":"\u00e9\ud83d\ude00","b":[1,2]}` + "\n" + `{"a":"` + "\xff" + `"}` + "\n" + `[1]` + "\n" + `{"b":3}`
	for _, name := range []string{"bad.jsonl", "bad.jsonl.gz"} {
		text := content
		if strings.HasSuffix(name, ".gz") {
			text = gzipped(t, content)
		}
		p := writeFile(t, filepath.Join(dir, name), text)
		for _, limit := range []int{0, 100} {
			for _, bs := range []int{1, 2, 100} {
				src, err := OpenFiles(FileConfig{Path: p}, []string{"a", "b", "a"}, bs, limit)
				require.NoError(t, err)
				want := drain(t, src)
				src, err = OpenFiles(FileConfig{Path: p}, []string{"a", "b", "a"}, bs, limit)
				require.NoError(t, err)
				got, cb := drainDeferred(t, src, true)
				require.Zero(t, cb, "JSON Lines batches are never columnar")
				requireSameRecords(t, want, got, true, fmt.Sprintf("%s limit %d batch %d", name, limit, bs))
				require.NotEmpty(t, want.recs[1].Err)
			}
		}
	}
}

func TestColumnarArrowBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint8}
	dir := t.TempDir()
	for ti, typ := range types {
		schema := []arrow.Field{{Name: "p", Type: typ, Nullable: true}, {Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}
		var rs []arrow.Record
		k := 0
		for _, size := range []int{5, 1, 0, 20, 7} {
			var rows []string
			for i := 0; i < size; i++ {
				if k == 31 {
					rows = append(rows, `{"p":null,"l":1}`)
				} else {
					rows = append(rows, fmt.Sprintf(`{"p":%d,"l":%d}`, k%100, (k*7)%100))
				}
				k++
			}
			rs = append(rs, recordFromJSON(t, mem, schema, "["+strings.Join(rows, ",")+"]"))
		}
		for _, format := range []string{FormatArrow, FormatArrows, FormatParquet} {
			path := filepath.Join(dir, fmt.Sprintf("t%d.%s", ti, format))
			writeArrowFile(t, path, format, rs...)
			for _, bs := range []int{1, 4, 4096} {
				for _, fields := range [][]string{{"l", "p"}, {"p", "l", "missing"}} {
					for _, limit := range []int{0, 12} {
						src, err := openFiles(FileConfig{Path: path}, fields, bs, limit, mem)
						require.NoError(t, err)
						want := drain(t, src)
						src, err = openFiles(FileConfig{Path: path}, fields, bs, limit, mem)
						require.NoError(t, err)
						got, cb := drainDeferred(t, src, true)
						msg := fmt.Sprintf("%s %s batch %d fields %v limit %d", typ, format, bs, fields, limit)
						requireSameRecords(t, want, got, false, msg)
						if len(fields) == 2 && limit == 0 {
							require.NotZero(t, cb, msg)
						} else {
							require.Zero(t, cb, msg)
						}
						for _, s := range got.sizes {
							require.LessOrEqual(t, s, max(bs, arrowsrc.ColumnarRows), msg)
						}
					}
				}
			}
		}
		for _, r := range rs {
			r.Release()
		}
	}
}

// With the default allocator, Arrow IPC message bodies come from arrowBodies and are
// recycled across batches and files: the records read are the same.
func TestRecycledBodiesGiveSameRecords(t *testing.T) {
	dir := t.TempDir()
	recs := testCorpus(3000, 9)
	fields := []string{"prediction", "references", "tokens", "label", "score", "scores", "ok", "maybe"}
	for _, name := range []string{"c.arrow", "c.arrows"} {
		path := filepath.Join(dir, name)
		require.NoError(t, corpus.Write(path, recs))
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		src, err := openFiles(FileConfig{Path: path}, fields, 100, 0, mem)
		require.NoError(t, err)
		want := drain(t, src)
		for round := 0; round < 3; round++ {
			for _, columns := range []bool{false, true} {
				src, err := OpenFiles(FileConfig{Path: path}, fields, 100, 0)
				require.NoError(t, err)
				got, _ := drainDeferred(t, src, columns)
				requireSameRecords(t, want, got, !columns, fmt.Sprintf("%s round %d columns %v", name, round, columns))
			}
			src, err := OpenFiles(FileConfig{Path: path}, fields, 100, 0)
			require.NoError(t, err)
			requireSameRecords(t, want, drain(t, src), true, fmt.Sprintf("%s round %d", name, round))
		}
	}
}

func TestDeferredLineBuffersRecycled(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	n := 0
	for sb.Len() < 5*fileread.LineChunkSize {
		s := strings.Repeat(string(rune('a'+n%26)), 1+(n*7919)%3000)
		if n%500 == 0 {
			s = strings.Repeat("L", fileread.LineChunkSize+n) // longer than a buffer
		}
		fmt.Fprintf(&sb, `{"s":"%s","n":%d}`+"\n", s, n)
		n++
	}
	for _, name := range []string{"long.jsonl", "long.jsonl.gz"} {
		content := sb.String()
		if strings.HasSuffix(name, ".gz") {
			content = gzipped(t, content)
		}
		p := writeFile(t, filepath.Join(dir, name), content)
		src, err := OpenFiles(FileConfig{Path: p}, []string{"s", "n"}, 7, 0)
		require.NoError(t, err)
		want := drain(t, src)
		require.Len(t, want.recs, n)
		// Hold up to 10 batches before releasing them, checking their lines when released.
		src, err = OpenFiles(FileConfig{Path: p}, []string{"s", "n"}, 7, 0)
		require.NoError(t, err)
		ctx := pipeline.WithDeferredDecode(context.Background())
		var held []*pipeline.Batch
		var got []gotRec
		flush := func(keep int) {
			for len(held) > keep {
				b := held[0]
				held = held[1:]
				for _, r := range b.Records {
					got = append(got, gotRec{Seq: r.Seq, File: r.Pos.File, Row: r.Pos.Row, Vals: canonAll(r.Values), Raw: string(r.Raw)})
				}
				b.Release()
			}
		}
		for {
			b, err := src.Next(ctx)
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			require.NoError(t, pipeline.DecodeBatch(b))
			held = append(held, b)
			flush(10)
		}
		flush(0)
		require.NoError(t, src.Close())
		require.Equal(t, len(want.recs), len(got))
		for i := range got {
			require.Equal(t, want.recs[i], got[i], "%s record %d", name, i)
		}
	}
}
