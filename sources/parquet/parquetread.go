package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"

	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// The Parquet reader below decodes columns with parquet/file's record readers and builds the
// Arrow arrays fillColumn converts. It does not use pqarrow: pqarrow links arrow/compute,
// arrow/flight, grpc and protobuf, whose package initialization costs every run milliseconds
// of start-up. It reads the types pqarrow reads the same way (its schema rules, including the
// backward-compatible list forms, are followed), with two simplifications that do not change
// the converted values: dictionary-encoded strings are read as plain strings (except in the
// flat dictionary-encoded column chunks parquetdict.go reads as dictionary arrays, of
// strings and integers alike), and columns of
// types fillColumn reports as Other (dates, times, timestamps, binary, ...) are read as
// opaqueType arrays that keep only their validity. DECIMAL columns (on INT32, INT64,
// FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY) are read as pqarrow reads them, decimal128 up to 38
// digits and decimal256 up to 76, and fillColumn converts them to numbers exactly as their
// JSON literals would be. The pages arrow/go v15 cannot decode (LZ4_RAW and LZ4 codecs,
// BYTE_STREAM_SPLIT and the DELTA encodings on every type) are filled in by
// parquetpagereader.go, parquetcodec.go and parquetpages.go. The ARROW:schema metadata is
// ignored: it only changes types to equivalent ones (large strings, dictionaries,
// fixed-size lists).
//
// Record readers stop at the first page they cannot decode instead of looping forever as
// ColumnChunkReader.ReadBatch does on a truncated level stream; a column that ends early is
// reported as corrupt. Nothing here starts a goroutine, so the recovered wrapper catches
// every panic of the decoders.

// opaqueType is the type of the arrays of values fillColumn reports as Other (or Null): they
// hold a validity bitmap and no values.
var opaqueType arrow.DataType = &arrow.FixedSizeBinaryType{ByteWidth: 1}

// errStructField marks a field that is or holds a struct or a map: no metric accepts one,
// so its values are reported as Other without being decoded.
var errStructField = errors.New("holds a struct or map")

// errBadSchema wraps schema shapes pqarrow rejects as well.
var errBadSchema = errors.New("invalid Parquet schema")

// parquetIter reads a Parquet file row group by row group, in batches, decoding only the
// columns of the requested fields. It owns pf and is not safe for concurrent use.
type parquetIter struct {
	pf        *file.Reader
	src       io.ReaderAt // the file pf reads
	size      int64       // of the file
	dec       decompressors
	mem       memory.Allocator
	scratch   memory.Allocator // of page bodies and dictionary indices (scratchAllocator)
	fields    []*pqField       // the requested fields that are decoded, one column each
	schema    *arrow.Schema    // of the records: the fields, in order
	rgSchema  *arrow.Schema    // of the current row group's records: schema with dictionary arrays where dict is set
	empty     *arrow.Schema
	other     map[string]bool // requested fields read as Other without decoding
	batchSize int64
	rg        int   // current row group
	rows      int64 // rows of the current row group
	stale     bool  // a field fell back from dictionary arrays: rgSchema must follow
	// lastSchema is the last rgSchema with dictionary arrays, lastDicts which fields it
	// has them for.
	lastSchema *arrow.Schema
	lastDicts  []bool
	left       int64 // rows of the current row group not yet returned
}

// pqField is a decoded field: a leaf column inside zero or more lists.
type pqField struct {
	name  string
	col   int              // leaf column index
	info  file.LevelInfo   // of the leaf
	lists []pqList         // outermost first
	types []arrow.DataType // per nesting level: the field's first, the leaf values' last
	phys  parquet.Type     // of the leaf column
	rr    file.RecordReader
	chunk *chunkPageReader // of the current row group's column chunk
	pages *plainPageReader // reading chunk
	win   pageWindow       // chunk's read-ahead buffer
	dict  *dictReader      // reads chunk instead of rr when its data pages are dictionary-encoded (parquetdict.go)
	done  int64            // rows of the chunk dict returned
	// dictType is the type of the arrays dict returns, one for the file so that the
	// schemas of row groups read alike are equal (setSchema).
	dictType *arrow.DictionaryType
	af       arrow.Field // of the records without dictionaries
	group    *pqGroup    // set when the field is a part of a MAP or struct field (parquetmap.go)
}

