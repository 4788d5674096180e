package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/apache/arrow/go/v15/arrow/bitutil"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"
)

// arrow/go v15 lacks parts of the current Parquet format's encodings: BYTE_STREAM_SPLIT
// fails the column chunk ("unsupported data encoding"), DELTA_BYTE_ARRAY has no decoder for
// FIXED_LEN_BYTE_ARRAY ("unimplemented encoding type"), and its DELTA_BINARY_PACKED
// decoder (also under DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY) never frees a buffer
// and trusts its header's block sizes. plainPageReader sits between the page reader and the
// column reader and rewrites each data page in one of these encodings as the PLAIN page of
// the same values, which the column reader decodes; dictionaries, RLE booleans and PLAIN
// pages pass through unchanged.

// errEncodedPage is a data page whose values do not decode.
var errEncodedPage = errors.New("invalid data page")

// plainPageReader is a file.PageReader that hands out BYTE_STREAM_SPLIT and DELTA_* data
// pages as PLAIN ones and every other page unchanged. The pages it makes are its own
// (released on the next Next, or by release); it is not safe for concurrent use.
type plainPageReader struct {
	file.PageReader
	phys           parquet.Type
	mem            memory.Allocator // of the pages it makes: they count against the file's budget
	width          int              // bytes per value of fixed-width types; 0 for BOOLEAN, BYTE_ARRAY, INT96
	maxDef, maxRep int16
	page           file.Page // the page made from the inner reader's current one, or nil
	lastValue      []byte    // the last DELTA_BYTE_ARRAY value of the chunk's pages so far
	err            error
}

func newPlainPageReader(pr file.PageReader, col *schema.Column, mem memory.Allocator) *plainPageReader {
	width := 0
	switch col.PhysicalType() {
	case parquet.Types.Float, parquet.Types.Int32:
		width = 4
	case parquet.Types.Double, parquet.Types.Int64:
		width = 8
	case parquet.Types.FixedLenByteArray:
		width = col.TypeLength()
	}
	return &plainPageReader{PageReader: pr, phys: col.PhysicalType(), width: width, maxDef: col.MaxDefinitionLevel(), maxRep: col.MaxRepetitionLevel(), mem: mem}
}

func (p *plainPageReader) Next() bool {
	p.release()
	if p.err != nil || !p.PageReader.Next() {
		return false
	}
	pg := p.PageReader.Page()
	if pg == nil {
		return true
	}
	switch pg.Encoding() {
	case encByteStreamSplit, encDeltaBinaryPacked, encDeltaLengthByteArray, encDeltaByteArray:
	default:
		return true
	}
	p.page, p.err = p.plainPage(pg)
	return p.err == nil
}

// release frees the page made from the current one. The column reader does not ask for the
// next page once it has read the chunk's values: the owner of the reader calls release when
// it moves to the next column chunk or ends.
func (p *plainPageReader) release() {
	if p.page != nil {
		p.page.Release()
		p.page = nil
	}
}

func (p *plainPageReader) Page() file.Page {
	if p.page != nil {
		return p.page
	}
	return p.PageReader.Page()
}

func (p *plainPageReader) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.PageReader.Err()
}

// Encoding numbers of parquet.thrift (v15 names no BYTE_STREAM_SPLIT).
const (
	encDeltaBinaryPacked    = 5
	encDeltaLengthByteArray = 6
	encDeltaByteArray       = 7
	encByteStreamSplit      = 9
)

// plainPage returns the PLAIN page of the values of a BYTE_STREAM_SPLIT or DELTA_* data
// page, its levels unchanged.
func (p *plainPageReader) plainPage(pg file.Page) (_ file.Page, err error) {
	var out *pageOut
	defer func() {
		if err != nil && out != nil {
			out.buf.Release()
		}
	}()
	defer budgetErr(&err) // first: err is set before the buffer is released
	data := pg.Data()
	var levels int // bytes of repetition and definition levels before the values
	switch dp := pg.(type) {
	case *file.DataPageV1:
		if levels, err = v1LevelBytes(data, dp, p.maxRep, p.maxDef); err != nil {
			return nil, fmt.Errorf("%w: %w", errEncodedPage, err)
		}
	case *file.DataPageV2:
		levels = int(dp.RepetitionLevelByteLen()) + int(dp.DefinitionLevelByteLen())
		if levels < 0 || levels > len(data) {
			return nil, fmt.Errorf("%w: %d bytes of levels in a page of %d", errEncodedPage, levels, len(data))
		}
	default:
		return nil, fmt.Errorf("%w: a %s page", errEncodedPage, pg.Type())
	}
	out = &pageOut{buf: memory.NewResizableBuffer(p.mem)}
	copy(out.grow(levels), data[:levels])
	if err := p.decode(out, int(pg.Encoding()), data[levels:], int(pg.NumValues())); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", errEncodedPage, parquet.Encoding(pg.Encoding()), err)
	}
	buf := out.done()
	switch dp := pg.(type) {
	case *file.DataPageV1:
		return file.NewDataPageV1(buf, dp.NumValues(), parquet.Encodings.Plain, dp.DefinitionLevelEncoding(), dp.RepetitionLevelEncoding(), int32(buf.Len())), nil
	default:
		dp2 := dp.(*file.DataPageV2)
		return file.NewDataPageV2(buf, dp2.NumValues(), dp2.NumNulls(), dp2.NumRows(), parquet.Encodings.Plain,
			dp2.DefinitionLevelByteLen(), dp2.RepetitionLevelByteLen(), int32(buf.Len()), false), nil
	}
}

