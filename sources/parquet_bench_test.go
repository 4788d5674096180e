package sources

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/pipeline"
)

// BenchmarkParquetRead reads a 200k-row Parquet file (a string column and a list<string>
// column, four row groups, written by pqarrow so that the input does not depend on our
// writer) end to end.
func BenchmarkParquetRead(b *testing.B) {
	const n, rg = 200000, 50000
	rec := stringRecord(n)
	defer rec.Release()
	var recs []arrow.Record
	for off := int64(0); off < n; off += rg {
		s := rec.NewSlice(off, off+rg)
		defer s.Release()
		recs = append(recs, s)
	}
	path := filepath.Join(b.TempDir(), "read.parquet")
	writeArrowFile(b, path, FormatParquet, recs...)
	benchFile(b, path, []string{"prediction", "references"})
}

// BenchmarkParquetClassification folds accuracy, macro F1 and a confusion matrix over 1M
// rows (int64 label and prediction of 10 classes, 80% right, plus an id string column the
// metrics do not read) from Parquet and from the same records as an Arrow IPC file, one
// after the other in each iteration, as the pipeline's workers do (columns when the batch
// has them, else decoded records). It reports the CPU-bound time of each and their ratio
// parquet/arrow (issue 19: Parquet cost about 6x Arrow's).
func BenchmarkParquetClassification(b *testing.B) {
	const n, rg = 1 << 20, 1 << 18
	dir := b.TempDir()
	rec := classRecord(n)
	defer rec.Release()
	var recs []arrow.Record
	for off := int64(0); off < n; off += rg {
		s := rec.NewSlice(off, off+rg)
		defer s.Release()
		recs = append(recs, s)
	}
	pq, ipc := filepath.Join(dir, "c.parquet"), filepath.Join(dir, "c.arrow")
	writeArrowFile(b, pq, FormatParquet, recs...)
	writeArrowFile(b, ipc, FormatArrow, recs...)
	var ms []*metrics.Metric
	for _, e := range []map[string]any{
		{"type": "accuracy"},
		{"type": "f1", "average": "macro", "num_classes": 10},
		{"type": "confusion_matrix", "num_classes": 10},
	} {
		m, err := metrics.New(e)
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	plan := pipeline.NewPlan(ms, nil)
	var tpq, tipc time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		foldFile(b, pq, plan, n)
		t1 := time.Now()
		foldFile(b, ipc, plan, n)
		tpq, tipc = tpq+t1.Sub(t0), tipc+time.Since(t1)
	}
	b.ReportMetric(float64(tpq.Nanoseconds())/float64(b.N)/n, "parquet-ns/row")
	b.ReportMetric(float64(tipc.Nanoseconds())/float64(b.N)/n, "arrow-ns/row")
	b.ReportMetric(float64(tpq)/float64(tipc), "parquet/arrow")
}

// classRecord is n rows of id (string), label and prediction (int64 class ids 0..9).
func classRecord(n int) arrow.Record {
	r := rand.New(rand.NewPCG(19, 1))
	mem := memory.NewGoAllocator()
	ib, lb, pb := array.NewStringBuilder(mem), array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	for i := 0; i < n; i++ {
		ib.Append(fmt.Sprintf("ex-%08d", i))
		l := r.Int64N(10)
		lb.Append(l)
		if r.Float64() < 0.2 {
			l = r.Int64N(10)
		}
		pb.Append(l)
	}
	cols := []arrow.Array{ib.NewArray(), lb.NewArray(), pb.NewArray()}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "label", Type: arrow.PrimitiveTypes.Int64},
		{Name: "prediction", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecord(schema, cols, int64(n))
}

// foldFile folds the records of path into a fresh accumulator on one goroutine, as a
// pipeline worker folds batches, and checks that all n were folded.
func foldFile(b *testing.B, path string, plan *pipeline.Plan, n int) {
	src, err := OpenFiles(FileConfig{Path: path}, plan.Fields, DefaultBatchSize, 16<<20)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	ctx := pipeline.WithColumns(context.Background())
	f, acc := pipeline.NewFolder(plan), pipeline.NewAccumulator(plan)
	for {
		batch, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if batch.Columns == nil || !f.FoldColumns(acc, batch.Columns) {
			if err := pipeline.DecodeBatch(batch); err != nil {
				b.Fatal(err)
			}
			for i := range batch.Records {
				if rej := f.Check(&batch.Records[i]); rej != nil {
					b.Fatal(rej)
				}
				f.Add(acc, &batch.Records[i], 1)
			}
		}
		if batch.Release != nil {
			batch.Release()
		}
	}
	if acc.Records != int64(n) {
		b.Fatalf("%s: folded %d records, want %d", path, acc.Records, n)
	}
}
