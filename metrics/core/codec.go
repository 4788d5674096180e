package core

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Encoder appends primitive values to a byte slice for state serialization. The zero value
// is ready to use.
type Encoder struct{ B []byte }

func (e *Encoder) Byte(b byte)      { e.B = append(e.B, b) }
func (e *Encoder) Uvarint(x uint64) { e.B = binary.AppendUvarint(e.B, x) }
func (e *Encoder) Varint(x int64)   { e.B = binary.AppendVarint(e.B, x) }
func (e *Encoder) Float64(f float64) {
	e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(f))
}
func (e *Encoder) String(s string) { e.Uvarint(uint64(len(s))); e.B = append(e.B, s...) }
func (e *Encoder) Bool(b bool)     { e.Byte(map[bool]byte{false: 0, true: 1}[b]) }
func (e *Encoder) Int64s(xs []int64) {
	e.Uvarint(uint64(len(xs)))
	for _, x := range xs {
		e.Varint(x)
	}
}
func (e *Encoder) Float64s(xs []float64) {
	e.Uvarint(uint64(len(xs)))
	for _, x := range xs {
		e.Float64(x)
	}
}

// Sum writes an exact sum by its value (Sum.canonicalTerms): sums equal whatever the order
// of their additions and merges write the same bytes.
func (e *Encoder) Sum(s *Sum) {
	var flags byte
	if s.posInf {
		flags |= 1
	}
	if s.negInf {
		flags |= 2
	}
	if s.nan {
		flags |= 4
	}
	e.Byte(flags)
	e.Float64s(s.canonicalTerms())
}

// Decoder reads what an Encoder wrote. The first error sticks: later reads return zero
// values and Err reports it. A Decoder never panics on malformed input.
type Decoder struct {
	B   []byte
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{B: b} }

func (d *Decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated or malformed %s", ErrCorruptState, what)
	}
}

// Err returns the first decoding error.
func (d *Decoder) Err() error { return d.err }

// Finish returns the first error, or an error when unread bytes remain.
func (d *Decoder) Finish() error {
	if d.err == nil && len(d.B) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrCorruptState, len(d.B))
	}
	return d.err
}

func (d *Decoder) Byte() byte {
	if d.err != nil || len(d.B) < 1 {
		d.fail("byte")
		return 0
	}
	b := d.B[0]
	d.B = d.B[1:]
	return b
}

func (d *Decoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.B = d.B[n:]
	return x
}

func (d *Decoder) Varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.B)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.B = d.B[n:]
	return x
}

func (d *Decoder) Float64() float64 {
	if d.err != nil || len(d.B) < 8 {
		d.fail("float64")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.B))
	d.B = d.B[8:]
	return f
}

func (d *Decoder) Bool() bool { return d.Byte() != 0 }

// Len reads a length and checks that at least min bytes per element remain, so corrupt
// input cannot trigger a huge allocation.
func (d *Decoder) Len(minBytesPerElem int) int {
	n := d.Uvarint()
	if d.err != nil {
		return 0
	}
	if minBytesPerElem < 1 {
		minBytesPerElem = 1
	}
	if n > uint64(len(d.B)/minBytesPerElem) {
		d.fail("length")
		return 0
	}
	return int(n)
}

func (d *Decoder) String() string {
	n := d.Len(1)
	if d.err != nil {
		return ""
	}
	s := string(d.B[:n])
	d.B = d.B[n:]
	return s
}

func (d *Decoder) Int64s() []int64 {
	n := d.Len(1)
	out := make([]int64, n)
	for i := range out {
		out[i] = d.Varint()
	}
	return out
}

func (d *Decoder) Float64s() []float64 {
	n := d.Len(8)
	out := make([]float64, n)
	for i := range out {
		out[i] = d.Float64()
	}
	return out
}

// Sum reads an exact sum written by Encoder.Sum. Each partial is re-added, so a corrupt
// (overlapping) partial list still yields a valid Sum.
func (d *Decoder) Sum() Sum {
	flags := d.Byte()
	var s Sum
	for _, p := range d.Float64s() {
		s.Add(p)
	}
	s.posInf, s.negInf, s.nan = flags&1 != 0, flags&2 != 0, flags&4 != 0
	return s
}

// Version reads a format version byte and fails unless it equals want.
func (d *Decoder) Version(what string, want byte) {
	if v := d.Byte(); d.err == nil && v != want {
		d.err = fmt.Errorf("%w: %s state format version %d, this build reads version %d", ErrCorruptState, what, v, want)
	}
}