// unsplit writes the values of width bytes whose byte k is in stream k of src (each stream
// len(src)/width bytes) to dst, each value's bytes together.
func unsplit(dst, src []byte, width int) {
	n := len(src) / width
	switch width {
	case 4:
		s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
		for i := range n {
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(s0[i])|uint32(s1[i])<<8|uint32(s2[i])<<16|uint32(s3[i])<<24)
		}
	case 8:
		s := [8][]byte{}
		for k := range s {
			s[k] = src[k*n : (k+1)*n]
		}
		for i := range n {
			binary.LittleEndian.PutUint64(dst[8*i:], uint64(s[0][i])|uint64(s[1][i])<<8|uint64(s[2][i])<<16|uint64(s[3][i])<<24|
				uint64(s[4][i])<<32|uint64(s[5][i])<<40|uint64(s[6][i])<<48|uint64(s[7][i])<<56)
		}
	default:
		for k := 0; k < width; k++ {
			stream := src[k*n : (k+1)*n]
			for i, b := range stream {
				dst[i*width+k] = b
			}
		}
	}
}

// v1LevelBytes is the size of the repetition and definition levels at the start of a data
// page v1: each RLE-encoded with a 4-byte little-endian length, or (deprecated) BIT_PACKED
// in ceil(values * bit width / 8) bytes.
func v1LevelBytes(data []byte, dp *file.DataPageV1, maxRep, maxDef int16) (int, error) {
	n := 0
	for _, l := range []struct {
		max int16
		enc parquet.Encoding
	}{{maxRep, dp.RepetitionLevelEncoding()}, {maxDef, dp.DefinitionLevelEncoding()}} {
		if l.max == 0 {
			continue
		}
		switch l.enc {
		case parquet.Encodings.RLE:
			if len(data)-n < 4 {
				return 0, fmt.Errorf("levels run past the page's %d bytes", len(data))
			}
			size := int64(binary.LittleEndian.Uint32(data[n:]))
			if size > int64(len(data)-n-4) {
				return 0, fmt.Errorf("%d bytes of levels run past the page's %d bytes", size, len(data))
			}
			n += 4 + int(size)
		case parquet.Encodings.BitPacked:
			size := bitutil.BytesForBits(int64(dp.NumValues()) * int64(bits.Len16(uint16(l.max))))
			if size > int64(len(data)-n) {
				return 0, fmt.Errorf("%d bytes of levels run past the page's %d bytes", size, len(data))
			}
			n += int(size)
		default:
			return 0, fmt.Errorf("levels encoded %s", l.enc)
		}
	}
	return n, nil
}

// pageOut is a page being written, its buffer grown through the source's allocator.
type pageOut struct {
	buf *memory.Buffer
	n   int
}

// grow extends the page by k bytes and returns them.
func (o *pageOut) grow(k int) []byte {
	need := o.n + k
	if need > o.buf.Cap() {
		o.buf.Reserve(max(need, 2*o.buf.Cap()))
	}
	b := o.buf.Buf()[o.n:need]
	o.n = need
	return b
}

// done returns the page's buffer, its length the bytes written.
func (o *pageOut) done() *memory.Buffer {
	o.buf.ResizeNoShrink(o.n)
	return o.buf
}

