package sinks

import (
	"bufio"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"

	"github.com/evalstream/evalstream/pipeline"
)

// parquetRowGroup is how many per-record rows are buffered before a row group is written.
const parquetRowGroup = 64 * 1024

// examplesParquet writes per-record scores as Parquet: seq (required uint64), position
// (required string), id (as text) and slice (optional strings) and one optional double
// column per metric. Rows are buffered one row group at a time and written column by column
// with parquet/file (pqarrow, with its Arrow builders, would link arrow/compute, flight and
// grpc into the binary and slow its start-up). It is used by one goroutine.
type examplesParquet struct {
	f       *AtomicFile
	buf     *bufio.Writer
	w       *file.Writer
	seq     []int64 // uint64 bits
	pos     []parquet.ByteArray
	id      optional[parquet.ByteArray]
	slice   optional[parquet.ByteArray]
	scores  []optional[float64]
	pending int
}

// optional holds the values of an optional column and its definition levels (0: null).
type optional[T any] struct {
	vals []T
	defs []int16
}

func (c *optional[T]) add(v T, ok bool) {
	if ok {
		c.vals = append(c.vals, v)
	}
	c.defs = append(c.defs, int16(btoi(ok)))
}

func (c *optional[T]) reset() { c.vals, c.defs = c.vals[:0], c.defs[:0] }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func newExamplesParquet(f *AtomicFile, metricNames []string) (*examplesParquet, error) {
	// The node constructors fail only on invalid type combinations, which these are not.
	req, opt := parquet.Repetitions.Required, parquet.Repetitions.Optional
	text := func(name string, rep parquet.Repetition) schema.Node {
		return schema.MustPrimitive(schema.NewPrimitiveNodeLogical(name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1))
	}
	nodes := schema.FieldList{
		schema.MustPrimitive(schema.NewPrimitiveNodeLogical("seq", req, schema.NewIntLogicalType(64, false), parquet.Types.Int64, -1, -1)),
		text("position", req), text("id", opt), text("slice", opt),
	}
	for _, m := range metricNames {
		nodes = append(nodes, schema.MustPrimitive(schema.NewPrimitiveNode(m, opt, parquet.Types.Double, -1, -1)))
	}
	props := parquet.NewWriterProperties()
	root := schema.MustGroup(schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1))
	// The writer closes its sink; hide Close so that Commit can sync and rename the file.
	// It panics when the magic number it writes first cannot be written (a full disk): the
	// buffer takes it, and write errors surface, as errors, when a row group is flushed.
	buf := bufio.NewWriterSize(f, 1<<16)
	w := file.NewParquetWriter(struct{ io.Writer }{buf}, root, file.WithWriterProps(props))
	return &examplesParquet{f: f, buf: buf, w: w, scores: make([]optional[float64], len(metricNames))}, nil
}

func (p *examplesParquet) write(rows []pipeline.ExampleRow) error {
	for _, r := range rows {
		p.seq = append(p.seq, int64(r.Seq))
		p.pos = append(p.pos, parquet.ByteArray(r.Pos.String()))
		var id parquet.ByteArray
		if r.ID.Present() {
			id = parquet.ByteArray(fmt.Sprint(ValueJSON(r.ID)))
		}
		p.id.add(id, r.ID.Present())
		p.slice.add(parquet.ByteArray(r.Slice), r.Slice != "")
		for i, s := range r.Scores {
			var v float64
			if s != nil {
				v = *s
			}
			p.scores[i].add(v, s != nil)
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

// flush writes the buffered rows as a row group.
func (p *examplesParquet) flush() error {
	if p.pending == 0 {
		return nil
	}
	rg := p.w.AppendRowGroup()
	err := writeColumn(rg, func(cw file.ColumnChunkWriter) (int64, error) {
		return cw.(*file.Int64ColumnChunkWriter).WriteBatch(p.seq, nil, nil)
	})
	for _, c := range []*optional[parquet.ByteArray]{{vals: p.pos}, &p.id, &p.slice} {
		if err == nil {
			err = writeColumn(rg, func(cw file.ColumnChunkWriter) (int64, error) {
				return cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(c.vals, c.defs, nil)
			})
		}
	}
	for i := range p.scores {
		if err == nil {
			err = writeColumn(rg, func(cw file.ColumnChunkWriter) (int64, error) {
				return cw.(*file.Float64ColumnChunkWriter).WriteBatch(p.scores[i].vals, p.scores[i].defs, nil)
			})
		}
	}
	if err == nil {
		err = rg.Close()
	}
	if err != nil {
		return fmt.Errorf("examples parquet: %w", err)
	}
	p.seq, p.pos, p.pending = p.seq[:0], p.pos[:0], 0
	p.id.reset()
	p.slice.reset()
	for i := range p.scores {
		p.scores[i].reset()
	}
	return nil
}

func writeColumn(rg file.SerialRowGroupWriter, write func(file.ColumnChunkWriter) (int64, error)) error {
	cw, err := rg.NextColumn()
	if err == nil {
		_, err = write(cw)
	}
	return err
}

// close flushes the last row group and the footer; the AtomicFile stays open for Commit.
func (p *examplesParquet) close() error {
	if err := p.flush(); err != nil {
		return err
	}
	if err := p.w.Close(); err != nil {
		return fmt.Errorf("examples parquet: %w", err)
	}
	if err := p.buf.Flush(); err != nil {
		return fmt.Errorf("examples parquet: %w", err)
	}
	return nil
}