// pqList is a list level of a field: its levels (DefLevel: the list holds an element) and
// whether it can be null.
type pqList struct {
	info     file.LevelInfo
	nullable bool
}

// newParquetIter reads fields of pf, a Parquet file read from src, with mem.
func newParquetIter(pf *file.Reader, src parquet.ReaderAtSeeker, fields []string, batchSize int, mem memory.Allocator) (*parquetIter, error) {
	size, err := src.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	sc := pf.MetaData().Schema
	decoded, other, err := resolveFields(sc, fields)
	if err != nil {
		return nil, err
	}
	afs := make([]arrow.Field, len(decoded))
	for i, f := range decoded {
		readAs := f.leaf()
		switch readAs.ID() {
		case arrow.FIXED_SIZE_BINARY, arrow.DECIMAL128, arrow.DECIMAL256: // opaqueType or a decimal
			readAs = arrow.BinaryTypes.Binary // byte arrays; ignored for other physical types
		}
		f.rr = file.NewRecordReader(sc.Column(f.col), f.info, readAs, mem, pf.BufferPool())
		afs[i] = arrow.Field{Name: f.name, Type: f.types[0], Nullable: true}
		f.af = afs[i]
	}
	return &parquetIter{pf: pf, src: src, size: size, mem: mem, scratch: scratchAllocator(mem), fields: decoded, schema: groupedSchema(decoded, afs), empty: arrow.NewSchema(nil, nil),
		other: other, batchSize: int64(max(batchSize, arrowsrc.ColumnarRows)), rg: -1}, nil
}

// resolveFields finds the top-level fields of sc that are requested: those it decodes and
// those holding structs, read as Other. As columnsOf, the last decodable field of a
// repeated name wins.
func resolveFields(sc *schema.Schema, fields []string) (decoded []*pqField, other map[string]bool, err error) {
	want := map[string]bool{}
	for _, f := range fields {
		want[f] = true
	}
	pos := map[string]int{}
	for i := 0; i < sc.Root().NumFields(); i++ {
		n := sc.Root().Field(i)
		if !want[n.Name()] {
			continue
		}
		if parts, ok, err := resolveGroup(sc, n); ok {
			if err != nil {
				return nil, nil, fmt.Errorf("field %q: %w", n.Name(), err)
			}
			decoded = append(decoded, parts...)
			continue
		}
		f := &pqField{name: n.Name()}
		err := f.resolve(sc, n, file.LevelInfo{NullSlotUsage: 1})
		switch {
		case errors.Is(err, errStructField):
			if other == nil {
				other = map[string]bool{}
			}
			other[f.name] = true
		case err != nil:
			return nil, nil, fmt.Errorf("field %q: %w", f.name, err)
		case pos[f.name] > 0:
			decoded[pos[f.name]-1] = f
		default:
			decoded = append(decoded, f)
			pos[f.name] = len(decoded) // 1-based: 0 is absent
		}
	}
	return decoded, other, nil
}

// resolve sets f's lists and leaf from node n (the field or a list element) inside levels lv,
// following pqarrow's rules (parquet/pqarrow/schema.go) and thus the backward-compatibility
// rules of the Parquet format's LogicalTypes.md.
func (f *pqField) resolve(sc *schema.Schema, n schema.Node, lv file.LevelInfo) error {
	if p, ok := n.(*schema.PrimitiveNode); ok {
		if p.RepetitionType() == parquet.Repetitions.Repeated {
			f.addList(&lv, false) // one-level list: repeated TYPE name
		} else {
			lv.Increment(p)
		}
		return f.setLeaf(sc, p, lv)
	}
	g := n.(*schema.GroupNode)
	if !g.LogicalType().Equals(schema.NewListLogicalType()) {
		return errStructField // a struct, a map or a repeated group (a list of structs)
	}
	if g.NumFields() != 1 || g.RepetitionType() == parquet.Repetitions.Repeated {
		return fmt.Errorf("%w: LIST group %q must have one child and not be repeated", errBadSchema, g.Name())
	}
	rep := g.Field(0)
	if rep.RepetitionType() != parquet.Repetitions.Repeated {
		return fmt.Errorf("%w: the child of LIST group %q must be repeated", errBadSchema, g.Name())
	}
	lv.Increment(g)
	f.addList(&lv, g.RepetitionType() == parquet.Repetitions.Optional)
	rg, ok := rep.(*schema.GroupNode)
	if !ok {
		return f.setLeaf(sc, rep.(*schema.PrimitiveNode), lv) // two-level list: repeated TYPE
	}
	if rg.NumFields() != 1 || rg.Name() == "array" || rg.Name() == g.Name()+"_tuple" {
		return errStructField // two-level list of structs
	}
	return f.resolve(sc, rg.Field(0), lv) // three-level list: its element
}

