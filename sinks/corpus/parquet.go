package corpus

import (
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"
)

// Row groups and pages of the Parquet files Write and WriteFunc write: what pyarrow's
// pq.write_table writes by default, so that benchmarks and tests read the files users have
// rather than a layout no tool writes (footers of thousands of row groups, uncompressed
// pages). pyarrow's row_group_size is at most 1Mi rows; every column but booleans is
// dictionary-encoded until its dictionary page passes 1 MiB, then falls back to PLAIN
// (arrow/go's defaults are the same: WithDictionaryDefault(true), a 1 MiB dictionary page
// size limit, 1 MiB data pages, data page V1, format 2.6); pages are snappy-compressed.
//
// A row group is also closed once its column chunks hold maxRowGroupBytes of compressed
// pages: arrow/go keeps a buffered row group's pages in memory until it is closed, and
// corpora of long texts would otherwise hold a gigabyte per row group. 128 MiB is the row
// group size parquet-mr (Spark, Hive) writes by default; the records of the bench mixes stay
// far below it per 1Mi rows, except the text mixes.
const (
	maxRowGroupRows  = 1 << 20
	maxRowGroupBytes = 128 << 20
)

// parquetProps are the writer properties of every corpus file (see maxRowGroupRows).
func parquetProps() *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithDictionaryDefault(true),
		parquet.WithDictionaryPageSizeLimit(1<<20),
		parquet.WithDataPageSize(1<<20),
		parquet.WithDataPageVersion(parquet.DataPageV1),
		parquet.WithVersion(parquet.V2_6),
		parquet.WithCompression(compress.Codecs.Snappy),
	)
}

// writeParquetCorpus writes a corpus as Parquet, with the schema pqarrow gave the Arrow
// schema of writeArrowCorpus (so pyarrow and pqarrow read the types earlier corpora had):
// optional INT64 (INTEGER(64, signed)), DOUBLE, BOOLEAN and UTF-8 BYTE_ARRAY columns, and
// three-level lists of optional elements. Columns are written from definition and repetition
// levels with parquet/file's column writers (which encode and compress the pages), without
// pqarrow. Records come from next a chunk at a time; a row group ends after rowGroupRows
// rows (or maxRowGroupBytes), whatever the chunks, and an empty corpus has one empty row
// group, as pyarrow writes an empty table.
func writeParquetCorpus(w io.Writer, names []string, types map[string]colType, n, chunk, rowGroupRows int, next func(int) ([]map[string]any, error)) error {
	props := parquetProps()
	nodes := make(schema.FieldList, len(names))
	for i, name := range names {
		nodes[i] = corpusNode(name, types[name])
	}
	root := schema.MustGroup(schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1))
	pw := file.NewParquetWriter(w, root, file.WithWriterProps(props))
	var (
		col  levelBuf
		rg   file.BufferedRowGroupWriter
		rows int // in rg
	)
	// write appends records to the open row group, opening one when none is.
	write := func(records []map[string]any) error {
		if rg == nil {
			rg = pw.AppendBufferedRowGroup()
		}
		for i, name := range names {
			col.reset()
			for _, r := range records {
				col.add(r[name], types[name], 1, 0, 0)
			}
			cw, err := rg.Column(i)
			if err != nil {
				return err
			}
			if err := col.write(cw); err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
		}
		rows += len(records)
		return nil
	}
	closeRG := func() error {
		err := rg.Close()
		rg, rows = nil, 0
		return err
	}
	for start := 0; start < n; start += chunk {
		records, err := next(start)
		if err != nil {
			return err
		}
		for len(records) > 0 {
			take := min(len(records), rowGroupRows-rows)
			if err := write(records[:take]); err != nil {
				return err
			}
			records = records[take:]
			if rows >= rowGroupRows || rg.TotalCompressedBytes() >= maxRowGroupBytes {
				if err := closeRG(); err != nil {
					return err
				}
			}
		}
	}
	if rg == nil && pw.NumRowGroups() == 0 {
		if err := write(nil); err != nil {
			return err
		}
	}
	if rg != nil {
		if err := closeRG(); err != nil {
			return err
		}
	}
	return pw.Close()
}