// decode writes the PLAIN form of the nvals values (at most: nulls have none) of src,
// encoded enc, to out.
func (p *plainPageReader) decode(out *pageOut, enc int, src []byte, nvals int) error {
	switch enc {
	case encByteStreamSplit:
		if p.width == 0 {
			return fmt.Errorf("on %s", p.phys)
		}
		if len(src)%p.width != 0 || len(src)/p.width > nvals {
			return fmt.Errorf("%d bytes for at most %d values of %d bytes", len(src), nvals, p.width)
		}
		unsplit(out.grow(len(src)), src, p.width)
	case encDeltaBinaryPacked:
		if p.phys != parquet.Types.Int32 && p.phys != parquet.Types.Int64 {
			return fmt.Errorf("on %s", p.phys)
		}
		d, err := newDeltaReader(src, nvals)
		if err != nil {
			return err
		}
		for d.left() > 0 {
			v, err := d.next()
			if err != nil {
				return err
			}
			if p.width == 4 {
				binary.LittleEndian.PutUint32(out.grow(4), uint32(v))
			} else {
				binary.LittleEndian.PutUint64(out.grow(8), uint64(v))
			}
		}
	case encDeltaLengthByteArray:
		if p.phys != parquet.Types.ByteArray {
			return fmt.Errorf("on %s", p.phys)
		}
		lens, err := newDeltaReader(src, nvals)
		if err != nil {
			return err
		}
		if err := lens.skipAll(); err != nil {
			return err
		}
		data := src[lens.pos:]
		if lens, err = newDeltaReader(src[:lens.pos], nvals); err != nil {
			return err
		}
		for lens.left() > 0 {
			l, err := lens.next()
			if err != nil {
				return err
			}
			if l < 0 || l > int64(len(data)) {
				return fmt.Errorf("a value of %d bytes where %d are left", l, len(data))
			}
			b := out.grow(4 + int(l))
			binary.LittleEndian.PutUint32(b, uint32(l))
			copy(b[4:], data[:l])
			data = data[l:]
		}
	case encDeltaByteArray:
		if p.phys != parquet.Types.ByteArray && p.phys != parquet.Types.FixedLenByteArray {
			return fmt.Errorf("on %s", p.phys)
		}
		return p.deltaByteArray(out, src, nvals)
	}
	return nil
}

// deltaByteArray writes the PLAIN form of DELTA_BYTE_ARRAY values: the lengths of the
// prefixes each shares with the value before it (DELTA_BINARY_PACKED), the lengths of their
// suffixes (likewise) and the suffixes.
func (p *plainPageReader) deltaByteArray(out *pageOut, src []byte, nvals int) error {
	// Find where each stream of lengths ends, then read them side by side.
	var ends [2]int
	rest := src
	for i := range ends {
		d, err := newDeltaReader(rest, nvals)
		if err != nil {
			return err
		}
		if err := d.skipAll(); err != nil {
			return err
		}
		ends[i] = len(src) - len(rest) + d.pos
		rest = rest[d.pos:]
	}
	prefixes, err := newDeltaReader(src[:ends[0]], nvals)
	if err != nil {
		return err
	}
	suffixes, err := newDeltaReader(src[ends[0]:ends[1]], nvals)
	if err != nil {
		return err
	}
	if prefixes.left() != suffixes.left() {
		return fmt.Errorf("%d prefix lengths and %d suffix lengths", prefixes.left(), suffixes.left())
	}
	data := src[ends[1]:]
	header := 4 // the PLAIN length of a BYTE_ARRAY value
	if p.phys == parquet.Types.FixedLenByteArray {
		header = 0
	}
	// The first value's prefix is shared with the last value of the page before: parquet-mr
	// and arrow/go carry it over, and Arrow C++ reads it so.
	prev, prevLen := -1, len(p.lastValue) // offset in out of the previous value (-1: lastValue), its length
	for prefixes.left() > 0 {
		pre, err := prefixes.next()
		if err != nil {
			return err
		}
		suf, err := suffixes.next()
		if err != nil {
			return err
		}
		switch {
		case pre < 0 || pre > int64(prevLen):
			return fmt.Errorf("a prefix of %d bytes of a value of %d", pre, prevLen)
		case suf < 0 || suf > int64(len(data)):
			return fmt.Errorf("a suffix of %d bytes where %d are left", suf, len(data))
		case header == 0 && pre+suf != int64(p.width):
			return fmt.Errorf("a value of %d bytes in a column of %d-byte values", pre+suf, p.width)
		}
		n := int(pre + suf)
		start := out.n + header
		b := out.grow(header + n)
		if header > 0 {
			binary.LittleEndian.PutUint32(b, uint32(n))
		}
		if prev < 0 {
			copy(b[header:], p.lastValue[:pre])
		} else {
			copy(b[header:], out.buf.Buf()[prev:prev+int(pre)])
		}
		copy(b[header+int(pre):], data[:suf])
		data = data[suf:]
		prev, prevLen = start, n
	}
	if prev >= 0 {
		p.lastValue = append(p.lastValue[:0], out.buf.Buf()[prev:prev+prevLen]...)
	}
	return nil
}

// errDelta is a DELTA_BINARY_PACKED stream that does not follow the format.
var errDelta = errors.New("invalid DELTA_BINARY_PACKED data")