// addList adds a list whose repeated node is the next level of lv.
func (f *pqField) addList(lv *file.LevelInfo, nullable bool) {
	outer := lv.IncrementRepeated()
	info := *lv
	info.RepeatedAncestorDefLevel = outer
	f.lists = append(f.lists, pqList{info: info, nullable: nullable})
}

// leaf is the type of the leaf values.
func (f *pqField) leaf() arrow.DataType { return f.types[len(f.types)-1] }

func (f *pqField) setLeaf(sc *schema.Schema, p *schema.PrimitiveNode, lv file.LevelInfo) error {
	t, err := leafType(p)
	if err != nil {
		return err
	}
	if f.col = sc.ColumnIndexByNode(p); f.col < 0 {
		return fmt.Errorf("%w: no column for %q", errBadSchema, p.Path())
	}
	f.info, f.phys = lv, p.PhysicalType()
	f.types = make([]arrow.DataType, len(f.lists)+1)
	f.types[len(f.lists)] = t
	for i := len(f.lists) - 1; i >= 0; i-- {
		f.types[i] = arrow.ListOf(f.types[i+1])
	}
	return nil
}

// leafType is the Arrow type of a column's values: the type pqarrow reads when fillColumn
// accepts it, opaqueType otherwise.
func leafType(p *schema.PrimitiveNode) (arrow.DataType, error) {
	lt := p.LogicalType()
	if !lt.IsValid() || lt.Equals(schema.NullLogicalType{}) {
		return arrow.Null, nil // as pqarrow: every value is null
	}
	if d, ok := lt.(*schema.DecimalLogicalType); ok {
		return decimalType(p.PhysicalType(), d), nil
	}
	switch p.PhysicalType() {
	case parquet.Types.Boolean:
		return arrow.FixedWidthTypes.Boolean, nil
	case parquet.Types.Int32, parquet.Types.Int64:
		it, ok := lt.(*schema.IntLogicalType)
		switch {
		case lt.IsNone() && p.PhysicalType() == parquet.Types.Int32:
			return arrow.PrimitiveTypes.Int32, nil
		case lt.IsNone():
			return arrow.PrimitiveTypes.Int64, nil
		case !ok:
			return opaqueType, nil // dates, times, timestamps, decimals
		}
		return intType(it)
	case parquet.Types.Float:
		return arrow.PrimitiveTypes.Float32, nil
	case parquet.Types.Double:
		return arrow.PrimitiveTypes.Float64, nil
	case parquet.Types.ByteArray:
		if _, ok := lt.(schema.StringLogicalType); ok {
			return arrow.BinaryTypes.String, nil
		}
	case parquet.Types.FixedLenByteArray:
		if _, ok := lt.(schema.Float16LogicalType); ok {
			return arrow.FixedWidthTypes.Float16, nil
		}
	}
	return opaqueType, nil // binary, enums, JSON, UUIDs, INT96 timestamps, ...
}

// decimalType is the Arrow decimal type a DECIMAL column is read as: decimal128 up to 38
// digits, decimal256 up to 76, as pqarrow does. Wider decimals (only BYTE_ARRAY can hold
// them) and the annotation on other physical types are opaque.
func decimalType(phys parquet.Type, d *schema.DecimalLogicalType) arrow.DataType {
	switch phys {
	case parquet.Types.Int32, parquet.Types.Int64, parquet.Types.FixedLenByteArray, parquet.Types.ByteArray:
	default:
		return opaqueType
	}
	switch p, s := d.Precision(), d.Scale(); {
	case p < 1 || s < 0 || s > p:
		return opaqueType // the format requires 0 <= scale <= precision
	case p <= decimal128MaxDigits:
		return &arrow.Decimal128Type{Precision: p, Scale: s}
	case p <= decimal256MaxDigits:
		return &arrow.Decimal256Type{Precision: p, Scale: s}
	}
	return opaqueType
}

const decimal128MaxDigits, decimal256MaxDigits = 38, 76