// corpusNode is the Parquet node of a corpus column. (The node constructors fail only on
// invalid type combinations, which these are not.)
func corpusNode(name string, t colType) schema.Node {
	opt := parquet.Repetitions.Optional
	switch t {
	case ctInt:
		return schema.Must(schema.NewPrimitiveNodeLogical(name, opt, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1))
	case ctFloat:
		return schema.Must(schema.NewPrimitiveNode(name, opt, parquet.Types.Double, -1, -1))
	case ctBool:
		return schema.Must(schema.NewPrimitiveNode(name, opt, parquet.Types.Boolean, -1, -1))
	case ctString:
		return schema.Must(schema.NewPrimitiveNodeLogical(name, opt, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1))
	}
	return schema.Must(schema.ListOf(corpusNode(name, elemType(t)), opt, -1)) // renames the element "element"
}

// elemType is the type of the elements of a list column type.
func elemType(t colType) colType {
	switch t {
	case ctStrList:
		return ctString
	case ctFloatList:
		return ctFloat
	}
	return ctStrList // ctStrLists
}

// levelBuf holds the levels and values of one column of a row group. Every node of a corpus
// column is optional: a value nested in k lists has the definition levels 0 (null
// outermost list), 1 (empty), 2 (null element), ..., up to 2k+1 (present).
type levelBuf struct {
	def, rep []int16
	strs     []parquet.ByteArray
	ints     []int64
	floats   []float64
	bools    []bool
}

func (c *levelBuf) reset() {
	c.def, c.rep = c.def[:0], c.rep[:0]
	c.strs, c.ints, c.floats, c.bools = c.strs[:0], c.ints[:0], c.floats[:0], c.bools[:0]
}

// add appends the levels and values of v, a value of type t (nil: null) whose definition
// level is def when present, with repetition level rep, inside depth lists.
func (c *levelBuf) add(v any, t colType, def, rep, depth int16) {
	if v == nil {
		c.def, c.rep = append(c.def, def-1), append(c.rep, rep)
		return
	}
	if !isList(t) {
		c.def, c.rep = append(c.def, def), append(c.rep, rep)
		switch t {
		case ctString:
			c.strs = append(c.strs, parquet.ByteArray(v.(string)))
		case ctInt:
			i, _ := toInt(v)
			c.ints = append(c.ints, i)
		case ctFloat:
			x, _ := toFloat(v)
			c.floats = append(c.floats, x)
		case ctBool:
			c.bools = append(c.bools, v.(bool))
		}
		return
	}
	empty := true
	forEachElem(v, func(i int, e any) {
		r := rep
		if i > 0 {
			r = depth + 1 // the next element of this list
		}
		c.add(e, elemType(t), def+2, r, depth+1)
		empty = false
	})
	if empty {
		c.def, c.rep = append(c.def, def), append(c.rep, rep)
	}
}

func (c *levelBuf) write(cw file.ColumnChunkWriter) error {
	rep := c.rep
	if cw.Descr().MaxRepetitionLevel() == 0 {
		rep = nil
	}
	var err error
	switch w := cw.(type) {
	case *file.ByteArrayColumnChunkWriter:
		_, err = w.WriteBatch(c.strs, c.def, rep)
	case *file.Int64ColumnChunkWriter:
		_, err = w.WriteBatch(c.ints, c.def, rep)
	case *file.Float64ColumnChunkWriter:
		_, err = w.WriteBatch(c.floats, c.def, rep)
	case *file.BooleanColumnChunkWriter:
		_, err = w.WriteBatch(c.bools, c.def, rep)
	default:
		err = fmt.Errorf("unexpected column writer %T", cw)
	}
	return err
}
