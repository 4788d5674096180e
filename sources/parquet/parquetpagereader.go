package parquet

import (
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/metadata"

	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// chunkPageReader reads the pages of one column chunk for arrow/go's column reader, in place
// of v15's page reader, which has no LZ4_RAW, allocates whatever size a page header claims
// before reading it, ignores a short read of a data page v2 (the missing bytes read as
// zeros, and so as values) and takes an uncompressed page shorter than its header says. Here
// every size in a page header is checked against the column chunk and the codec before
// anything is allocated, and a page must decompress to exactly its size.
//
// Pages are read through a window buffer of the chunk (one read for many small pages); a
// page larger than the window is read straight into its buffer. The pages it returns are
// allocated with the file's allocator and released on the next Next or by release. It is
// not safe for concurrent use.
type chunkPageReader struct {
	src        io.ReaderAt
	off, end   int64 // the next page's offset, the chunk's end
	valuesLeft int64 // values of the chunk (column metadata) not yet in a data page
	codec      int
	mem        memory.Allocator
	bodies     memory.Allocator // of the pages' uncompressed bytes: mem unless set (scratchAllocator)
	dec        *decompressors
	win        *pageWindow
	scratch    *memory.Buffer // compressed bytes of the current page
	page       file.Page
	pageOff    int64 // of the current page's header
	err        error
}

// pageWindow is a read-ahead buffer of a column chunk, shared by the chunks of one field.
type pageWindow struct {
	buf []byte
	off int64 // file offset of buf[0]
}

const (
	pageWindowSize = 64 << 10
	maxPageHeader  = 16 << 20 // as arrow/go and Arrow C++
)

// errPageHeader is a page header that cannot be read or makes no sense.
var errPageHeader = errors.New("invalid page header")

// newChunkPageReader reads column chunk cc of pf from src, a file of size bytes.
func newChunkPageReader(pf *file.Reader, cc *metadata.ColumnChunkMetaData, src io.ReaderAt, size int64, mem memory.Allocator, dec *decompressors, win *pageWindow) (*chunkPageReader, error) {
	if cc.CryptoMetadata() != nil {
		return nil, errors.New("encrypted column chunk: decryption is not supported")
	}
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
		start = cc.DictionaryPageOffset()
	}
	length := cc.TotalCompressedSize()
	if start < 0 || length < 0 || start > size || length > size-start {
		return nil, fmt.Errorf("column chunk of %d bytes at offset %d outside the file's %d bytes", length, start, size)
	}
	if pf.WriterVersion().LessThan(metadata.Parquet816FixedVersion) {
		// PARQUET-816: parquet-mr 1.2.8 and older left the dictionary page header out of
		// the chunk's size; read up to 100 bytes more, as Arrow C++ does.
		length += min(100, size-start-length)
	}
	if cc.NumValues() < 0 {
		return nil, fmt.Errorf("column chunk of %d values", cc.NumValues())
	}
	codec := int(cc.Compression())
	if _, ok := codecNames[codec]; !ok || codec == codecLZO {
		return nil, fmt.Errorf("%w %s", errCodec, codecName(codec))
	}
	return &chunkPageReader{src: src, off: start, end: start + length, valuesLeft: cc.NumValues(), codec: codec,
		mem: mem, dec: dec, win: win}, nil
}

func (p *chunkPageReader) Page() file.Page { return p.page }

func (p *chunkPageReader) Err() error { return p.err }

// SetMaxPageHeaderSize is part of file.PageReader; headers are bounded by maxPageHeader.
func (p *chunkPageReader) SetMaxPageHeaderSize(int) {}

// Reset is part of file.PageReader, for v15's readers; a chunkPageReader reads one chunk.
func (p *chunkPageReader) Reset(parquet.BufferedReader, int64, compress.Compression, *file.CryptoContext) {
	p.release()
	p.err = errors.New("parquet: a column chunk's page reader cannot be reset")
}

// release frees the current page and the scratch buffer: the column reader stops asking for
// pages once it has the chunk's values, so the owner calls it when it moves on.
func (p *chunkPageReader) release() {
	if p.page != nil {
		p.page.Release()
		p.page = nil
	}
	if p.scratch != nil {
		p.scratch.Release()
		p.scratch = nil
	}
}

func (p *chunkPageReader) Next() bool {
	if p.page != nil {
		p.page.Release()
		p.page = nil
	}
	for p.err == nil && p.valuesLeft > 0 && p.off < p.end {
		p.pageOff = p.off
		var skip bool
		skip, p.err = p.next()
		if p.err != nil {
			p.err = fmt.Errorf("page at offset %d: %w", p.off, p.err)
			return false
		}
		if !skip {
			return true
		}
	}
	return false
}

