package parquet

import (
	"errors"
	"fmt"
)

// Page headers are Thrift structs in the compact protocol (parquet.thrift PageHeader). v15's
// generated code for them is internal to arrow/go, so the few fields a reader needs are read
// here; every other field is skipped, bounded by the bytes at hand and a nesting depth.

// Page types (parquet.thrift PageType).
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3
)

// pageHeader holds the fields of a PageHeader and of its data, dictionary or data v2 header.
type pageHeader struct {
	typ                      int32
	uncompressed, compressed int32
	numValues                int32 // of the page's own header
	encoding                 int32
	defEncoding, repEncoding int32 // data page v1
	numNulls, numRows        int32 // data page v2
	defLen, repLen           int32
	v2Compressed             bool
}

// errShortHeader is a header that runs past the bytes given: more may complete it.
var errShortHeader = errors.New("page header runs past the bytes read")

// Thrift compact protocol types.
const (
	tBoolTrue  = 1
	tBoolFalse = 2
	tByte      = 3
	tI16       = 4
	tI32       = 5
	tI64       = 6
	tDouble    = 7
	tBinary    = 8
	tList      = 9
	tSet       = 10
	tMap       = 11
	tStruct    = 12
)

const maxThriftDepth = 32

type thriftReader struct {
	b   []byte
	pos int
}

func (r *thriftReader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errShortHeader
	}
	r.pos++
	return r.b[r.pos-1], nil
}

func (r *thriftReader) uvarint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: varint of more than 64 bits", errPageHeader)
}

func (r *thriftReader) zigzag() (int64, error) {
	v, err := r.uvarint()
	return int64(v>>1) ^ -int64(v&1), err
}

func (r *thriftReader) i32() (int32, error) {
	v, err := r.zigzag()
	if err == nil && int64(int32(v)) != v {
		return 0, fmt.Errorf("%w: %d out of the range of an i32", errPageHeader, v)
	}
	return int32(v), err
}

func (r *thriftReader) skipBytes(n uint64) error {
	if n > uint64(len(r.b)-r.pos) {
		return errShortHeader
	}
	r.pos += int(n)
	return nil
}

// field reads a field header of a struct whose previous field id is *last; typ 0 ends the
// struct. Booleans are in the type (tBoolTrue, tBoolFalse).
func (r *thriftReader) field(last *int16) (typ byte, id int16, err error) {
	c, err := r.byte()
	if err != nil || c == 0 {
		return 0, 0, err
	}
	typ = c & 0x0f
	if delta := int16(c >> 4); delta != 0 {
		id = *last + delta
	} else {
		v, err := r.zigzag()
		if err != nil {
			return 0, 0, err
		}
		id = int16(v)
	}
	*last = id
	return typ, id, nil
}

