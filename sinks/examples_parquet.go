package sinks

import (
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/evalstream/evalstream/pipeline"
)

// parquetRowGroup is how many per-record rows are buffered before a row group is written.
const parquetRowGroup = 64 * 1024

// examplesParquet writes per-record scores as Parquet: seq, position, id (as text), slice
// and one nullable float64 column per metric. Rows are buffered one row group at a time.
type examplesParquet struct {
	f       *AtomicFile
	w       *pqarrow.FileWriter
	b       *array.RecordBuilder
	pending int
}

func newExamplesParquet(f *AtomicFile, metricNames []string) (*examplesParquet, error) {
	fields := []arrow.Field{
		{Name: "seq", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "position", Type: arrow.BinaryTypes.String},
		{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "slice", Type: arrow.BinaryTypes.String, Nullable: true},
	}
	for _, m := range metricNames {
		fields = append(fields, arrow.Field{Name: m, Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(parquetRowGroup))
	// The writer closes its sink; hide Close so that Commit can sync and rename the file.
	w, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{f}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("examples parquet: %w", err)
	}
	return &examplesParquet{f: f, w: w, b: array.NewRecordBuilder(memory.DefaultAllocator, schema)}, nil
}

func (p *examplesParquet) write(rows []pipeline.ExampleRow) error {
	for _, r := range rows {
		p.b.Field(0).(*array.Uint64Builder).Append(r.Seq)
		p.b.Field(1).(*array.StringBuilder).Append(r.Pos.String())
		if r.ID.Present() {
			p.b.Field(2).(*array.StringBuilder).Append(fmt.Sprint(ValueJSON(r.ID)))
		} else {
			p.b.Field(2).AppendNull()
		}
		if r.Slice != "" {
			p.b.Field(3).(*array.StringBuilder).Append(r.Slice)
		} else {
			p.b.Field(3).AppendNull()
		}
		for i, s := range r.Scores {
			fb := p.b.Field(4 + i).(*array.Float64Builder)
			if s == nil {
				fb.AppendNull()
			} else {
				fb.Append(*s)
			}
		}
		p.pending++
		if p.pending >= parquetRowGroup {
			if err := p.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *examplesParquet) flush() error {
	if p.pending == 0 {
		return nil
	}
	rec := p.b.NewRecord()
	defer rec.Release()
	p.pending = 0
	if err := p.w.Write(rec); err != nil {
		return fmt.Errorf("examples parquet: %w", err)
	}
	return nil
}

// close flushes the last row group and the footer; the AtomicFile stays open for Commit.
func (p *examplesParquet) close() error {
	defer p.b.Release()
	if err := p.flush(); err != nil {
		return err
	}
	if err := p.w.Close(); err != nil {
		return fmt.Errorf("examples parquet: %w", err)
	}
	return nil
}