// next reads the page at p.off; skip is true for a page of a type readers skip.
func (p *chunkPageReader) next() (skip bool, err error) {
	defer budgetErr(&err)
	h, n, err := p.header()
	if err != nil {
		return false, err
	}
	body := p.off + int64(n)
	switch {
	case h.compressed < 0 || h.uncompressed < 0:
		return false, fmt.Errorf("%w: sizes %d compressed, %d uncompressed", errPageHeader, h.compressed, h.uncompressed)
	case int64(h.compressed) > p.end-body:
		return false, fmt.Errorf("%w: %d compressed bytes where the column chunk has %d left", errPageHeader, h.compressed, p.end-body)
	}
	switch h.typ {
	case pageDictionary, pageData, pageDataV2:
	default: // index pages and types added later
		p.off = body + int64(h.compressed)
		return true, nil
	}
	if h.numValues < 0 {
		return false, fmt.Errorf("%w: %d values", errPageHeader, h.numValues)
	}
	levels := 0 // bytes of levels stored uncompressed before the values (data page v2)
	compressed := p.codec != codecUncompressed
	if h.typ == pageDataV2 {
		levels = int(h.defLen) + int(h.repLen)
		if h.defLen < 0 || h.repLen < 0 || levels > int(h.compressed) || levels > int(h.uncompressed) {
			return false, fmt.Errorf("%w: levels of %d and %d bytes in a page of %d", errPageHeader, h.repLen, h.defLen, h.compressed)
		}
		compressed = compressed && h.v2Compressed
	}
	codec := p.codec
	if !compressed {
		codec = codecUncompressed
	}
	if bound := maxExpansion(codec, int(h.compressed)-levels); bound >= 0 && int64(h.uncompressed-int32(levels)) > bound {
		return false, fmt.Errorf("%w: %d bytes uncompressed, more than %d bytes of %s can hold", errPageHeader,
			h.uncompressed, h.compressed, codecName(codec))
	}
	buf, err := p.body(body, int(h.compressed), int(h.uncompressed), levels, codec)
	if err != nil {
		return false, err
	}
	p.off = body + int64(h.compressed)
	switch h.typ {
	case pageDictionary:
		p.page = file.NewDictionaryPage(buf, h.numValues, parquet.Encoding(h.encoding))
	case pageData:
		p.valuesLeft -= int64(h.numValues)
		p.page = file.NewDataPageV1(buf, h.numValues, parquet.Encoding(h.encoding), parquet.Encoding(h.defEncoding),
			parquet.Encoding(h.repEncoding), h.uncompressed)
	case pageDataV2:
		p.valuesLeft -= int64(h.numValues)
		p.page = file.NewDataPageV2(buf, h.numValues, h.numNulls, h.numRows, parquet.Encoding(h.encoding), h.defLen, h.repLen,
			h.uncompressed, false)
	}
	return false, nil
}

// body reads the page body at off (compressed bytes, the first levels of them stored
// uncompressed) into a new buffer of uncompressed bytes.
func (p *chunkPageReader) body(off int64, compressed, uncompressed, levels, codec int) (*memory.Buffer, error) {
	var in []byte
	if codec != codecUncompressed {
		// First: a buffer over the budget panics with no other allocation to undo.
		if p.scratch == nil {
			p.scratch = memory.NewResizableBuffer(p.mem)
		}
		p.scratch.ResizeNoShrink(compressed)
		in = p.scratch.Bytes()[:compressed]
	}
	bodies := p.bodies
	if bodies == nil {
		bodies = p.mem
	}
	buf := memory.NewResizableBuffer(bodies) // wholly overwritten below, or released
	buf.Resize(uncompressed)
	out := buf.Bytes()
	var err error
	if codec == codecUncompressed {
		if compressed != uncompressed {
			err = fmt.Errorf("%w: %d bytes stored where the header says %d uncompressed", errPageHeader, compressed, uncompressed)
		} else {
			err = p.read(out, off)
		}
	} else {
		if err = p.read(in, off); err == nil {
			copy(out, in[:levels])
			err = p.dec.decompress(codec, out[levels:], in[levels:])
		}
	}
	if err != nil {
		buf.Release()
		return nil, err
	}
	return buf, nil
}

// read fills dst with the bytes of the chunk at off, through the window when they fit it.
func (p *chunkPageReader) read(dst []byte, off int64) error {
	if len(dst) >= pageWindowSize {
		return readFullAt(p.src, dst, off)
	}
	b, err := p.peek(off, len(dst))
	if err != nil {
		return err
	}
	if len(b) < len(dst) {
		return fmt.Errorf("%d bytes at offset %d past the column chunk's end", len(dst), off)
	}
	copy(dst, b)
	return nil
}

// peek returns up to n bytes of the chunk at off (fewer at its end), valid until the next
// read or peek.
func (p *chunkPageReader) peek(off int64, n int) ([]byte, error) {
	n = int(min(int64(n), p.end-off))
	w := p.win
	if off >= w.off && off+int64(n) <= w.off+int64(len(w.buf)) {
		return w.buf[off-w.off : off-w.off+int64(n)], nil
	}
	size := int(min(int64(max(n, pageWindowSize)), p.end-off))
	if cap(w.buf) < size {
		w.buf = make([]byte, size)
	}
	w.buf, w.off = w.buf[:size], off
	if err := readFullAt(p.src, w.buf, off); err != nil {
		w.buf = w.buf[:0]
		return nil, err
	}
	return w.buf[:n], nil
}

// budgetErr turns the panic of a page buffer over the file's allocation budget
// (fileread.LimitAllocator) into *err, so that the error names the page and its field. Any other
// panic goes on.
func budgetErr(err *error) {
	if r := recover(); r != nil {
		e, isErr := r.(error)
		if !isErr || !errors.Is(e, fileread.ErrAllocTooLarge) {
			panic(r)
		}
		*err = e
	}
}

func readFullAt(src io.ReaderAt, dst []byte, off int64) error {
	n, err := src.ReadAt(dst, off)
	if n == len(dst) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading %d bytes at offset %d: %w", len(dst), off, err)
}

// header reads the page header at p.off and its size in bytes.
func (p *chunkPageReader) header() (pageHeader, int, error) {
	for n := 1024; ; n *= 4 {
		b, err := p.peek(p.off, n)
		if err != nil {
			return pageHeader{}, 0, err
		}
		h, used, err := parsePageHeader(b)
		switch {
		case err == nil:
			return h, used, nil
		case !errors.Is(err, errShortHeader):
			return pageHeader{}, 0, err
		case len(b) < n || n >= maxPageHeader: // the chunk (or the limit) ends inside it
			return pageHeader{}, 0, fmt.Errorf("%w: truncated after %d bytes", errPageHeader, len(b))
		}
	}
}
