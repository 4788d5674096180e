package arrow

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// countFile counts the bytes read from a file (Read and ReadAt) for progress reporting. r,
// when set, is read instead of f (a stream without a file: standard input).
type countFile struct {
	f *os.File
	r io.Reader
	n int64
}

func (c *countFile) Read(p []byte) (int, error) {
	var n int
	var err error
	if c.r != nil {
		n, err = c.r.Read(p)
	} else {
		n, err = c.f.Read(p)
	}
	c.n += int64(n)
	return n, err
}

func (c *countFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

func (c *countFile) Seek(off int64, whence int) (int64, error) { return c.f.Seek(off, whence) }

// mapInto makes mr read the stream starting at offset off of the file from a memory map, when
// the source uses the default allocator (tests that count allocations read the file) and the
// file can be mapped.
func (r *arrowReader) mapInto(mr *safeMessageReader, s *fileread.Options, off int64) {
	if s.Mem != memory.DefaultAllocator {
		return
	}
	if r.mapped = mapFile(r.f, r.fi.Size); r.mapped != nil {
		mr.mapped, mr.pos, mr.cnt = r.mapped, off, r.cnt
	}
}

// bodies returns the allocator of Arrow IPC message bodies: the recycling pool, unless the
// source was given its own allocator (tests count allocations with a checked one).
func bodies(s *fileread.Options) memory.Allocator {
	if s.Mem == memory.DefaultAllocator {
		return arrowBodies
	}
	return nil
}

// RecordIter yields the Arrow records of one file. It may panic on malformed input: the
// reader recovers at every call. An iterator may also implement
// OtherFields() map[string]bool, the fields whose columns exist but are not decoded (their
// values are Other).
type RecordIter interface {
	// Next returns the next record, owned by the caller, or io.EOF.
	Next() (arrow.Record, error)
	// Where names the part of the file the last Next call read, for errors.
	Where() string
	Close()
}

// File is the file a RecordIter reads from; what is read through it counts as progress
// (pipeline.Batch.Bytes).
type File interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// NewIterFunc returns the iterator of the records of f. mem is the allocator of every
// buffer (it refuses what the file's size cannot justify, and counts live bytes). Errors it
// returns wrap fileread.ErrCorrupt; the reader names the file and "footer".
type NewIterFunc func(f File, mem memory.Allocator) (RecordIter, error)

// arrowReader reads Arrow IPC files and streams and Parquet files.
type arrowReader struct {
	fi fileread.Info
	f  *os.File
	in io.Closer // a FIFO or device read as a stream (f is nil then)
	// stop is the context a FIFO or device was opened with (nil otherwise), kept because
	// its reads fail once it ends: that failure is the run stopping, not a corrupt stream.
	stop    context.Context
	cnt     *countFile
	it      RecordIter
	fields  []string
	max     int
	rec     arrow.Record // current record, owned
	row     int64        // next row of rec
	fileRow int64        // row index within the file of rec's row 0
	schema  *arrow.Schema
	cols    []int       // per field: column of rec, or -1
	mapped  *mappedFile // the file's memory map, when message bodies alias it
	dicts   []dictConv  // per field: its last dictionary converted by dictColumn

	pendingErr error // found while looking ahead; returned by the next fill
}

// dictConv is a dictionary converted for pipeline.DictColumn: its array data (retained, so
// that neither it nor the buffers its strings alias go while it is cached) and values, nil
// when it cannot be one.
type dictConv struct {
	data arrow.ArrayData
	vals []core.Value
}

// releaseDicts drops the dictionaries dictColumn cached; the batches holding them keep
// their own references.
func (r *arrowReader) releaseDicts() {
	for i := range r.dicts {
		if r.dicts[i].data != nil {
			r.dicts[i].data.Release()
		}
	}
	r.dicts = nil
}

// Open opens an Arrow IPC file (fi.Format "arrow") or stream ("arrows"). The reader verifies
// the IPC metadata before arrow/go reads it and recovers arrow/go's panics into errors
// wrapping fileread.ErrCorrupt. It is used by one goroutine; the batches it fills may be
// released on any goroutine.
func Open(fi fileread.Info, s *fileread.Options) (fileread.Reader, error) {
	return open(fi, s, nil)
}

// OpenRecords opens the file fi and reads the Arrow records newIter yields from it,
// converting them as Open does: it is how package parquet reads Parquet files (as pqarrow
// sits on arrow).
func OpenRecords(fi fileread.Info, s *fileread.Options, newIter NewIterFunc) (fileread.Reader, error) {
	return open(fi, s, newIter)
}

func open(fi fileread.Info, s *fileread.Options, newIter NewIterFunc) (_ fileread.Reader, err error) {
	if st, err := os.Stat(fi.Path); err == nil && !st.Mode().IsRegular() {
		return openSpecial(fi, s, newIter != nil)
	}
	f, err := os.Open(fi.Path)
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	r := &arrowReader{fi: fi, f: f, cnt: &countFile{f: f}, fields: s.Fields, max: s.MaxRecord}
	base := s.Mem
	if base == memory.DefaultAllocator && newIter == nil { // not Parquet
		base = arrowBuffers
	}
	mem := fileread.LimitAllocator{Allocator: base, Limit: fileread.AllocLimit(fi.Size)}
	if newIter != nil {
		mem.Live = new(atomic.Int64)
	}
	where := "header"
	defer func() {
		if err != nil {
			if r.mapped != nil {
				r.mapped.release()
				r.mapped = nil
			}
			f.Close()
			err = fileread.FileError(fi.Path, where, err)
		}
	}()
	defer fileread.Recovered(&err)
	switch {
	case newIter != nil:
		where = "footer"
		it, err := newIter(r.cnt, mem)
		if err != nil {
			return nil, err
		}
		r.it = it
	case fi.Format == fileread.FormatArrow:
		// An Arrow IPC file is "ARROW1", padding, messages, the footer (the schema and an
		// index of the dictionary and record batch messages), its length and "ARROW1". As
		// pyarrow does, the schema comes from the verified footer and the messages are read
		// where the footer says (polars puts no schema message before them), each through
		// the same verified message reader as .arrows files. (arrow/go v15's FileReader
		// trusts the metadata and never releases its dictionaries.)
		where = "footer"
		ft, err := readFooter(f, fi.Size) // not progress: read f directly
		if err != nil {
			return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
		}
		var head [8]byte
		if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:6]) != "ARROW1" {
			return nil, fmt.Errorf("%w: %w: no leading magic", fileread.ErrCorrupt, errBadMetadata)
		}
		where = "schema"
		mr := newSafeMessageReader(nil, 0, mem)
		mr.bodies = bodies(s)
		r.mapInto(mr, s, 0)
		br := bufio.NewReaderSize(nil, 256<<10)
		bm := &blockMessageReader{mr: mr, ft: ft, next: -1, reset: func(off, n int64) {
			mr.left = n
			if mr.mapped != nil {
				mr.pos = off
				return
			}
			br.Reset(io.NewSectionReader(r.cnt, off, n))
			mr.r = br
		}}
		sr, err := ipc.NewReaderFromMessageReader(bm, ipc.WithAllocator(mem))
		if err != nil {
			mr.Release()
			return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
		}
		r.it = &ipcStreamIter{r: sr, mr: mr, want: len(ft.records)}
	case fi.Format == fileread.FormatArrows:
		where = "schema"
		mr := newSafeMessageReader(bufio.NewReaderSize(r.cnt, 256<<10), fi.Size, mem)
		mr.bodies = bodies(s)
		r.mapInto(mr, s, 0)
		sr, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(mem))
		if err != nil {
			mr.Release()
			return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
		}
		r.it = &ipcStreamIter{r: sr, mr: mr, want: -1}
	default:
		return nil, fmt.Errorf("%w %q", fileread.ErrFormat, fi.Format)
	}
	return r, nil
}