// intTypes are the unsigned and signed types of each INTEGER bit width.
var intTypes = map[int8][2]arrow.DataType{
	8:  {arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int8},
	16: {arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int16},
	32: {arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int32},
	64: {arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int64},
}

func intType(it *schema.IntLogicalType) (arrow.DataType, error) {
	t, ok := intTypes[it.BitWidth()]
	if !ok {
		return nil, fmt.Errorf("%w: INTEGER annotation of bit width %d", errBadSchema, it.BitWidth())
	}
	if it.IsSigned() {
		return t[1], nil
	}
	return t[0], nil
}

func (it *parquetIter) OtherFields() map[string]bool { return it.other }

func (it *parquetIter) Next() (arrow.Record, error) {
	for it.left == 0 {
		if err := it.nextRowGroup(); err != nil {
			return nil, err
		}
	}
	n := min(it.left, it.batchSize)
	if it.allDict() {
		// The batches of dictionary columns are larger (arrowsrc.DictColumnarRows), and
		// take rows of one record.
		n = min(it.left, max(it.batchSize, arrowsrc.DictColumnarRows))
	}
	if len(it.fields) == 0 {
		// No requested column exists: rows are all Missing (or Other).
		it.left -= n
		return array.NewRecord(it.empty, nil, n), nil
	}
	cols := make([]arrow.Array, 0, len(it.fields))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, f := range it.fields {
		data, got, err := it.readField(f, n)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%w: field %q: %w", fileread.ErrCorrupt, f.name, err)
		case got < n:
			return nil, fmt.Errorf("%w: field %q: read %d of the row group's %d rows", fileread.ErrCorrupt, f.name, it.rows-it.left+got, it.rows)
		}
		cols = append(cols, array.MakeFromData(data))
		data.Release()
	}
	if it.stale {
		it.setSchema()
	}
	grouped, err := groupColumns(it.fields, cols, n)
	if err != nil {
		cols = nil // released by groupColumns
		return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
	}
	cols = grouped
	it.left -= n
	return array.NewRecord(it.rgSchema, cols, n), nil
}

// nextRowGroup checks that the current row group holds no more rows than its metadata says
// and moves to the next one; it returns io.EOF after the last.
func (it *parquetIter) nextRowGroup() error {
	if it.rg >= it.pf.NumRowGroups() {
		return io.EOF
	}
	if it.rg >= 0 {
		for _, f := range it.fields {
			more, err := it.fieldMore(f)
			if err != nil {
				return fmt.Errorf("%w: field %q: %w", fileread.ErrCorrupt, f.name, err)
			}
			if more {
				return fmt.Errorf("%w: field %q: the row group holds more than its %d rows", fileread.ErrCorrupt, f.name, it.rows)
			}
		}
	}
	it.rg++
	if it.rg >= it.pf.NumRowGroups() {
		return io.EOF
	}
	rows := it.pf.MetaData().RowGroup(it.rg).NumRows()
	if rows < 0 {
		return fmt.Errorf("%w: row count %d", fileread.ErrCorrupt, rows)
	}
	for _, f := range it.fields {
		if err := it.openChunk(f, true); err != nil {
			return fmt.Errorf("%w: field %q: %w", fileread.ErrCorrupt, f.name, err)
		}
	}
	it.setSchema()
	it.rows, it.left = rows, rows
	return nil
}

// openChunk sets f to read its column chunk of the current row group from its start: by a
// dictReader when dict allows and the chunk qualifies, else by the record reader.
func (it *parquetIter) openChunk(f *pqField, dict bool) error {
	f.releasePages()
	f.done = 0
	cc, err := it.pf.MetaData().RowGroup(it.rg).ColumnChunk(f.col)
	if err != nil {
		return err
	}
	chunk, err := newChunkPageReader(it.pf, cc, it.src, it.size, it.mem, &it.dec, &f.win)
	if err != nil {
		return err
	}
	f.chunk = chunk
	col := it.pf.MetaData().Schema.Column(f.col)
	if dict && dictEligible(f, cc, col.MaxDefinitionLevel(), col.MaxRepetitionLevel()) {
		// Only the dictReader's pages come from the recycling pool: it copies the
		// dictionary out of its page and is done with each page when it asks for the next.
		// arrow/go's column reader decodes a dictionary lazily from its page after the page
		// is released, which memory reused by the next page would corrupt.
		chunk.bodies = it.scratch
		if f.dictType == nil {
			f.dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: f.leaf()}
		}
		f.dict = newDictReader(f, chunk, col.MaxDefinitionLevel(), it.mem, it.scratch)
		return nil
	}
	f.pages = newPlainPageReader(chunk, col, it.mem)
	f.rr.SetPageReader(f.pages)
	return nil
}

