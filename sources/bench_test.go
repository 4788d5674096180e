package sources

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks/corpus"
	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/evalstream/evalstream/sources/internal/valtest"
)

func benchSentence(r *rand.Rand, n int) string { return valtest.BenchSentence(r, n) }

func benchLines(n int) [][]byte { return valtest.BenchLines(n) }

func drainBench(b *testing.B, src pipeline.Source) int {
	return drainBenchCtx(b, src, context.Background())
}

func drainBenchCtx(b *testing.B, src pipeline.Source, ctx context.Context) int {
	n := 0
	for {
		batch, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		n += len(batch.Records)
		if batch.Release != nil {
			batch.Release()
		}
	}
	if err := src.Close(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkJSONLFile reads a JSON Lines file end to end (I/O, line splitting, batches).
func BenchmarkJSONLFile(b *testing.B) {
	for _, gz := range []bool{false, true} {
		b.Run(fmt.Sprintf("gzip=%v", gz), func(b *testing.B) {
			content := append(bytes.Join(benchLines(50000), []byte("\n")), '\n')
			path := filepath.Join(b.TempDir(), "bench.jsonl")
			if gz {
				path += ".gz"
				var zb bytes.Buffer
				zw := gzip.NewWriter(&zb)
				zw.Write(content)
				zw.Close()
				content = zb.Bytes()
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				b.Fatal(err)
			}
			benchFile(b, path, []string{"prediction", "references", "label"})
		})
	}
	// What the reader goroutine of a run does: read and split lines, no decoding.
	b.Run("split-only", func(b *testing.B) {
		content := append(bytes.Join(benchLines(50000), []byte("\n")), '\n')
		path := filepath.Join(b.TempDir(), "bench.jsonl")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			b.Fatal(err)
		}
		benchFileCtx(b, path, []string{"prediction", "references", "label"}, pipeline.WithDeferredDecode(context.Background()))
	})
}

func benchFile(b *testing.B, path string, fields []string) {
	benchFileCtx(b, path, fields, context.Background())
}

func benchFileCtx(b *testing.B, path string, fields []string, ctx context.Context) {
	b.ReportAllocs()
	b.ResetTimer()
	records := 0
	var size int64
	for i := 0; i < b.N; i++ {
		src, err := OpenFiles(FileConfig{Path: path}, fields, 1024, 16<<20)
		if err != nil {
			b.Fatal(err)
		}
		size = src.(pipeline.Sizer).TotalBytes()
		records += drainBenchCtx(b, src, ctx)
	}
	b.SetBytes(size)
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

// stringRecord builds an Arrow record with a string column and a list<string> column.
func stringRecord(n int) arrow.Record {
	r := rand.New(rand.NewPCG(3, 4))
	mem := memory.NewGoAllocator()
	sb := array.NewStringBuilder(mem)
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for i := 0; i < n; i++ {
		sb.Append(benchSentence(r, 12))
		lb.Append(true)
		vb.Append(benchSentence(r, 14))
		vb.Append(benchSentence(r, 10))
	}
	s, l := sb.NewArray(), lb.NewArray()
	defer s.Release()
	defer l.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "prediction", Type: s.DataType()}, {Name: "references", Type: l.DataType()}}, nil)
	return array.NewRecord(schema, []arrow.Array{s, l}, int64(n))
}

// BenchmarkArrowStringColumn measures the zero-copy conversion of Arrow string and
// list<string> columns into record values (no I/O).
func BenchmarkArrowStringColumn(b *testing.B) {
	const n = 4096
	rec := stringRecord(n)
	defer rec.Release()
	for _, col := range []struct {
		name string
		idx  int
	}{{"string", 0}, {"list<string>", 1}} {
		b.Run(col.name, func(b *testing.B) {
			bb := fileread.NewBuilder("", 0, 1)
			for i := 0; i < n; i++ {
				bb.Add(int64(i), n)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bb.Ar = fileread.Arena{}
				arrowsrc.FillColumn(rec.Column(col.idx), 0, bb.Records, 0, &bb.Ar)
			}
			b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkArrowFile reads Arrow IPC files, streams and Parquet end to end.
func BenchmarkArrowFile(b *testing.B) {
	rec := stringRecord(50000)
	defer rec.Release()
	for _, format := range []string{FormatArrow, FormatArrows, FormatParquet} {
		b.Run(format, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "bench."+format)
			var recs []arrow.Record
			for off := int64(0); off < rec.NumRows(); off += 10000 {
				s := rec.NewSlice(off, off+10000)
				defer s.Release()
				recs = append(recs, s)
			}
			writeArrowFile(b, path, format, recs...)
			benchFile(b, path, []string{"prediction", "references"})
		})
	}
}

// BenchmarkArrowIntColumns reads integer columns (classification) as a run does: columns
// (aliasing the Arrow buffers, message bodies recycled) or records built on demand.
func BenchmarkArrowIntColumns(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ints.arrow")
	n := 1 << 20
	if err := corpus.WriteFunc(path, n, func(i int) map[string]any {
		return map[string]any{"prediction": int64(i % 5), "label": int64(i % 7)}
	}); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"columns", "deferred-records", "records"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			switch mode {
			case "columns":
				ctx = pipeline.WithColumns(ctx)
			case "deferred-records":
				ctx = pipeline.WithDeferredDecode(ctx)
			}
			b.ReportAllocs()
			rows := 0
			for i := 0; i < b.N; i++ {
				src, err := OpenFiles(FileConfig{Path: path}, []string{"prediction", "label"}, 1024, 0)
				if err != nil {
					b.Fatal(err)
				}
				for {
					batch, err := src.Next(ctx)
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if batch.Columns != nil {
						rows += batch.Columns.N
					} else {
						if err := pipeline.DecodeBatch(batch); err != nil {
							b.Fatal(err)
						}
						rows += len(batch.Records)
					}
					if batch.Release != nil {
						batch.Release()
					}
				}
				src.Close()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