// streamAllocLimit bounds a single allocation while decoding an Arrow stream from a FIFO or
// device, whose size is unknown (as package sources bounds standard input's): far above what
// a real record batch buffer needs, it bounds what a corrupt length field can allocate.
const streamAllocLimit = 4 << 30

// openSpecial opens a file that is not a regular file (a FIFO, a character device). Its
// open and its reads can wait for ever for a writer, so they follow s.Ctx (see
// fileread.OpenFile), and it has no size: an Arrow IPC stream is read front to back as
// standard input is. An Arrow IPC file or a Parquet file (footer) is read from its end,
// which such a file does not have: that is refused before opening it, rather than reading
// its size of 0 as an empty or a corrupt file.
func openSpecial(fi fileread.Info, s *fileread.Options, footer bool) (fileread.Reader, error) {
	if footer || fi.Format != fileread.FormatArrows {
		kind := "an Arrow IPC file"
		if footer {
			kind = "a Parquet file"
		}
		return nil, fileread.FileError(fi.Path, "", fmt.Errorf("%w: not a regular file (a FIFO or a device), and %s is read from its footer, which only a regular file has; give a regular file, or send an Arrow IPC stream (.arrows) or JSON Lines through it",
			fileread.ErrFormat, kind))
	}
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	in, err := fileread.OpenFile(ctx, fi.Path)
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	r, err := openStream(fi, s, in, streamAllocLimit)
	if err != nil {
		in.Close()
		if ctx.Err() != nil { // the schema's read was stopped: not a corrupt stream
			return nil, fileread.FileError(fi.Path, "schema", context.Cause(ctx))
		}
		return nil, err
	}
	r.in, r.stop = in, ctx
	return r, nil
}