// setSchema sets rgSchema: schema, with dictionary types for the fields read by a
// dictReader.
func (it *parquetIter) setSchema() {
	it.stale = false
	same := len(it.lastDicts) == len(it.fields)
	dicts := false
	for i, f := range it.fields {
		dicts = dicts || f.dict != nil
		same = same && it.lastDicts[i] == (f.dict != nil)
	}
	switch {
	case !dicts:
		it.rgSchema = it.schema
		return
	case same && it.lastSchema != nil:
		// As the previous row groups': the same schema, so that the reader of the records
		// does not map their columns again.
		it.rgSchema = it.lastSchema
		return
	}
	afs := make([]arrow.Field, len(it.fields))
	it.lastDicts = it.lastDicts[:0]
	for i, f := range it.fields {
		afs[i] = f.af
		if f.dict != nil {
			afs[i].Type = f.dict.dtype
		}
		it.lastDicts = append(it.lastDicts, f.dict != nil)
	}
	it.rgSchema = groupedSchema(it.fields, afs)
	it.lastSchema = it.rgSchema
}

// allDict reports whether every field is read by a dictReader.
func (it *parquetIter) allDict() bool {
	for _, f := range it.fields {
		if f.dict == nil {
			return false
		}
	}
	return len(it.fields) > 0
}

// readField reads the next n rows of f (pqField.read), falling back to the generic path
// when its dictionary reader meets a page that is not dictionary-encoded.
func (it *parquetIter) readField(f *pqField, n int64) (arrow.ArrayData, int64, error) {
	if f.dict != nil {
		data, got, err := f.dict.read(n)
		if !errors.Is(err, errDictFallback) {
			if err == nil && got == n {
				f.done += n
			}
			return data, got, err
		}
		if err := it.fallback(f); err != nil {
			return nil, 0, err
		}
	}
	return f.read(n, it.mem)
}

// fieldMore is pqField.more with readField's fallback.
func (it *parquetIter) fieldMore(f *pqField) (bool, error) {
	if f.dict != nil {
		more, err := f.dict.more()
		if !errors.Is(err, errDictFallback) {
			return more, err
		}
		if err := it.fallback(f); err != nil {
			return false, err
		}
	}
	return f.more()
}

// fallback reads f's column chunk by the generic path from here on, whatever its metadata
// said of its encodings: it reads the chunk again from its start and skips the rows the
// dictionary reader returned (whose values the generic path decodes identically).
func (it *parquetIter) fallback(f *pqField) error {
	done := f.done
	if err := it.openChunk(f, false); err != nil {
		return err
	}
	it.stale = true
	for left := done; left > 0; {
		k := min(left, it.batchSize)
		data, got, err := f.read(k, it.mem)
		if err != nil {
			return err
		}
		if got < k {
			return fmt.Errorf("the column chunk read again holds %d rows, fewer than the %d read before", done-left+got, done)
		}
		data.Release()
		left -= k
	}
	return nil
}

func (it *parquetIter) Where() string { return fmt.Sprintf("row group %d", max(it.rg, 0)) }

func (it *parquetIter) Close() {
	for _, f := range it.fields {
		f.releasePages()
		f.rr.Release()
	}
	it.dec.close()
	it.fields = nil
	it.pf.Close()
}

func (f *pqField) releasePages() {
	if f.pages != nil {
		f.pages.release()
		f.pages = nil
	}
	if f.dict != nil {
		f.dict.release()
		f.dict = nil
	}
	if f.chunk != nil {
		f.chunk.release()
		f.chunk = nil
	}
}

// read decodes the next n records of the field by the record reader into an array the
// caller owns; got < n (and no array) when the column ends early (parquetIter.readField
// covers a dictReader).
func (f *pqField) read(n int64, mem memory.Allocator) (_ arrow.ArrayData, got int64, err error) {
	f.rr.Reset()
	if err := f.rr.Reserve(n); err != nil {
		return nil, 0, err
	}
	for got < n {
		k, err := f.rr.ReadRecords(n - got)
		if err != nil {
			return nil, got, err
		}
		if k == 0 {
			// The column reader ends at a page it cannot read without passing on why.
			return nil, got, f.pageErr()
		}
		got += k
	}
	data, err := f.build(0, n, mem)
	return data, got, err
}

