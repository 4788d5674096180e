package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/metadata"

	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// A column chunk of a flat field (no list, at most one definition level) whose data pages
// are all dictionary-encoded, as pyarrow, polars and duckdb write low-cardinality columns
// (class labels, categories, small integers), is read here instead of by arrow/go's record
// reader, into Arrow dictionary arrays: the dictionary page once per chunk, then per page
// only the levels and the bit-packed indices, unpacked eight at a time. Consumers that count
// (pipeline.Folder.FoldColumns) then count per index and convert each dictionary value once;
// any other consumer gets the same values through package arrow's conversion of dictionary
// arrays. arrow/go would instead look up every index and copy the value, and the pipeline
// would check and fold every record.
//
// A chunk qualifies when its column metadata lists the encodings of its pages
// (encoding_stats, written by pyarrow, duckdb and arrow/go) and every data page there is
// RLE_DICTIONARY or PLAIN_DICTIONARY, or, without encoding_stats (polars), when its list of
// encodings holds a dictionary encoding and no other encoding of values than PLAIN (that of
// the dictionary page); and no level is in the deprecated BIT_PACKED encoding. The metadata
// is only a hint: a data page in another encoding (a writer's
// PLAIN fallback once its dictionary grew too large, under encoding_stats that do not
// list it) is valid, so the reader reports errDictFallback and the field reads the chunk
// again from its start by the generic path (parquetIter.fallback), skipping the rows
// already returned.

// errDictPage is a dictionary-encoded page (or the dictionary itself) that does not decode.
var errDictPage = errors.New("invalid dictionary-encoded page")

// errDictFallback is a data page of a chunk read as dictionary-encoded that is not: the
// chunk must be read by the generic path.
var errDictFallback = errors.New("a data page not dictionary-encoded")

const (
	encPlainDictionary = 2
	encRLE             = 3
	encBitPacked       = 4
	encRLEDictionary   = 8

	pageTypeData, pageTypeDictionary, pageTypeDataV2 = 0, 2, 3
)

// dictEligible reports whether the column chunk cc of field f is read by a dictReader.
func dictEligible(f *pqField, cc *metadata.ColumnChunkMetaData, maxDef, maxRep int16) bool {
	if len(f.lists) > 0 || f.group != nil || maxRep != 0 || maxDef > 1 || !cc.HasDictionaryPage() {
		return false
	}
	switch {
	case f.phys == parquet.Types.Int32 && f.leaf().ID() == arrow.INT32:
	case f.phys == parquet.Types.Int64 && f.leaf().ID() == arrow.INT64:
	case f.phys == parquet.Types.ByteArray && f.leaf().ID() == arrow.STRING:
	default:
		return false
	}
	dictEnc := false
	for _, e := range cc.Encodings() {
		switch e {
		case encBitPacked:
			return false
		case encRLEDictionary, encPlainDictionary:
			dictEnc = true
		case parquet.Encodings.Plain, encRLE:
		default: // DELTA_*, BYTE_STREAM_SPLIT: data pages that are not dictionary-encoded
			return false
		}
	}
	stats := cc.EncodingStats()
	if len(stats) == 0 {
		// No encoding_stats (polars writes none): the dictionary encoding is listed, so
		// the data pages are dictionary-encoded unless the writer fell back to PLAIN, which
		// the reader finds page by page (errDictFallback).
		return dictEnc
	}
	data := 0
	for _, s := range stats {
		switch int(s.PageType) {
		case pageTypeData, pageTypeDataV2:
			if s.Encoding != encRLEDictionary && s.Encoding != encPlainDictionary {
				return false
			}
			data++
		}
	}
	return data > 0
}