// OpenStream reads an Arrow IPC stream from in (standard input), as Open reads an .arrows
// file; fi names it in errors. A stream has no size to check lengths against, so allocLimit
// bounds any single allocation instead. The reader does not close in.
func OpenStream(fi fileread.Info, s *fileread.Options, in io.Reader, allocLimit int64) (fileread.Reader, error) {
	r, err := openStream(fi, s, in, allocLimit)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func openStream(fi fileread.Info, s *fileread.Options, in io.Reader, allocLimit int64) (_ *arrowReader, err error) {
	// A stream's size is unknown: the bound of its allocations stands in for it in the
	// plausibility checks of its record batches (a size of 0 would refuse large batches).
	fi.Size = allocLimit
	r := &arrowReader{fi: fi, cnt: &countFile{r: in}, fields: s.Fields, max: s.MaxRecord}
	base := s.Mem
	if base == memory.DefaultAllocator {
		base = arrowBuffers
	}
	mem := fileread.LimitAllocator{Allocator: base, Limit: int(allocLimit)}
	defer func() {
		if err != nil {
			err = fileread.FileError(fi.Path, "schema", err)
		}
	}()
	defer fileread.Recovered(&err)
	mr := newSafeMessageReader(bufio.NewReaderSize(r.cnt, 256<<10), 1<<62, mem)
	mr.bodies = bodies(s)
	sr, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(mem))
	if err != nil {
		mr.Release()
		return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
	}
	r.it = &ipcStreamIter{r: sr, mr: mr, want: -1}
	return r, nil
}

func (r *arrowReader) BytesRead() int64 { return r.cnt.n }