// deltaReader reads the values of a DELTA_BINARY_PACKED stream: a header (values per block,
// miniblocks per block, value count, first value), then blocks of a minimum delta, the bit
// width of each miniblock and the miniblocks of bit-packed deltas. Every count comes from
// the data and is checked against what the bytes can hold before it is used.
type deltaReader struct {
	src                []byte
	pos                int
	total, read        int
	valsPerMini, minis int
	last, minDelta     int64
	widths             []byte // of the current block's miniblocks
	mini               int    // next miniblock of the block
	bits               []byte // of the current miniblock
	width, inMini      int    // its bit width, values read from it
	acc                uint64
	nacc               uint
}

// newDeltaReader reads the header of a stream of at most maxVals values. Deltas of INT32
// values may take up to 64 bits, not 32: arrow/go's writer computes them without wrapping,
// and the values are the same modulo 2^32.
func newDeltaReader(src []byte, maxVals int) (*deltaReader, error) {
	d := &deltaReader{src: src}
	block, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	minis, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	total, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	if d.last, err = d.varint(); err != nil {
		return nil, err
	}
	switch {
	case block == 0 || block%128 != 0 || block > 1<<31:
		return nil, fmt.Errorf("%w: blocks of %d values", errDelta, block)
	case minis == 0 || block%minis != 0 || (block/minis)%32 != 0:
		return nil, fmt.Errorf("%w: %d miniblocks in blocks of %d values", errDelta, minis, block)
	case total > uint64(maxVals):
		return nil, fmt.Errorf("%w: %d values in a page of %d", errDelta, total, maxVals)
	}
	d.total, d.valsPerMini, d.minis = int(total), int(block/minis), int(minis)
	return d, nil
}

func (d *deltaReader) left() int { return d.total - d.read }

func (d *deltaReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.src[d.pos:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: truncated header", errDelta)
	}
	d.pos += n
	return v, nil
}

func (d *deltaReader) varint() (int64, error) {
	v, n := binary.Varint(d.src[d.pos:]) // zigzag, as the format's
	if n <= 0 {
		return 0, fmt.Errorf("%w: truncated header", errDelta)
	}
	d.pos += n
	return v, nil
}

func (d *deltaReader) take(n int) ([]byte, error) {
	if n > len(d.src)-d.pos {
		return nil, fmt.Errorf("%w: %d bytes needed where %d are left", errDelta, n, len(d.src)-d.pos)
	}
	b := d.src[d.pos : d.pos+n]
	d.pos += n
	return b, nil
}

// nextMini moves to the next miniblock (and block), taking its bytes whole: the last
// miniblock's padding included, as writers pad it.
func (d *deltaReader) nextMini() error {
	if d.mini == len(d.widths) {
		var err error
		if d.minDelta, err = d.varint(); err != nil {
			return err
		}
		if d.widths, err = d.take(d.minis); err != nil {
			return err
		}
		d.mini = 0
	}
	d.width = int(d.widths[d.mini])
	d.mini++
	if d.width > 64 {
		return fmt.Errorf("%w: deltas of %d bits", errDelta, d.width)
	}
	var err error
	d.bits, err = d.take(d.valsPerMini * d.width / 8)
	d.inMini, d.acc, d.nacc = 0, 0, 0
	return err
}

func (d *deltaReader) next() (int64, error) {
	if d.read == 0 {
		d.read = 1
		return d.last, nil // the first value is in the header
	}
	if d.read == 1 || d.inMini == d.valsPerMini {
		if err := d.nextMini(); err != nil {
			return 0, err
		}
	}
	var delta uint64
	for got := 0; got < d.width; {
		if d.nacc == 0 {
			d.acc, d.nacc = uint64(d.bits[0]), 8
			d.bits = d.bits[1:]
		}
		k := min(int(d.nacc), d.width-got)
		delta |= (d.acc & (1<<k - 1)) << got
		d.acc >>= k
		d.nacc -= uint(k)
		got += k
	}
	d.inMini++
	d.read++
	d.last = int64(uint64(d.last) + uint64(d.minDelta) + delta) // wrapping, as the format's
	return d.last, nil
}

// skipAll moves past every value left, a miniblock at a time, leaving pos at the end of the
// stream.
func (d *deltaReader) skipAll() error {
	if d.left() > 0 && d.read == 0 {
		d.read = 1
	}
	if d.left() > 0 && d.read > 1 {
		k := min(d.left(), d.valsPerMini-d.inMini)
		d.read += k
		d.inMini += k
	}
	for d.left() > 0 {
		if err := d.nextMini(); err != nil {
			return err
		}
		k := min(d.left(), d.valsPerMini)
		d.read += k
		d.inMini = k
	}
	return nil
}