// dictReader reads the pages of one dictionary-encoded column chunk into dictionary arrays.
// The arrays it returns are the caller's; the dictionary is shared by them (reference
// counted). It is not safe for concurrent use.
type dictReader struct {
	pages  *chunkPageReader
	phys   parquet.Type
	leaf   arrow.DataType
	dtype  *arrow.DictionaryType
	maxDef int16
	mem    memory.Allocator
	idxMem memory.Allocator // of the index buffers handed out (scratchAllocator)
	dict   arrow.ArrayData  // nil until the dictionary page is read
	dictN  int

	// A page without nulls is not decoded in advance: its indices are decoded by stream
	// straight into the arrays handed out, left rows at a time.
	stream bool
	h      hybridReader
	left   int

	// A page with nulls is decoded at once: codes of its rows (0 for a null row) and one
	// byte per row (1: a value). They are carved from buffers of mem (the file's budget: a
	// page header's value count is not trusted) reused from page to page.
	codes           []int32
	valid           []byte
	nulls           bool
	pos             int // rows of the page returned
	scr             []int32
	codeBuf, scrBuf *memory.Buffer
	validBuf        *memory.Buffer
	err             error
}

// scratchAllocator is the allocator of the buffers the reader overwrites entirely before
// anything reads them, the decompressed pages and the dictionary indices handed out in
// records: the recycling pool of package arrow that does not zero (arrowsrc.ScratchBuffers)
// under the file's budget when the file's buffers come from Go's allocator (every run), so
// that the bytes of every page and the 4 bytes per row and column neither become garbage
// nor are cleared before being overwritten; mem itself otherwise (tests count allocations
// with a checked allocator).
func scratchAllocator(mem memory.Allocator) memory.Allocator {
	if la, ok := mem.(fileread.LimitAllocator); ok && la.Allocator == memory.DefaultAllocator {
		la.Allocator = arrowsrc.ScratchBuffers()
		return la
	}
	return mem
}

func newDictReader(f *pqField, pages *chunkPageReader, maxDef int16, mem, idxMem memory.Allocator) *dictReader {
	dtype := f.dictType
	if dtype == nil {
		dtype = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: f.leaf()}
	}
	return &dictReader{pages: pages, phys: f.phys, leaf: f.leaf(), maxDef: maxDef, mem: mem, idxMem: idxMem, dtype: dtype}
}

// release frees the dictionary (arrays handed out keep their reference) and the page
// buffers.
func (d *dictReader) release() {
	if d.dict != nil {
		d.dict.Release()
		d.dict = nil
	}
	for _, b := range []**memory.Buffer{&d.codeBuf, &d.scrBuf, &d.validBuf} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
	d.codes, d.scr, d.valid = nil, nil, nil
}

// carve resizes *b (allocated from mem on first use) to n bytes and returns them.
func (d *dictReader) carve(b **memory.Buffer, n int) []byte {
	if *b == nil {
		*b = memory.NewResizableBuffer(d.mem)
	}
	(*b).ResizeNoShrink(n)
	return (*b).Bytes()[:n]
}

// read returns the next n rows as a dictionary array; got < n (and no array) when the chunk
// ends first.
func (d *dictReader) read(n int64) (_ arrow.ArrayData, got int64, err error) {
	defer budgetErr(&err)
	idx := memory.NewResizableBuffer(d.idxMem)
	defer idx.Release()
	idx.Resize(arrow.Int32Traits.BytesRequired(int(n)))
	out := arrow.Int32Traits.CastFromBytes(idx.Bytes())[:n]
	var valid []byte // allocated at the first null
	nulls := 0
	for got < n {
		avail := d.avail()
		if avail == 0 {
			ok, err := d.nextPage()
			if err != nil {
				return nil, got, err
			}
			if !ok {
				return nil, got, nil
			}
			continue
		}
		k := min(int64(avail), n-got)
		if d.stream {
			if err := d.decodeStream(out[got : got+k]); err != nil {
				return nil, got, err
			}
			if valid != nil {
				bitutil.SetBitsTo(valid, got, k, true)
			}
			got += k
			continue
		}
		copy(out[got:got+k], d.codes[d.pos:d.pos+int(k)])
		if d.nulls {
			if valid == nil {
				valid = make([]byte, bitutil.BytesForBits(n))
				bitutil.SetBitsTo(valid, 0, got, true)
			}
			for i, v := range d.valid[d.pos : d.pos+int(k)] {
				if v != 0 {
					bitutil.SetBit(valid, int(got)+i)
				} else {
					nulls++
				}
			}
		} else if valid != nil {
			bitutil.SetBitsTo(valid, got, k, true)
		}
		d.pos += int(k)
		got += k
	}
	var vb *memory.Buffer
	if nulls > 0 {
		vb = memory.NewBufferBytes(valid)
	}
	return array.NewDataWithDictionary(d.dtype, int(n), []*memory.Buffer{vb, idx}, nulls, 0, d.dict.(*array.Data)), got, nil
}