// skip moves past a value of type typ; elem is true inside a list, set or map, where a
// boolean takes a byte.
func (r *thriftReader) skip(typ byte, elem bool, depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("%w: nested more than %d deep", errPageHeader, maxThriftDepth)
	}
	switch typ {
	case tBoolTrue, tBoolFalse:
		if elem {
			return r.skipBytes(1)
		}
		return nil
	case tByte:
		return r.skipBytes(1)
	case tI16, tI32, tI64:
		_, err := r.uvarint()
		return err
	case tDouble:
		return r.skipBytes(8)
	case tBinary:
		n, err := r.uvarint()
		if err != nil {
			return err
		}
		return r.skipBytes(n)
	case tList, tSet:
		c, err := r.byte()
		if err != nil {
			return err
		}
		n := uint64(c >> 4)
		if n == 15 {
			if n, err = r.uvarint(); err != nil {
				return err
			}
		}
		for ; n > 0; n-- { // every element takes a byte at least: bounded by the bytes
			if err := r.skip(c&0x0f, true, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		n, err := r.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := r.byte()
		if err != nil {
			return err
		}
		for ; n > 0; n-- {
			if err := r.skip(kv>>4, true, depth+1); err != nil {
				return err
			}
			if err := r.skip(kv&0x0f, true, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		var last int16
		for {
			t, _, err := r.field(&last)
			if err != nil || t == 0 {
				return err
			}
			if err := r.skip(t, false, depth+1); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("%w: unknown Thrift type %d", errPageHeader, typ)
}

// structFields calls fn for each field of a struct; fn returns false for fields it does
// not read, which are skipped.
func (r *thriftReader) structFields(fn func(typ byte, id int16) (bool, error)) error {
	var last int16
	for {
		typ, id, err := r.field(&last)
		if err != nil || typ == 0 {
			return err
		}
		read, err := fn(typ, id)
		if err != nil {
			return err
		}
		if !read {
			if err := r.skip(typ, false, 1); err != nil {
				return err
			}
		}
	}
}

// i32Field reads an i32 field into *dst, or errs if the field has another type.
func (r *thriftReader) i32Field(typ byte, id int16, dst *int32) (bool, error) {
	if typ != tI32 {
		return false, fmt.Errorf("%w: field %d of type %d, want i32", errPageHeader, id, typ)
	}
	v, err := r.i32()
	*dst = v
	return true, err
}

// parsePageHeader reads a PageHeader from the start of b and returns it with its size.
func parsePageHeader(b []byte) (pageHeader, int, error) {
	r := &thriftReader{b: b}
	h := pageHeader{typ: -1, uncompressed: -1, compressed: -1, numValues: -1, v2Compressed: true}
	var seen [9]bool
	err := r.structFields(func(typ byte, id int16) (bool, error) {
		if id > 0 && int(id) < len(seen) {
			seen[id] = true
		}
		switch id {
		case 1:
			return r.i32Field(typ, id, &h.typ)
		case 2:
			return r.i32Field(typ, id, &h.uncompressed)
		case 3:
			return r.i32Field(typ, id, &h.compressed)
		case 5, 7, 8: // DataPageHeader, DictionaryPageHeader, DataPageHeaderV2
			if typ != tStruct {
				return false, fmt.Errorf("%w: field %d of type %d, want a struct", errPageHeader, id, typ)
			}
			return true, r.structFields(func(typ byte, sub int16) (bool, error) {
				switch {
				case sub == 1:
					return r.i32Field(typ, sub, &h.numValues)
				case id == 5 && sub == 2, id == 7 && sub == 2, id == 8 && sub == 4:
					return r.i32Field(typ, sub, &h.encoding)
				case id == 5 && sub == 3:
					return r.i32Field(typ, sub, &h.defEncoding)
				case id == 5 && sub == 4:
					return r.i32Field(typ, sub, &h.repEncoding)
				case id == 8 && sub == 2:
					return r.i32Field(typ, sub, &h.numNulls)
				case id == 8 && sub == 3:
					return r.i32Field(typ, sub, &h.numRows)
				case id == 8 && sub == 5:
					return r.i32Field(typ, sub, &h.defLen)
				case id == 8 && sub == 6:
					return r.i32Field(typ, sub, &h.repLen)
				case id == 8 && sub == 7 && (typ == tBoolTrue || typ == tBoolFalse):
					h.v2Compressed = typ == tBoolTrue
					return true, nil
				}
				return false, nil
			})
		}
		return false, nil
	})
	if err != nil {
		return h, 0, err
	}
	if !seen[1] || !seen[2] || !seen[3] {
		return h, 0, fmt.Errorf("%w: no type or sizes", errPageHeader)
	}
	want := map[int32]int16{pageData: 5, pageDictionary: 7, pageDataV2: 8}[h.typ]
	if want != 0 && !seen[want] {
		return h, 0, fmt.Errorf("%w: a page of type %d without its header", errPageHeader, h.typ)
	}
	return h, r.pos, nil
}
