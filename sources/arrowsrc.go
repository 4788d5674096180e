package sources

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// recovered turns a panic of third-party decoding code (arrow/go v15 panics on some
// malformed input) into an error wrapping ErrCorrupt. It is the only place this package
// recovers.
func recovered(err *error) {
	if p := recover(); p != nil {
		if e, ok := p.(error); ok {
			*err = fmt.Errorf("%w: %w", ErrCorrupt, e)
		} else {
			*err = fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}
}

// errAllocTooLarge is raised (as a panic, inside arrow's decoders) by limitAllocator.
var errAllocTooLarge = errors.New("allocation larger than the file can justify")

// limitAllocator refuses single allocations far larger than the file being decoded could
// need, so that a corrupted length field becomes an error instead of exhausting memory.
// When live is set, it also refuses allocations that would take the bytes allocated and not
// yet freed past the limit: arrow/go's Parquet page reader holds the buffer of every page it
// skips until it returns, so a corrupted column chunk of many small pages claiming large
// sizes would otherwise exhaust memory one allowed allocation at a time. It is safe for
// concurrent use (batches are released on any goroutine).
type limitAllocator struct {
	memory.Allocator
	limit int
	live  *atomic.Int64 // bytes allocated and not freed; nil: not counted
}

func (a limitAllocator) Allocate(size int) []byte {
	a.reserve(size, size)
	return a.Allocator.Allocate(size)
}

func (a limitAllocator) Reallocate(size int, b []byte) []byte {
	a.reserve(size, size-len(b))
	return a.Allocator.Reallocate(size, b)
}

func (a limitAllocator) Free(b []byte) {
	if a.live != nil {
		a.live.Add(-int64(len(b)))
	}
	a.Allocator.Free(b)
}

// reserve panics with errAllocTooLarge unless an allocation of size bytes, growing the live
// bytes by grow, is within the limit.
func (a limitAllocator) reserve(size, grow int) {
	if size < 0 || size > a.limit {
		panic(fmt.Errorf("%w: %d bytes", errAllocTooLarge, size))
	}
	if a.live != nil {
		if live := a.live.Add(int64(grow)); live > int64(a.limit) {
			a.live.Add(-int64(grow))
			panic(fmt.Errorf("%w: %d bytes live", errAllocTooLarge, live))
		}
	}
}

func allocLimit(size int64) int {
	// Compressed Arrow buffers may expand a lot; stay generous but bounded.
	const slack, limit = 64 << 20, 1 << 46
	if size < 0 || size > (limit-slack)/1024 {
		return limit
	}
	return int(size*1024 + slack)
}

// countFile counts the bytes read from a file (Read and ReadAt) for progress reporting.
type countFile struct {
	f *os.File
	n int64
}

func (c *countFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
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
func (r *arrowReader) mapInto(mr *safeMessageReader, s *fileSource, off int64) {
	if s.mem != memory.DefaultAllocator {
		return
	}
	if r.mapped = mapFile(r.f, r.fi.size); r.mapped != nil {
		mr.mapped, mr.pos, mr.cnt = r.mapped, off, r.cnt
	}
}

// bodies returns the allocator of Arrow IPC message bodies: the recycling pool, unless the
// source was given its own allocator (tests count allocations with a checked one).
func (s *fileSource) bodies() memory.Allocator {
	if s.mem == memory.DefaultAllocator {
		return arrowBodies
	}
	return nil
}

// recordIter yields the Arrow records of one file.
type recordIter interface {
	// next returns the next record, owned by the caller, or io.EOF.
	next() (arrow.Record, error)
	// where names the part of the file the last next call read, for errors.
	where() string
	close()
}

// arrowReader reads Arrow IPC files and streams and Parquet files.
type arrowReader struct {
	fi      fileInfo
	f       *os.File
	cnt     *countFile
	it      recordIter
	fields  []string
	max     int
	rec     arrow.Record // current record, owned
	row     int64        // next row of rec
	fileRow int64        // row index within the file of rec's row 0
	schema  *arrow.Schema
	cols    []int       // per field: column of rec, or -1
	mapped  *mappedFile // the file's memory map, when message bodies alias it

	pendingErr error // found while looking ahead; returned by the next fill
}

func openArrowish(fi fileInfo, s *fileSource) (_ fileReader, err error) {
	f, err := os.Open(fi.path)
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	r := &arrowReader{fi: fi, f: f, cnt: &countFile{f: f}, fields: s.fields, max: s.maxRecord}
	base := s.mem
	if base == memory.DefaultAllocator && fi.format != FormatParquet {
		base = arrowBuffers
	}
	mem := limitAllocator{Allocator: base, limit: allocLimit(fi.size)}
	if fi.format == FormatParquet {
		mem.live = new(atomic.Int64)
	}
	where := "header"
	defer func() {
		if err != nil {
			if r.mapped != nil {
				r.mapped.release()
				r.mapped = nil
			}
			f.Close()
			err = fileError(fi.path, where, err)
		}
	}()
	defer recovered(&err)
	switch fi.format {
	case FormatArrow:
		// An Arrow IPC file is "ARROW1", padding, messages, the footer (the schema and an
		// index of the dictionary and record batch messages), its length and "ARROW1". As
		// pyarrow does, the schema comes from the verified footer and the messages are read
		// where the footer says (polars puts no schema message before them), each through
		// the same verified message reader as .arrows files. (arrow/go v15's FileReader
		// trusts the metadata and never releases its dictionaries.)
		where = "footer"
		ft, err := readFooter(f, fi.size) // not progress: read f directly
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		var head [8]byte
		if _, err := f.ReadAt(head[:], 0); err != nil || string(head[:6]) != "ARROW1" {
			return nil, fmt.Errorf("%w: %w: no leading magic", ErrCorrupt, errBadMetadata)
		}
		where = "schema"
		mr := newSafeMessageReader(nil, 0, mem)
		mr.bodies = s.bodies()
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
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		r.it = &ipcStreamIter{r: sr, mr: mr, want: len(ft.records)}
	case FormatArrows:
		where = "schema"
		mr := newSafeMessageReader(bufio.NewReaderSize(r.cnt, 256<<10), fi.size, mem)
		mr.bodies = s.bodies()
		r.mapInto(mr, s, 0)
		sr, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(mem))
		if err != nil {
			mr.Release()
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		r.it = &ipcStreamIter{r: sr, mr: mr, want: -1}
	case FormatParquet:
		where = "footer"
		props := parquet.NewReaderProperties(mem)
		props.BufferedStreamEnabled = true
		props.BufferSize = 256 << 10
		pf, err := file.NewParquetReader(r.cnt, file.WithReadProps(props))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		it, err := newParquetIter(pf, r.cnt, s.fields, s.batchSize, mem)
		if err != nil {
			pf.Close()
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		r.it = it
	default:
		return nil, fmt.Errorf("%w %q", ErrFormat, fi.format)
	}
	return r, nil
}

func (r *arrowReader) bytesRead() int64 { return r.cnt.n }

func (r *arrowReader) close() error {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.it != nil {
		func() {
			var err error
			defer recovered(&err)
			r.it.close()
		}()
		r.it = nil
	}
	if r.mapped != nil {
		r.mapped.release() // the map goes when the batches holding bodies are released too
		r.mapped = nil
	}
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

func (r *arrowReader) nextRecord() (rec arrow.Record, err error) {
	defer recovered(&err)
	return r.it.next()
}

func (r *arrowReader) fill(b *batchBuilder, n int) error {
	if r.pendingErr != nil {
		return r.pendingErr
	}
	for added := 0; added < n; {
		if r.rec == nil || r.row >= r.rec.NumRows() {
			if b.columns && added > 0 {
				break // a columnar batch covers rows of one Arrow record only
			}
			if err := r.advance(); err != nil {
				return err
			}
			continue
		}
		k := min(int64(n-added), r.rec.NumRows()-r.row)
		seg := arrowSeg{rec: r.rec, cols: r.cols, row: r.row, fileRow: r.fileRow + r.row, k: k, capHint: n, where: r.it.where()}
		var col arrowSeg
		if b.columns && added == 0 {
			// A columnar batch takes up to columnarRows rows of the record: folding a row
			// costs a few nanoseconds, so small batches would cost more than their rows.
			col = seg
			col.k = min(max(int64(n), columnarRows), r.rec.NumRows()-r.row)
		}
		switch {
		case col.rec != nil && r.intColumns(b, col):
			// Records are built only if the consumer cannot use the columns.
			seg, k = col, col.k
			seg.lazy = true
			b.segs = append(b.segs, seg)
			b.rows += int(k)
			if b.decode == nil {
				b.decode = r.decodeBatch
			}
		case b.deferred:
			seg.start = len(b.records)
			for i := int64(0); i < k; i++ {
				b.add(seg.fileRow+i, n)
			}
			b.segs = append(b.segs, seg)
			if b.decode == nil {
				b.decode = r.decodeBatch
			}
		default:
			if err := r.convert(b, seg); err != nil {
				return err
			}
		}
		r.rec.Retain()
		b.held = append(b.held, r.rec)
		r.row += k
		added += int(k)
		if b.cols != nil {
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
		if err != nil {
			return fileError(r.fi.path, r.it.where(), err)
		}
		r.rec, r.row = rec, 0
		if err := CheckRecordBatch(rec, r.fi.size); err != nil {
			return fileError(r.fi.path, r.it.where(), err)
		}
		if rec.Schema() != r.schema {
			r.schema = rec.Schema()
			r.cols = columnsOf(r.schema, r.fields, nil) // batches keep the old one
			if o, ok := r.it.(interface{ otherFields() map[string]bool }); ok {
				for f, c := range r.cols {
					if c < 0 && o.otherFields()[r.fields[f]] {
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

// columnarRows is the most rows a columnar batch takes (when the batch size is smaller). A
// record's column buffers are freed when its last batch is released, so the batches in
// flight (the jobs queue, one per worker, the reader's) hold fewer whole records when they
// are smaller than a record: with the 64Ki-row records pyarrow writes, 16Ki rows (two
// columns, 256 KiB, which stay in a core's L2 cache) gave 3 MB less peak RSS and no
// slower a run than 64Ki rows (evalstream bench, 10M rows, 2 workers).
const columnarRows = 1 << 14

// arrowSeg is a run of rows of one Arrow record that belongs to a batch.
type arrowSeg struct {
	rec     arrow.Record
	cols    []int // per field: column of rec, colOther or -1
	row     int64 // first row in rec
	fileRow int64 // its row index in the file
	k       int64 // rows
	start   int   // index of its first record in the batch (when built)
	capHint int
	lazy    bool   // records not built yet (columnar batch)
	where   string // the part of the file, for errors
}

// convert builds the records of seg and fills in their values.
func (r *arrowReader) convert(b *batchBuilder, seg arrowSeg) error {
	if seg.lazy || !b.deferred {
		seg.start = len(b.records)
		for i := int64(0); i < seg.k; i++ {
			b.add(seg.fileRow+i, seg.capHint)
		}
	}
	if err := r.fillSeg(b, seg); err != nil {
		return fileError(r.fi.path, fmt.Sprintf("%s, rows %d-%d", seg.where, seg.row, seg.row+seg.k-1), err)
	}
	return nil
}

// decodeBatch converts the rows of a batch built in deferred mode, on the consumer's
// goroutine. It only reads the Arrow records the batch holds.
func (r *arrowReader) decodeBatch(b *batchBuilder) error {
	for _, seg := range b.segs {
		if err := r.convert(b, seg); err != nil {
			return err
		}
	}
	return nil
}

func (r *arrowReader) fillSeg(b *batchBuilder, seg arrowSeg) (err error) {
	defer recovered(&err)
	recs := b.records[seg.start : seg.start+int(seg.k)]
	for f, c := range seg.cols {
		switch {
		case c >= 0:
			fillColumn(seg.rec.Column(c), int(seg.row), recs, f, &b.ar)
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
				recs[i].Err = tooLargeError(sz, r.max)
			}
		}
	}
	return nil
}

// intColumns sets b.cols when every requested field of seg is an integer column without
// nulls (and such records are within the size limit): the columns then alias the Arrow
// buffers (int64) or are widened copies. It reports whether it did.
func (r *arrowReader) intColumns(b *batchBuilder, seg arrowSeg) (ok bool) {
	if len(seg.cols) == 0 || r.max > 0 && 8*len(seg.cols) > r.max {
		return false
	}
	defer func() {
		if recover() != nil { // a corrupt buffer: let the row path report it
			ok = false
		}
	}()
	ints := make([][]int64, len(seg.cols))
	lo, hi := int(seg.row), int(seg.row+seg.k)
	for f, c := range seg.cols {
		if c < 0 {
			return false
		}
		arr := seg.rec.Column(c)
		if arr.NullN() > 0 {
			return false
		}
		switch a := arr.(type) {
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
	b.cols = &pipeline.Columns{N: int(seg.k), Ints: ints}
	return true
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

func (it *ipcStreamIter) next() (arrow.Record, error) {
	it.cur = it.i
	if !it.r.Next() {
		if err := it.r.Err(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if it.want >= 0 && it.i != it.want {
			return nil, fmt.Errorf("%w: %w: the footer lists %d record batches, the file holds %d", ErrCorrupt, errBadMetadata, it.want, it.i)
		}
		return nil, io.EOF
	}
	it.i++
	it.mr.dropConsumed()
	rec := it.r.Record()
	rec.Retain()
	return rec, nil
}

// where names the record batch being read or just returned.
func (it *ipcStreamIter) where() string { return fmt.Sprintf("record batch %d", it.cur) }
func (it *ipcStreamIter) close()        { it.r.Release() }

// CheckRecordBatch checks what arrow/go does not before a record batch read from size bytes
// is converted: a plausible row count (a corrupted count must not make a tiny input yield
// billions of records), and columns that agree with the batch (pyarrow's validation does
// this: a column claiming more rows or nulls than it has is corruption, not rows to skip).
// The error wraps ErrCorrupt.
func CheckRecordBatch(rec arrow.Record, size int64) error {
	if rows := rec.NumRows(); rows < 0 || rows > 64*size+1<<20 {
		return fmt.Errorf("%w: implausible row count %d for %d bytes of input", ErrCorrupt, rows, size)
	}
	for i, col := range rec.Columns() {
		if n := int64(col.Len()); n != rec.NumRows() || col.NullN() < 0 || col.NullN() > col.Len() {
			return fmt.Errorf("%w: column %q has %d rows and %d nulls in a record batch of %d rows", ErrCorrupt, rec.Schema().Field(i).Name, n, col.NullN(), rec.NumRows())
		}
	}
	return nil
}