// more reports whether the column holds records beyond those read, by the record reader
// (parquetIter.fieldMore covers a dictReader).
func (f *pqField) more() (bool, error) {
	f.rr.Reset()
	k, err := f.rr.ReadRecords(1)
	if err == nil && k == 0 {
		err = f.pageErr()
	}
	return k > 0, err
}

// pageErr is the error that ended the current column chunk's pages, if any.
func (f *pqField) pageErr() error {
	if f.pages == nil {
		return nil
	}
	return f.pages.Err()
}

// build makes the array of nesting level i (0: the field, len(f.lists): the leaf values)
// from what the record reader holds; it must have exactly want slots.
func (f *pqField) build(i int, want int64, mem memory.Allocator) (arrow.ArrayData, error) {
	var (
		d   arrow.ArrayData
		err error
	)
	if i == len(f.lists) {
		d, err = f.leafData()
	} else {
		d, err = f.listData(i, want, mem)
	}
	if err != nil {
		return nil, err
	}
	if int64(d.Len()) != want {
		d.Release()
		return nil, fmt.Errorf("%d values at nesting level %d where the levels call for %d", d.Len(), i, want)
	}
	return d, nil
}

// listData builds list level i from the definition and repetition levels of its leaf.
func (f *pqField) listData(i int, want int64, mem memory.Allocator) (arrow.ArrayData, error) {
	l := &f.lists[i]
	nl := f.rr.LevelsPos()
	out := file.ValidityBitmapInputOutput{ReadUpperBound: want}
	offsets := memory.NewResizableBuffer(mem)
	defer offsets.Release()
	offsets.Resize(arrow.Int32Traits.BytesRequired(int(want) + 1))
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	offs[0] = 0
	var valid *memory.Buffer
	if l.nullable {
		valid = memory.NewResizableBuffer(mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(want)))
		out.ValidBits = valid.Bytes()
	}
	if err := file.DefRepLevelsToListInfo(f.rr.DefLevels()[:nl], f.rr.RepLevels()[:nl], l.info, &out, offs); err != nil {
		return nil, err
	}
	child, err := f.build(i+1, int64(offs[out.Read]), mem)
	if err != nil {
		return nil, err
	}
	defer child.Release()
	if out.NullCount == 0 {
		valid = nil
	}
	return array.NewData(f.types[i], int(out.Read), []*memory.Buffer{valid, offsets}, []arrow.ArrayData{child}, int(out.NullCount), 0), nil
}

// leafData moves the values the record reader holds into an array of the leaf's type.
func (f *pqField) leafData() (arrow.ArrayData, error) {
	t := f.leaf()
	if br, ok := f.rr.(file.BinaryRecordReader); ok {
		return binaryData(br, t)
	}
	n, nulls := f.rr.ValuesWritten(), int(f.rr.NullCount())
	if t.ID() == arrow.NULL {
		return nullData(n), nil
	}
	valid := f.rr.ReleaseValidBits() // nil when no value can be null
	if valid != nil {
		defer valid.Release()
	}
	var vals *memory.Buffer
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64:
		// The physical values are the Arrow values (unsigned ones reinterpreted as pqarrow
		// does).
		vals = f.rr.ReleaseValues()
		defer vals.Release()
	case arrow.INT8:
		vals = narrowed[int8](f.rr.Values(), n)
	case arrow.INT16:
		vals = narrowed[int16](f.rr.Values(), n)
	case arrow.UINT8:
		vals = narrowed[uint8](f.rr.Values(), n)
	case arrow.UINT16:
		vals = narrowed[uint16](f.rr.Values(), n)
	case arrow.DECIMAL128, arrow.DECIMAL256:
		vals = intDecimals(f.rr.Values(), n, f.phys == parquet.Types.Int64, decimalWidth(t))
	case arrow.BOOL:
		bools := f.rr.Values()[:n] // one byte per value
		bits := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, b := range bools {
			if b != 0 {
				bitutil.SetBit(bits, i)
			}
		}
		vals = memory.NewBufferBytes(bits)
	}
	return array.NewData(t, n, []*memory.Buffer{valid, vals}, nil, nulls, 0), nil
}