func (r *arrowReader) Close() error {
	r.releaseDicts()
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.it != nil {
		func() {
			var err error
			defer fileread.Recovered(&err)
			r.it.Close()
		}()
		r.it = nil
	}
	if r.mapped != nil {
		r.mapped.release() // the map goes when the batches holding bodies are released too
		r.mapped = nil
	}
	if r.in != nil {
		err := r.in.Close()
		r.in = nil
		return err
	}
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

func (r *arrowReader) nextRecord() (rec arrow.Record, err error) {
	defer fileread.Recovered(&err)
	return r.it.Next()
}

func (r *arrowReader) Fill(b *fileread.Builder, n int) error {
	if r.pendingErr != nil {
		return r.pendingErr
	}
	for added := 0; added < n; {
		if r.rec == nil || r.row >= r.rec.NumRows() {
			if b.Columns && added > 0 {
				break // a columnar batch covers rows of one Arrow record only
			}
			if err := r.advance(); err != nil {
				return err
			}
			continue
		}
		k := min(int64(n-added), r.rec.NumRows()-r.row)
		seg := fileread.Seg{Rec: r.rec, Cols: r.cols, Row: r.row, FileRow: r.fileRow + r.row, K: k, CapHint: n, Where: r.it.Where()}
		var col fileread.Seg
		if b.Columns && added == 0 {
			// A columnar batch takes up to ColumnarRows rows of the record (DictColumnarRows
			// of dictionary columns): folding a row costs a few nanoseconds, so small batches
			// would cost more than their rows.
			col = seg
			col.K = min(max(int64(n), columnarRows(r.rec, r.cols)), r.rec.NumRows()-r.row)
		}
		switch {
		case col.Rec != nil && r.intColumns(b, col):
			// Records are built only if the consumer cannot use the columns.
			seg, k = col, col.K
			seg.Lazy = true
			b.Segs = append(b.Segs, seg)
			b.Rows += int(k)
			if b.Decode == nil {
				b.Decode = r.decodeBatch
			}
		case b.Deferred:
			seg.Start = len(b.Records)
			for i := int64(0); i < k; i++ {
				b.Add(seg.FileRow+i, n)
			}
			b.Segs = append(b.Segs, seg)
			if b.Decode == nil {
				b.Decode = r.decodeBatch
			}
		default:
			if err := r.convert(b, seg); err != nil {
				return err
			}
		}
		r.rec.Retain()
		b.Held = append(b.Held, r.rec)
		r.row += k
		added += int(k)
		if b.Cols != nil {
			break
		}
	}
	// Look ahead, so that the last batch of a file is known as such (it then covers the
	// rest of the file's bytes). An error surfaces on the next call.
	if r.row >= r.rec.NumRows() {
		if err := r.advance(); err == io.EOF {
			return io.EOF
		} else if err != nil {
			r.pendingErr = err
		}
	}
	return nil
}

// advance releases the current record and loads the next one that has rows.
func (r *arrowReader) advance() error {
	for {
		if r.rec != nil {
			r.fileRow += r.rec.NumRows()
			r.rec.Release()
			r.rec = nil
		}
		rec, err := r.nextRecord()
		if err == io.EOF {
			return io.EOF
		}
		if err != nil && r.stop != nil && r.stop.Err() != nil {
			return fileread.FileError(r.fi.Path, r.it.Where(), context.Cause(r.stop))
		}
		if err != nil {
			return fileread.FileError(r.fi.Path, r.it.Where(), err)
		}
		r.rec, r.row = rec, 0
		if err := CheckRecordBatch(rec, r.fi.Size); err != nil {
			return fileread.FileError(r.fi.Path, r.it.Where(), err)
		}
		for _, col := range rec.Columns() {
			buildDictionaries(col)
		}
		if rec.Schema() != r.schema {
			r.schema = rec.Schema()
			r.cols = columnsOf(r.schema, r.fields, nil) // batches keep the old one
			if o, ok := r.it.(interface{ OtherFields() map[string]bool }); ok {
				for f, c := range r.cols {
					if c < 0 && o.OtherFields()[r.fields[f]] {
						r.cols[f] = colOther
					}
				}
			}
		}
		if rec.NumRows() > 0 {
			return nil
		}
	}
}

// buildDictionaries builds the dictionary arrays of the dictionary arrays in arr (at any
// depth): arrow/go's Dictionary() builds its array on first use, unsynchronised, and the
// batches holding a record are converted on several workers at once.
func buildDictionaries(arr arrow.Array) {
	switch a := arr.(type) {
	case *array.Dictionary:
		buildDictionaries(a.Dictionary())
	case array.ListLike:
		buildDictionaries(a.ListValues())
	case *array.Struct:
		for i := 0; i < a.NumField(); i++ {
			buildDictionaries(a.Field(i))
		}
	}
}

// ColumnarRows is the most rows a columnar batch takes (when the batch size is smaller). A
// record's column buffers are freed when its last batch is released, so the batches in
// flight (the jobs queue, one per worker, the reader's) hold fewer whole records when they
// are smaller than a record: with the 64Ki-row records pyarrow writes, 16Ki rows (two
// columns, 256 KiB, which stay in a core's L2 cache) gave 3 MB less peak RSS and no
// slower a run than 64Ki rows (evalstream bench, 10M rows, 2 workers).
const ColumnarRows = 1 << 14

// DictColumnarRows is ColumnarRows for a record whose requested columns are all dictionary
// arrays. Such a batch is 4 bytes per row and column, and its fold (Folder.foldDicts)
// costs a pass over the codes plus a check and an add per distinct combination of values:
// with 16Ki rows, 100 combinations (10 classes against 10) cost as much as the pass;
// with 64Ki, a quarter.
const DictColumnarRows = 1 << 16

// columnarRows is the most rows of rec a columnar batch takes, cols its requested columns.
func columnarRows(rec arrow.Record, cols []int) int64 {
	for _, c := range cols {
		if c < 0 {
			continue
		}
		if _, ok := rec.Column(c).(*array.Dictionary); !ok {
			return ColumnarRows
		}
	}
	return DictColumnarRows
}

// convert builds the records of seg and fills in their values.
func (r *arrowReader) convert(b *fileread.Builder, seg fileread.Seg) error {
	if seg.Lazy || !b.Deferred {
		seg.Start = len(b.Records)
		for i := int64(0); i < seg.K; i++ {
			b.Add(seg.FileRow+i, seg.CapHint)
		}
	}
	if err := r.fillSeg(b, seg); err != nil {
		return fileread.FileError(r.fi.Path, fmt.Sprintf("%s, rows %d-%d", seg.Where, seg.Row, seg.Row+seg.K-1), err)
	}
	return nil
}

// decodeBatch converts the rows of a batch built in deferred mode, on the consumer's
// goroutine. It only reads the Arrow records the batch holds.
func (r *arrowReader) decodeBatch(b *fileread.Builder) error {
	for _, seg := range b.Segs {
		if err := r.convert(b, seg); err != nil {
			return err
		}
	}
	return nil
}

func (r *arrowReader) fillSeg(b *fileread.Builder, seg fileread.Seg) (err error) {
	defer fileread.Recovered(&err)
	recs := b.Records[seg.Start : seg.Start+int(seg.K)]
	for f, c := range seg.Cols {
		switch {
		case c >= 0:
			fillColumn(seg.Rec.Column(c), int(seg.Row), recs, f, &b.Ar)
		case c == colOther:
			for i := range recs {
				recs[i].Values[f] = core.Value{Kind: core.Other}
			}
		}
	}
	if r.max > 0 {
		for i := range recs {
			if sz := recordSize(recs[i].Values); sz > int64(r.max) {
				clear(recs[i].Values)
				recs[i].Err = fileread.TooLargeError(sz, r.max)
			}
		}
	}
	return nil
}

// intColumns sets b.Cols when every requested field of seg is an integer column without
// nulls (and such records are within the size limit): the columns then alias the Arrow
// buffers (int64) or are widened copies. It reports whether it did.
func (r *arrowReader) intColumns(b *fileread.Builder, seg fileread.Seg) (ok bool) {
	if len(seg.Cols) == 0 || r.max > 0 && 8*len(seg.Cols) > r.max {
		return false
	}
	defer func() {
		if recover() != nil { // a corrupt buffer: let the row path report it
			ok = false
		}
	}()
	ints := make([][]int64, len(seg.Cols))
	var dicts []*pipeline.DictColumn
	lo, hi := int(seg.Row), int(seg.Row+seg.K)
	for f, c := range seg.Cols {
		if c < 0 {
			return false
		}
		arr := seg.Rec.Column(c)
		if arr.NullN() > 0 {
			return false
		}
		switch a := arr.(type) {
		case *array.Dictionary:
			// A dictionary of integers also stands for the integers (pipeline.Columns):
			// the folder expands it only when the dictionaries cannot be folded.
			d := r.dictColumn(a, lo, hi, f)
			if d == nil {
				return false
			}
			if dicts == nil {
				dicts = make([]*pipeline.DictColumn, len(seg.Cols))
			}
			dicts[f] = d
		case *array.Int64:
			ints[f] = a.Int64Values()[lo:hi:hi]
		case *array.Int32:
			ints[f] = widen(a.Int32Values()[lo:hi])
		case *array.Int16:
			ints[f] = widen(a.Int16Values()[lo:hi])
		case *array.Int8:
			ints[f] = widen(a.Int8Values()[lo:hi])
		case *array.Uint32:
			ints[f] = widen(a.Uint32Values()[lo:hi])
		case *array.Uint16:
			ints[f] = widen(a.Uint16Values()[lo:hi])
		case *array.Uint8:
			ints[f] = widen(a.Uint8Values()[lo:hi])
		default:
			return false
		}
	}
	b.Cols = &pipeline.Columns{N: int(seg.K), Ints: ints, Dicts: dicts}
	return true
}

// dictColumn is rows lo..hi-1 of a dictionary array without nulls, the array of field f,
// as a pipeline.DictColumn: the dictionary converted once per dictionary (the batches of a
// Parquet column chunk or of an Arrow file share it, and a dictionary can be far larger
// than a batch) and shared by the batches, strings aliasing its buffers as fillColumn's do;
// the indices aliased when they are int32 and widened otherwise. It is nil when a
// dictionary value is null, or could make a record larger than the source's limit.
func (r *arrowReader) dictColumn(a *array.Dictionary, lo, hi, f int) *pipeline.DictColumn {
	vals := r.dictValues(a.Dictionary(), f)
	if vals == nil {
		return nil
	}
	var codes []int32
	switch ix := a.Indices().(type) {
	case *array.Int32:
		codes = ix.Int32Values()[lo:hi:hi]
	case *array.Int8:
		codes = widen32(ix.Int8Values()[lo:hi])
	case *array.Uint8:
		codes = widen32(ix.Uint8Values()[lo:hi])
	case *array.Int16:
		codes = widen32(ix.Int16Values()[lo:hi])
	case *array.Uint16:
		codes = widen32(ix.Uint16Values()[lo:hi])
	default: // 32-bit unsigned and 64-bit indices: the row path reads them
		return nil
	}
	return &pipeline.DictColumn{Values: vals, Codes: codes}
}

// dictValues is dictionary dict of field f converted for dictColumn, from the cache when
// it is the one the field had last; nil when it cannot be one.
func (r *arrowReader) dictValues(dict arrow.Array, f int) []core.Value {
	if len(r.dicts) <= f {
		r.dicts = append(r.dicts, make([]dictConv, f+1-len(r.dicts))...)
	}
	c := &r.dicts[f]
	if c.data == dict.Data() {
		return c.vals
	}
	if c.data != nil {
		c.data.Release()
	}
	c.data, c.vals = dict.Data(), nil
	c.data.Retain()
	if dict.NullN() > 0 || dict.Len() == 0 {
		return nil
	}
	recs := make([]pipeline.Record, dict.Len())
	vals := make([]core.Value, dict.Len())
	for i := range recs {
		recs[i].Values = vals[i : i+1 : i+1]
	}
	var ar fileread.Arena
	fillColumn(dict, 0, recs, 0, &ar)
	for i := range vals {
		if vals[i].Kind == core.Null || r.max > 0 && recordSize(vals[i:i+1])*int64(len(r.cols)) > int64(r.max) {
			return nil
		}
	}
	c.vals = vals
	return vals
}

func widen32[T int8 | uint8 | int16 | uint16](xs []T) []int32 {
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}

func widen[T integer](xs []T) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// colOther marks a field whose column exists but is not decoded (values are Other).
const colOther = -2

// columnsOf maps each field to the column of schema with that name (the last one when a
// name repeats, as a repeated JSON key), or -1.
func columnsOf(schema *arrow.Schema, fields []string, dst []int) []int {
	for _, f := range fields {
		idx := schema.FieldIndices(f)
		if len(idx) == 0 {
			dst = append(dst, -1)
		} else {
			dst = append(dst, idx[len(idx)-1])
		}
	}
	return dst
}

// ipcStreamIter reads the record batches of an Arrow IPC stream (or of the stream embedded
// in an Arrow IPC file).
type ipcStreamIter struct {
	r    *ipc.Reader
	mr   *safeMessageReader // r's
	i    int                // record batches returned
	cur  int                // the record batch being read or last returned
	want int                // record batches the file's footer lists; -1 for a stream
}

func (it *ipcStreamIter) Next() (arrow.Record, error) {
	it.cur = it.i
	if !it.r.Next() {
		if err := it.r.Err(); err != nil {
			return nil, fmt.Errorf("%w: %w", fileread.ErrCorrupt, err)
		}
		if it.want >= 0 && it.i != it.want {
			return nil, fmt.Errorf("%w: %w: the footer lists %d record batches, the file holds %d", fileread.ErrCorrupt, errBadMetadata, it.want, it.i)
		}
		return nil, io.EOF
	}
	it.i++
	it.mr.dropConsumed()
	rec := it.r.Record()
	rec.Retain()
	return rec, nil
}

// Where names the record batch being read or just returned.
func (it *ipcStreamIter) Where() string { return fmt.Sprintf("record batch %d", it.cur) }
func (it *ipcStreamIter) Close()        { it.r.Release() }

// CheckRecordBatch checks what arrow/go does not before a record batch read from size bytes
// is converted: a plausible row count (a corrupted count must not make a tiny input yield
// billions of records), and columns that agree with the batch (pyarrow's validation does
// this: a column claiming more rows or nulls than it has is corruption, not rows to skip).
// The error wraps fileread.ErrCorrupt.
func CheckRecordBatch(rec arrow.Record, size int64) error {
	if rows := rec.NumRows(); rows < 0 || rows > 64*size+1<<20 {
		return fmt.Errorf("%w: implausible row count %d for %d bytes of input", fileread.ErrCorrupt, rows, size)
	}
	for i, col := range rec.Columns() {
		if n := int64(col.Len()); n != rec.NumRows() || col.NullN() < 0 || col.NullN() > col.Len() {
			return fmt.Errorf("%w: column %q has %d rows and %d nulls in a record batch of %d rows", fileread.ErrCorrupt, rec.Schema().Field(i).Name, n, col.NullN(), rec.NumRows())
		}
	}
	return nil
}

// bstr returns a string aliasing b without copying (fileread.Bstr). b must not be modified
// afterwards.
func bstr(b []byte) string { return fileread.Bstr(b) }

// FillColumn sets value f of each record of recs from the rows of arr starting at row0,
// carving lists and unescaped strings from ar. Strings alias arr's buffers: they are valid
// while arr is. (Package parquet's tests compare its reader with pqarrow through it.)
func FillColumn(arr arrow.Array, row0 int, recs []pipeline.Record, f int, ar *fileread.Arena) {
	fillColumn(arr, row0, recs, f, ar)
}