// avail is the number of rows of the current page not yet returned.
func (d *dictReader) avail() int {
	if d.stream {
		return d.left
	}
	return len(d.codes) - d.pos
}

// decodeStream decodes the next len(dst) indices of a page without nulls into dst.
func (d *dictReader) decodeStream(dst []int32) error {
	if err := d.h.next(dst); err != nil { // the indices are checked against the dictionary's size
		d.err = fmt.Errorf("page at offset %d: %w: indices: %w", d.pages.pageOff, errDictPage, err)
		return d.err
	}
	d.left -= len(dst)
	return nil
}

// more reports whether the chunk holds rows beyond those read.
func (d *dictReader) more() (_ bool, err error) {
	defer budgetErr(&err)
	for d.avail() == 0 {
		ok, err := d.nextPage()
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// nextPage decodes the next data page (reading the dictionary page before it); false at
// the end of the chunk.
func (d *dictReader) nextPage() (bool, error) {
	if d.err != nil {
		return false, d.err
	}
	for {
		if !d.pages.Next() {
			d.err = d.pages.Err()
			return false, d.err
		}
		pg := d.pages.Page()
		var err error
		switch p := pg.(type) {
		case *file.DictionaryPage:
			err = d.readDict(p)
		case *file.DataPageV1:
			err = d.readData(p.Data(), int(p.NumValues()), parquet.Encoding(p.Encoding()), -1, p.DefinitionLevelEncoding())
		case *file.DataPageV2:
			if p.RepetitionLevelByteLen() != 0 {
				err = fmt.Errorf("%w: repetition levels in a column without lists", errDictPage)
				break
			}
			err = d.readData(p.Data(), int(p.NumValues()), parquet.Encoding(p.Encoding()), int(p.DefinitionLevelByteLen()), encRLE)
		default:
			continue
		}
		if err != nil {
			d.err = fmt.Errorf("page at offset %d: %w", d.pages.pageOff, err)
			return false, d.err
		}
		if _, ok := pg.(*file.DictionaryPage); !ok {
			return true, nil
		}
	}
}

// readDict converts the dictionary page's PLAIN values to the dictionary's Arrow array.
func (d *dictReader) readDict(p *file.DictionaryPage) error {
	if d.dict != nil {
		return fmt.Errorf("%w: a second dictionary page", errDictPage)
	}
	if e := parquet.Encoding(p.Encoding()); e != parquet.Encodings.Plain && e != encPlainDictionary {
		return fmt.Errorf("%w: dictionary page encoded %s", errDictPage, e)
	}
	src, n := p.Data(), int(p.NumValues())
	var bufs []*memory.Buffer
	switch d.phys {
	case parquet.Types.Int32, parquet.Types.Int64:
		width := 4
		if d.phys == parquet.Types.Int64 {
			width = 8
		}
		if int64(n)*int64(width) > int64(len(src)) {
			return fmt.Errorf("%w: %d dictionary values in %d bytes", errDictPage, n, len(src))
		}
		vals := memory.NewResizableBuffer(d.mem)
		vals.Resize(n * width)
		copy(vals.Bytes(), src)
		bufs = []*memory.Buffer{nil, vals}
	default: // BYTE_ARRAY: a 4-byte length before each value
		if n > len(src)/4 {
			return fmt.Errorf("%w: %d dictionary values in %d bytes", errDictPage, n, len(src))
		}
		offs := memory.NewResizableBuffer(d.mem)
		offs.Resize(arrow.Int32Traits.BytesRequired(n + 1))
		o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
		data := memory.NewResizableBuffer(d.mem)
		data.Reserve(len(src) - 4*n)
		pos, total := 0, 0
		for i := 0; i < n; i++ {
			if len(src)-pos < 4 {
				offs.Release()
				data.Release()
				return fmt.Errorf("%w: dictionary value %d runs past the page's %d bytes", errDictPage, i, len(src))
			}
			l := int(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
			if l < 0 || l > len(src)-pos {
				offs.Release()
				data.Release()
				return fmt.Errorf("%w: dictionary value %d of %d bytes runs past the page's %d bytes", errDictPage, i, l, len(src))
			}
			o[i] = int32(total)
			total += l
			pos += l
		}
		o[n] = int32(total)
		data.Resize(total)
		pos = 0
		b := data.Bytes()
		for i := 0; i < n; i++ {
			l := int(binary.LittleEndian.Uint32(src[pos:]))
			copy(b[o[i]:], src[pos+4:pos+4+l])
			pos += 4 + l
		}
		bufs = []*memory.Buffer{nil, offs, data}
	}
	d.dict = array.NewData(d.leaf, n, bufs, nil, 0, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	d.dictN = n
	return nil
}

// readData decodes a data page of nvals rows: its definition levels (defLen bytes of RLE
// for a page v2; -1 for a page v1, where a 4-byte length leads them) and the indices of
// its values.
func (d *dictReader) readData(src []byte, nvals int, enc parquet.Encoding, defLen int, defEnc parquet.Encoding) error {
	if enc != encRLEDictionary && enc != encPlainDictionary {
		return fmt.Errorf("%w: encoded %s", errDictFallback, enc)
	}
	if d.dict == nil {
		return fmt.Errorf("%w: a data page before the dictionary page", errDictPage)
	}
	if nvals < 0 {
		return fmt.Errorf("%w: %d values", errDictPage, nvals)
	}
	d.codes, d.pos, d.nulls, d.stream, d.left = d.codes[:0], 0, false, false, 0
	values := nvals
	if d.maxDef > 0 {
		if defEnc != encRLE {
			return fmt.Errorf("%w: definition levels encoded %s", errDictPage, defEnc)
		}
		if defLen < 0 {
			if len(src) < 4 {
				return fmt.Errorf("%w: levels run past the page's %d bytes", errDictPage, len(src))
			}
			defLen = int(binary.LittleEndian.Uint32(src))
			src = src[4:]
		}
		if defLen < 0 || defLen > len(src) {
			return fmt.Errorf("%w: %d bytes of levels in a page of %d", errDictPage, defLen, len(src))
		}
		levels := src[:defLen]
		src = src[defLen:]
		if !allDefined(levels, nvals) {
			d.scr = arrow.Int32Traits.CastFromBytes(d.carve(&d.scrBuf, arrow.Int32Traits.BytesRequired(nvals)))[:nvals]
			if err := decodeHybrid(d.scr, levels, 1); err != nil {
				return fmt.Errorf("%w: definition levels: %w", errDictPage, err)
			}
			values = 0
			for _, l := range d.scr {
				if l > 1 {
					return fmt.Errorf("%w: definition level %d above the column's maximum 1", errDictPage, l)
				}
				values += int(l)
			}
		}
		if values < nvals {
			d.nulls = true
			d.valid = d.carve(&d.validBuf, nvals)
			for i, l := range d.scr {
				d.valid[i] = byte(l)
			}
		}
	} else if defLen > 0 {
		src = src[min(defLen, len(src)):]
	}
	if values > 0 && len(src) < 1 {
		return fmt.Errorf("%w: no bit width", errDictPage)
	}
	if values > 0 && src[0] > 32 {
		return fmt.Errorf("%w: indices of %d bits", errDictPage, src[0])
	}
	if values > 0 && d.dictN == 0 {
		return fmt.Errorf("%w: %d indices into an empty dictionary", errDictPage, values)
	}
	if values == nvals && nvals > 0 {
		d.stream, d.left = true, nvals
		d.h = hybridReader{src: src[1:], width: int(src[0]), limit: uint32(d.dictN)}
		return nil
	}
	d.codes = arrow.Int32Traits.CastFromBytes(d.carve(&d.codeBuf, arrow.Int32Traits.BytesRequired(nvals)))[:nvals]
	if values == 0 {
		clear(d.codes)
		return nil
	}
	dst := d.codes[nvals-values:]
	h := hybridReader{src: src[1:], width: int(src[0]), limit: uint32(d.dictN)}
	if err := h.next(dst); err != nil {
		return fmt.Errorf("%w: indices: %w", errDictPage, err)
	}
	if d.nulls {
		// Spread the values' indices (at the end of codes) to their rows, front to back:
		// reads stay ahead of writes.
		j := nvals - values
		for i := range nvals {
			if d.valid[i] != 0 {
				d.codes[i] = d.codes[j]
				j++
			} else {
				d.codes[i] = 0
			}
		}
	}
	return nil
}

// allDefined reports whether the 1-bit definition levels src (RLE/bit-packing hybrid) start
// with RLE runs of 1 covering n values: the page has no null, and its levels need no
// decoding (writers encode a page without nulls as one such run).
func allDefined(src []byte, n int) bool {
	for n > 0 {
		h, k := binary.Uvarint(src)
		if k <= 0 || h&1 != 0 || len(src) < k+1 || src[k] != 1 || h>>1 == 0 {
			return false
		}
		src = src[k+1:]
		n -= int(min(h>>1, uint64(n)))
	}
	return true
}

// decodeHybrid decodes len(dst) values of width bits from src in the Parquet format's
// RLE/bit-packing hybrid encoding (without its length prefix).
func decodeHybrid(dst []int32, src []byte, width int) error {
	h := hybridReader{src: src, width: width}
	return h.next(dst)
}

// hybridReader decodes a stream in the RLE/bit-packing hybrid encoding incrementally. A
// bit-packed run is unpacked eight values (width bytes) at a time from one or a few 64-bit
// loads, straight into the destination; a group read only in part waits in buf. With limit
// set (dictionary indices: the dictionary's size), a value of limit or more is an error;
// bit-packed groups of up to 8 bits are checked eight values at a time (unpackSmall).
type hybridReader struct {
	src      []byte
	width    int
	limit    uint32 // 0: values are not checked
	pos      int    // of the next run's header
	rleLeft  int    // values left in the current RLE run
	rleVal   int32  // its value
	packLeft int    // values left in the current bit-packed run (its padding included)
	packPos  int    // byte offset of the run's next group
	buf      [8]int32
	bufPos   int
	bufLen   int
}

// next decodes the next len(dst) values into dst.
func (h *hybridReader) next(dst []int32) error {
	width := h.width
	mask := uint64(1)<<width - 1
	for len(dst) > 0 {
		switch {
		case h.bufPos < h.bufLen:
			if err := h.check(h.buf[h.bufPos:min(h.bufLen, h.bufPos+len(dst))]); err != nil {
				return err
			}
			k := copy(dst, h.buf[h.bufPos:h.bufLen])
			h.bufPos += k
			dst = dst[k:]
		case h.rleLeft > 0:
			k := min(h.rleLeft, len(dst))
			fill := dst[:k]
			for i := range fill {
				fill[i] = h.rleVal
			}
			h.rleLeft -= k
			dst = dst[k:]
		case h.packLeft > 0 && width == 0:
			k := min(h.packLeft, len(dst))
			clear(dst[:k])
			h.packLeft -= k
			dst = dst[k:]
		case h.packLeft > 0:
			avail := len(h.src) - h.packPos
			if groups := min(len(dst), h.packLeft) / 8; groups > 0 && groups*width <= avail {
				k := groups * 8
				src := h.src[h.packPos : h.packPos+groups*width]
				done, bad := 0, false
				if width <= 8 {
					done, bad = unpackSmall(dst[:k], src, width, h.limit)
				}
				if done < k {
					unpack(dst[done:k], src[done/8*width:], width, mask)
				}
				if bad {
					if err := h.check(dst[:done]); err != nil {
						return err
					}
				}
				if err := h.check(dst[done:k]); err != nil { // unpacked by unpack
					return err
				}
				h.packPos += groups * width
				h.packLeft -= k
				dst = dst[k:]
				continue
			}
			// One group, perhaps cut short at the end of the stream (its padding).
			got := min(8, h.packLeft, avail*8/width)
			if got < min(len(dst), 8, h.packLeft) {
				return fmt.Errorf("bit-packed run at byte %d runs past the %d bytes", h.packPos, len(h.src))
			}
			unpack(h.buf[:], h.src[h.packPos:], width, mask)
			h.bufPos, h.bufLen = 0, got
			h.packPos = min(h.packPos+width, len(h.src))
			h.packLeft -= min(8, h.packLeft)
		default:
			if err := h.header(); err != nil {
				return err
			}
		}
	}
	return nil
}

// header reads the header of the next run (and an RLE run's value).
func (h *hybridReader) header() error {
	v, n := binary.Uvarint(h.src[h.pos:])
	if n <= 0 {
		return fmt.Errorf("run header at byte %d: truncated or too long", h.pos)
	}
	h.pos += n
	if v&1 == 0 { // an RLE run: a count and one value
		count := v >> 1
		vbytes := (h.width + 7) / 8
		if len(h.src)-h.pos < vbytes {
			return fmt.Errorf("run value at byte %d runs past the %d bytes", h.pos, len(h.src))
		}
		var x uint64
		for k := 0; k < vbytes; k++ {
			x |= uint64(h.src[h.pos+k]) << (8 * k)
		}
		h.pos += vbytes
		if x > math.MaxInt32 {
			return fmt.Errorf("value %d beyond int32", x)
		}
		if count == 0 || count > math.MaxInt32 {
			return fmt.Errorf("RLE run of %d values at byte %d", count, h.pos)
		}
		if err := h.check([]int32{int32(x)}); err != nil {
			return err
		}
		h.rleLeft, h.rleVal = int(count), int32(x)
		return nil
	}
	groups := v >> 1
	if groups == 0 || groups > math.MaxInt32/8 || h.width > 0 && groups > uint64(len(h.src)) {
		return fmt.Errorf("bit-packed run of %d groups at byte %d", groups, h.pos)
	}
	h.packLeft, h.packPos = int(groups)*8, h.pos
	h.pos = min(h.pos+int(groups)*h.width, len(h.src))
	h.bufPos, h.bufLen = 0, 0
	return nil
}

// check reports a value of vals at or above h.limit (when set).
func (h *hybridReader) check(vals []int32) error {
	if h.limit == 0 {
		return nil
	}
	var hi uint32
	for _, v := range vals {
		hi = max(hi, uint32(v))
	}
	if hi >= h.limit {
		return fmt.Errorf("dictionary index %d of a dictionary of %d values", hi, h.limit)
	}
	return nil
}

// unpackSmall unpacks whole groups of 8 values of width 1 to 8 bits from src into dst, each
// group from one 64-bit load, while dst has a group and src 8 bytes; it returns how many
// values it unpacked. With limit > 0 it also reports whether one of them is limit or more:
// for limit < 2^width, the values of even and of odd lanes are spread apart, (2^width -
// limit) is added to each, and a value at or past the limit is one whose lane carries into
// the gap above it (SWAR: eight values checked in a few instructions).
func unpackSmall(dst []int32, src []byte, width int, limit uint32) (n int, bad bool) {
	w := uint(width) & 63
	mask := uint64(1)<<w - 1
	var even, carry, add uint64
	check := limit > 0 && uint64(limit) < 1<<w
	if check {
		k := uint64(1)<<w - uint64(limit)
		for j := uint(0); j < 8; j += 2 {
			even |= mask << (j * w & 63)
			carry |= 1 << ((j*w + w) & 63)
			add |= k << (j * w & 63)
		}
	}
	s2, s3, s4, s5, s6, s7 := 2*w&63, 3*w&63, 4*w&63, 5*w&63, 6*w&63, 7*w&63
	var acc uint64
	for len(dst)-n >= 8 && len(src) >= 8 {
		x := binary.LittleEndian.Uint64(src)
		o := (*[8]int32)(dst[n : n+8])
		o[0] = int32(x & mask)
		o[1] = int32(x >> w & mask)
		o[2] = int32(x >> s2 & mask)
		o[3] = int32(x >> s3 & mask)
		o[4] = int32(x >> s4 & mask)
		o[5] = int32(x >> s5 & mask)
		o[6] = int32(x >> s6 & mask)
		o[7] = int32(x >> s7 & mask)
		acc |= (x&even + add) | (x>>w&even + add)
		src = src[width:]
		n += 8
	}
	return n, check && acc&carry != 0
}

// unpack unpacks len(dst) values of width bits (LSB first) from src, which holds at least
// ceil(len(dst)*width/8) bytes.
func unpack(dst []int32, src []byte, width int, mask uint64) {
	var pad [40]byte // a group of 8 values is width <= 32 bytes; 8 more for the last load
	i := 0
	if width <= 8 {
		// Dictionary indices are mostly this narrow: a group is one 64-bit load, unrolled.
		w := uint(width)
		for p := 0; i+8 <= len(dst) && p+8 <= len(src); i, p = i+8, p+width {
			x := binary.LittleEndian.Uint64(src[p:])
			out := dst[i : i+8 : i+8]
			out[0] = int32(x & mask)
			out[1] = int32(x >> w & mask)
			out[2] = int32(x >> (2 * w) & mask)
			out[3] = int32(x >> (3 * w) & mask)
			out[4] = int32(x >> (4 * w) & mask)
			out[5] = int32(x >> (5 * w) & mask)
			out[6] = int32(x >> (6 * w) & mask)
			out[7] = int32(x >> (7 * w) & mask)
		}
	}
	for ; i+8 <= len(dst); i += 8 {
		g := src[(i/8)*width:]
		if len(g) < width+8 {
			copy(pad[:], g[:min(len(g), width)])
			clear(pad[min(len(g), width):])
			g = pad[:]
		}
		out := dst[i : i+8 : i+8]
		if width <= 8 {
			x := binary.LittleEndian.Uint64(g)
			for k := range out {
				out[k] = int32(x >> (uint(k * width)) & mask)
			}
			continue
		}
		for k := range out {
			bit := k * width
			x := binary.LittleEndian.Uint64(g[bit/8:])
			out[k] = int32(x >> uint(bit%8) & mask)
		}
	}
	if i < len(dst) {
		g := src[(i/8)*width:]
		n := min(len(g), width)
		copy(pad[:], g[:n])
		clear(pad[n:])
		for k := range dst[i:] {
			bit := k * width
			x := binary.LittleEndian.Uint64(pad[bit/8:])
			dst[i+k] = int32(x >> uint(bit%8) & mask)
		}
	}
}