// narrowed converts n INT32 values to T, wrapping out-of-range values like a Go conversion
// (as pqarrow does).
func narrowed[T int8 | int16 | uint8 | uint16](physical []byte, n int) *memory.Buffer {
	src := arrow.Int32Traits.CastFromBytes(physical)[:n]
	out := make([]T, n)
	for i, v := range src {
		out[i] = T(v)
	}
	size := n * int(unsafe.Sizeof(T(0)))
	return memory.NewBufferBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), size))
}

// binaryData takes the array of a byte array or fixed-length byte array column.
func binaryData(br file.BinaryRecordReader, t arrow.DataType) (arrow.ArrayData, error) {
	chunks := br.GetBuilderChunks()
	defer func() {
		for _, c := range chunks {
			c.Release()
		}
	}()
	if len(chunks) != 1 {
		return nil, fmt.Errorf("%d chunks of values, want 1", len(chunks))
	}
	d := chunks[0].Data()
	switch t.ID() {
	case arrow.NULL:
		return nullData(d.Len()), nil
	case arrow.STRING: // the builder's type
		d.Retain()
		return d, nil
	case arrow.FLOAT16: // two-byte fixed-length values
		return array.NewData(t, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset()), nil
	case arrow.DECIMAL128, arrow.DECIMAL256:
		vals, err := bytesDecimals(chunks[0], decimalWidth(t))
		if err != nil {
			return nil, err
		}
		return array.NewData(t, d.Len(), []*memory.Buffer{d.Buffers()[0], vals}, nil, d.NullN(), d.Offset()), nil
	}
	return array.NewData(t, d.Len(), []*memory.Buffer{d.Buffers()[0], nil}, nil, d.NullN(), d.Offset()), nil
}

func nullData(n int) arrow.ArrayData {
	return array.NewData(arrow.Null, n, []*memory.Buffer{nil}, nil, n, 0)
}

// decimalWidth is the byte width of a decimal128 or decimal256 value.
func decimalWidth(t arrow.DataType) int { return t.(arrow.FixedWidthDataType).Bytes() }

// intDecimals widens n INT32 (or INT64) unscaled values to little-endian two's-complement
// decimals of width bytes.
func intDecimals(physical []byte, n int, is64 bool, width int) *memory.Buffer {
	out := make([]byte, n*width)
	for i := 0; i < n; i++ {
		var v int64
		if is64 {
			v = arrow.Int64Traits.CastFromBytes(physical)[i]
		} else {
			v = int64(arrow.Int32Traits.CastFromBytes(physical)[i])
		}
		w := out[i*width : (i+1)*width]
		binary.LittleEndian.PutUint64(w, uint64(v))
		for k := 8; k < width; k++ {
			w[k] = byte(v >> 63) // sign extension
		}
	}
	return memory.NewBufferBytes(out)
}

// errDecimalBytes is a FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY decimal that is not a
// big-endian two's-complement number of the column's precision.
var errDecimalBytes = errors.New("invalid DECIMAL value")

// bytesDecimals converts the big-endian two's-complement unscaled values of a byte array
// column (the format's DECIMAL on FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY) to little-endian
// decimals of width bytes. Leading bytes beyond width must only extend the sign.
func bytesDecimals(arr arrow.Array, width int) (*memory.Buffer, error) {
	value := func(i int) []byte { return arr.(*array.Binary).Value(i) }
	if fsb, ok := arr.(*array.FixedSizeBinary); ok {
		value = fsb.Value
	}
	out := make([]byte, arr.Len()*width)
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			continue
		}
		b := value(i)
		if len(b) == 0 {
			return nil, fmt.Errorf("%w: value %d has no bytes", errDecimalBytes, i)
		}
		ext := byte(int8(b[0]) >> 7) // 0x00 or 0xff
		if len(b) > width {
			for _, c := range b[:len(b)-width] {
				if c != ext {
					return nil, fmt.Errorf("%w: value %d of %d bytes does not fit %d", errDecimalBytes, i, len(b), width)
				}
			}
			if b = b[len(b)-width:]; byte(int8(b[0])>>7) != ext {
				return nil, fmt.Errorf("%w: value %d of %d bytes does not fit %d", errDecimalBytes, i, len(b), width)
			}
		}
		w := out[i*width : (i+1)*width]
		for k := range w {
			if k < len(b) {
				w[k] = b[len(b)-1-k]
			} else {
				w[k] = ext
			}
		}
	}
	return memory.NewBufferBytes(out), nil
}
