package arrow

import (
	"errors"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// The conversion below walks Arrow buffers directly. Strings alias the Arrow buffers (no
// copy), so they are valid while the record is retained (until Batch.Release). Every index
// into a buffer goes through Go's bounds checks: a corrupted offset panics (recovered by the
// caller and turned into an error) instead of reading stray memory.

var (
	errBadOffsets   = errors.New("list offsets out of range")
	errBadDictIndex = errors.New("dictionary index out of range")
)

// fillColumn sets Values[f] of recs from rows row0.. of arr.
func fillColumn(arr arrow.Array, row0 int, recs []pipeline.Record, f int, ar *fileread.Arena) {
	switch a := arr.(type) {
	case *array.Null:
		for i := range recs {
			recs[i].Values[f] = core.Value{Kind: core.Null}
		}
		return
	case *array.Int8:
		fillInts(a.Int8Values(), arr, row0, recs, f)
		return
	case *array.Int16:
		fillInts(a.Int16Values(), arr, row0, recs, f)
		return
	case *array.Int32:
		fillInts(a.Int32Values(), arr, row0, recs, f)
		return
	case *array.Int64:
		fillInts(a.Int64Values(), arr, row0, recs, f)
		return
	case *array.Uint8:
		fillInts(a.Uint8Values(), arr, row0, recs, f)
		return
	case *array.Uint16:
		fillInts(a.Uint16Values(), arr, row0, recs, f)
		return
	case *array.Uint32:
		fillInts(a.Uint32Values(), arr, row0, recs, f)
		return
	case *array.Uint64:
		vals := a.Uint64Values()
		nulls := arr.NullN() > 0
		for i := range recs {
			j := row0 + i
			switch {
			case nulls && arr.IsNull(j):
				recs[i].Values[f] = core.Value{Kind: core.Null}
			case vals[j] > math.MaxInt64:
				// As a JSON integer literal beyond int64: a float.
				recs[i].Values[f] = core.Value{Kind: core.Float, Float: float64(vals[j])}
			default:
				recs[i].Values[f] = core.Value{Kind: core.Int, Int: int64(vals[j])}
			}
		}
		return
	case *array.Float16:
		vals := a.Values()
		nulls := arr.NullN() > 0
		for i := range recs {
			j := row0 + i
			if nulls && arr.IsNull(j) {
				recs[i].Values[f] = core.Value{Kind: core.Null}
				continue
			}
			recs[i].Values[f] = core.Value{Kind: core.Float, Float: float64(vals[j].Float32())}
		}
		return
	case *array.Float32:
		fillFloats(a.Float32Values(), arr, row0, recs, f)
		return
	case *array.Float64:
		fillFloats(a.Float64Values(), arr, row0, recs, f)
		return
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		fillDecimals(arr, row0, recs, f, func(j int) core.Value { return decimal128Value(a.Value(j), scale) })
		return
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		fillDecimals(arr, row0, recs, f, func(j int) core.Value { return decimalValue(a.Value(j).BigInt(), scale) })
		return
	case *array.Boolean:
		nulls := arr.NullN() > 0
		for i := range recs {
			j := row0 + i
			if nulls && arr.IsNull(j) {
				recs[i].Values[f] = core.Value{Kind: core.Null}
				continue
			}
			v := core.Value{Kind: core.Bool}
			if a.Value(j) {
				v.Int = 1
			}
			recs[i].Values[f] = v
		}
		return
	}
	if d, ok := arr.(*array.Dictionary); ok && !isStringLike(d.Dictionary().DataType()) {
		fillDict(d, row0, recs, f, ar)
		return
	}
	if sv, ok := newStrView(arr); ok {
		for i := range recs {
			j := row0 + i
			if sv.null(j) {
				recs[i].Values[f] = core.Value{Kind: core.Null}
				continue
			}
			recs[i].Values[f] = core.Value{Kind: core.String, Str: sv.at(j)}
		}
		return
	}
	if fillMaps(arr, row0, recs, f, ar) {
		return
	}
	if lv, ok := newListView(arr); ok {
		fillLists(lv, row0, recs, f, ar)
		return
	}
	nulls := arr.NullN() > 0
	for i := range recs {
		if nulls && arr.IsNull(row0+i) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
		} else {
			recs[i].Values[f] = core.Value{Kind: core.Other}
		}
	}
}

func fillDecimals(arr arrow.Array, row0 int, recs []pipeline.Record, f int, value func(int) core.Value) {
	nulls := arr.NullN() > 0
	for i := range recs {
		j := row0 + i
		if nulls && arr.IsNull(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		recs[i].Values[f] = value(j)
	}
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
	1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimal128Value is decimalValue for a 128-bit unscaled value, without big.Int for the
// values that fit 53 bits: a float64 holds such a value and 10^scale (scale <= 22) exactly,
// and IEEE division rounds their quotient correctly (Clinger's fast path).
func decimal128Value(n decimal128.Num, scale int32) core.Value {
	lo, hi := n.LowBits(), n.HighBits()
	if hi == int64(lo)>>63 { // fits int64
		x := int64(lo)
		switch {
		case scale == 0:
			return core.Value{Kind: core.Int, Int: x}
		case scale > 0 && scale < int32(len(pow10)) && x >= -1<<53 && x <= 1<<53:
			return core.Value{Kind: core.Float, Float: float64(x) / pow10[scale]}
		}
	}
	return decimalValue(n.BigInt(), scale)
}

// decimalValue is the value of the decimal unscaled*10^-scale as its JSON literal would be:
// a whole number (scale <= 0) that fits int64 is an Int; any other value is the float64
// nearest to the exact decimal (correctly rounded, as Python's float(Decimal) and
// strconv.ParseFloat of the literal).
func decimalValue(unscaled *big.Int, scale int32) core.Value {
	if scale <= 0 && scale >= -18 { // beyond, only 0 fits int64 (and 0e+k is 0 either way)
		v := new(big.Int).Mul(unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
		if v.IsInt64() {
			return core.Value{Kind: core.Int, Int: v.Int64()}
		}
	}
	// At most 77 digits and an exponent within ±2^31: ParseFloat cannot fail beyond
	// overflowing to ±Inf, which it reports as the value with an error.
	fl, _ := strconv.ParseFloat(unscaled.String()+"e"+strconv.Itoa(-int(scale)), 64)
	return core.Value{Kind: core.Float, Float: fl}
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32
}

func fillInts[T integer](vals []T, arr arrow.Array, row0 int, recs []pipeline.Record, f int) {
	nulls := arr.NullN() > 0
	for i := range recs {
		j := row0 + i
		if nulls && arr.IsNull(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		recs[i].Values[f] = core.Value{Kind: core.Int, Int: int64(vals[j])}
	}
}

func fillFloats[T float32 | float64](vals []T, arr arrow.Array, row0 int, recs []pipeline.Record, f int) {
	nulls := arr.NullN() > 0
	for i := range recs {
		j := row0 + i
		if nulls && arr.IsNull(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		recs[i].Values[f] = core.Value{Kind: core.Float, Float: float64(vals[j])}
	}
}

const (
	svString = iota + 1
	svLarge
	svView
	svDict
)

// strView reads the strings of a utf8, large_utf8, string_view or dictionary<_, utf8-like>
// array without copying. Indices are logical (relative to the array's offset).
type strView struct {
	arr   arrow.Array
	nulls bool
	kind  uint8
	data  string // whole value buffer (utf8, large_utf8)
	off32 []int32
	off64 []int64
	base  int // the array's offset
	views []arrow.ViewHeader
	bufs  []*memory.Buffer
	dict  *array.Dictionary
	dv    *strView
}

func bufBytes(bufs []*memory.Buffer, i int) []byte {
	if i < len(bufs) && bufs[i] != nil {
		return bufs[i].Bytes()
	}
	return nil
}

func newStrView(arr arrow.Array) (*strView, bool) {
	v := &strView{arr: arr, nulls: arr.NullN() > 0, base: arr.Data().Offset()}
	bufs := arr.Data().Buffers()
	switch a := arr.(type) {
	case *array.String:
		v.kind = svString
		v.data = bstr(bufBytes(bufs, 2))
		v.off32 = arrow.Int32Traits.CastFromBytes(bufBytes(bufs, 1))
	case *array.LargeString:
		v.kind = svLarge
		v.data = bstr(bufBytes(bufs, 2))
		v.off64 = arrow.Int64Traits.CastFromBytes(bufBytes(bufs, 1))
	case *array.StringView:
		v.kind = svView
		v.views = arrow.ViewHeaderTraits.CastFromBytes(bufBytes(bufs, 1))
		if len(bufs) > 2 {
			v.bufs = bufs[2:]
		}
	case *array.Dictionary:
		dv, ok := newStrView(a.Dictionary())
		if !ok {
			return nil, false
		}
		v.kind, v.dict, v.dv = svDict, a, dv
	default:
		return nil, false
	}
	return v, true
}

// isStringLike reports whether newStrView accepts arrays of type dt.
func isStringLike(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	case arrow.DICTIONARY:
		return isStringLike(dt.(*arrow.DictionaryType).ValueType)
	}
	return false
}

func (v *strView) at(i int) string {
	switch v.kind {
	case svString:
		j := v.base + i
		return v.data[v.off32[j]:v.off32[j+1]]
	case svLarge:
		j := v.base + i
		return v.data[v.off64[j]:v.off64[j+1]]
	case svView:
		h := &v.views[v.base+i]
		if h.IsInline() {
			return bstr(h.InlineBytes()) // aliases the header inside the Arrow buffer
		}
		size, off := h.Len(), int(h.BufferOffset())
		return bstr(v.bufs[h.BufferIndex()].Bytes()[off : off+size])
	default:
		return v.dv.at(v.dict.GetValueIndex(i))
	}
}

func (v *strView) null(i int) bool {
	if v.nulls && v.arr.IsNull(i) {
		return true
	}
	if v.kind == svDict {
		return v.dv.null(v.dict.GetValueIndex(i))
	}
	return false
}

// listView reads the row bounds of a list, large_list or fixed_size_list array. Bounds are
// logical indices into the child array.
type listView struct {
	arr   arrow.Array
	nulls bool
	off32 []int32
	off64 []int64
	size  int // fixed_size_list
	base  int
	child arrow.Array
}

func newListView(arr arrow.Array) (*listView, bool) {
	l := &listView{arr: arr, nulls: arr.NullN() > 0, base: arr.Data().Offset()}
	switch a := arr.(type) {
	case *array.List:
		l.off32, l.child = a.Offsets(), a.ListValues()
	case *array.LargeList:
		l.off64, l.child = a.Offsets(), a.ListValues()
	case *array.FixedSizeList:
		l.size, l.child = int(a.DataType().(*arrow.FixedSizeListType).Len()), a.ListValues()
	default:
		return nil, false
	}
	return l, true
}

func (l *listView) null(i int) bool { return l.nulls && l.arr.IsNull(i) }

// bounds returns the child range of row i; it panics with errBadOffsets (recovered by the
// caller) when the offsets are corrupted.
func (l *listView) bounds(i int) (int, int) {
	j := l.base + i
	var s, e int
	switch {
	case l.off32 != nil:
		s, e = int(l.off32[j]), int(l.off32[j+1])
	case l.off64 != nil:
		s, e = int(l.off64[j]), int(l.off64[j+1])
	default:
		s, e = j*l.size, (j+1)*l.size
	}
	if s < 0 || e < s || e > l.child.Len() {
		panic(errBadOffsets)
	}
	return s, e
}

// numGetter returns a reader of the numbers (or booleans, counted as 0/1 like
// core.FromJSON does in lists) of arr, by logical index.
func numGetter(arr arrow.Array) (func(int) float64, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		v := a.Int8Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Int16:
		v := a.Int16Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Int32:
		v := a.Int32Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Int64:
		v := a.Int64Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Uint8:
		v := a.Uint8Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Uint16:
		v := a.Uint16Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Uint32:
		v := a.Uint32Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Uint64:
		v := a.Uint64Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Float16:
		v := a.Values()
		return func(k int) float64 { return float64(v[k].Float32()) }, true
	case *array.Float32:
		v := a.Float32Values()
		return func(k int) float64 { return float64(v[k]) }, true
	case *array.Float64:
		v := a.Float64Values()
		return func(k int) float64 { return v[k] }, true
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return func(k int) float64 { return decimalFloat(decimal128Value(a.Value(k), scale)) }, true
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return func(k int) float64 { return decimalFloat(decimalValue(a.Value(k).BigInt(), scale)) }, true
	case *array.Boolean:
		return func(k int) float64 {
			if a.Value(k) {
				return 1
			}
			return 0
		}, true
	}
	return nil, false
}

// fillLists converts a list column: list of strings -> StringList, list of lists of
// strings -> StringLists, list of numbers -> FloatList, an empty list -> an empty
// StringList (as JSON []), a list holding a null element or of another type -> Other.
func fillLists(lv *listView, row0 int, recs []pipeline.Record, f int, ar *fileread.Arena) {
	var (
		sv     *strView
		inner  *listView
		innerS *strView
		num    func(int) float64
	)
	child := lv.child
	childNulls := child.NullN() > 0
	if v, ok := newStrView(child); ok {
		sv = v
	} else if l, ok := newListView(child); ok && isStringLike(l.child.DataType()) {
		inner = l
		innerS, _ = newStrView(l.child)
	} else if g, ok := numGetter(child); ok {
		num = g
	}
	for i := range recs {
		j := row0 + i
		if lv.null(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		s, e := lv.bounds(j)
		v := core.Value{Kind: core.Other}
		switch {
		case s == e:
			v = core.Value{Kind: core.StringList, Strs: fileread.EmptyStrs}
		case sv != nil:
			if strs, ok := readStrs(sv, s, e, ar); ok {
				v = core.Value{Kind: core.StringList, Strs: strs}
			}
		case inner != nil:
			lists := ar.AllocLists(e - s)
			ok := true
			for k := s; k < e && ok; k++ {
				if inner.null(k) {
					ok = false
					break
				}
				s2, e2 := inner.bounds(k)
				lists[k-s], ok = readStrs(innerS, s2, e2, ar)
			}
			if ok {
				v = core.Value{Kind: core.StringLists, Lists: lists}
			}
		case num != nil:
			fl := ar.AllocFloats(e - s)
			ok := true
			for k := s; k < e; k++ {
				if childNulls && child.IsNull(k) {
					ok = false
					break
				}
				fl[k-s] = num(k)
			}
			if ok {
				v = core.Value{Kind: core.FloatList, Floats: fl}
			}
		}
		recs[i].Values[f] = v
	}
}

// readStrs reads the strings s..e-1 of sv into the arena; ok is false when one is null.
func readStrs(sv *strView, s, e int, ar *fileread.Arena) ([]string, bool) {
	if s == e {
		return fileread.EmptyStrs, true
	}
	strs := ar.AllocStrs(e - s)
	for k := s; k < e; k++ {
		if sv.null(k) {
			return nil, false
		}
		strs[k-s] = sv.at(k)
	}
	return strs, true
}

// recordSize estimates the bytes a record's values cover, for maxRecordBytes.
func recordSize(vals []core.Value) int64 {
	var n int64
	for i := range vals {
		v := &vals[i]
		switch v.Kind {
		case core.String:
			n += int64(len(v.Str))
		case core.StringList:
			for _, s := range v.Strs {
				n += int64(len(s)) + 1
			}
		case core.StringLists:
			for _, l := range v.Lists {
				for _, s := range l {
					n += int64(len(s)) + 1
				}
				n++
			}
		case core.FloatList:
			n += 8 * int64(len(v.Floats))
		case core.Map:
			n += mapSize(v)
		default:
			n += 8
		}
	}
	return n
}

// decimalFloat is a decimal's value as an element of a list of numbers.
func decimalFloat(v core.Value) float64 {
	if v.Kind == core.Int {
		return float64(v.Int)
	}
	return v.Float
}

// fillDict converts a dictionary array of values other than strings (which strView reads):
// each row takes the value of its index (Null for a null row or a null dictionary value).
// A dictionary no larger than the rows is converted once, and values alias that conversion
// (a list value is shared by the rows holding its index, which no consumer modifies); a
// larger one (a column of 100K distinct integers read 1,024 rows at a time) is converted
// value by value for the rows that use it, so that the cost follows the rows, not the
// dictionary.
func fillDict(d *array.Dictionary, row0 int, recs []pipeline.Record, f int, ar *fileread.Arena) {
	dict := d.Dictionary()
	nulls := d.NullN() > 0
	if dict.Len() > len(recs) {
		for i := range recs {
			j := row0 + i
			if nulls && d.IsNull(j) {
				recs[i].Values[f] = core.Value{Kind: core.Null}
				continue
			}
			k := d.GetValueIndex(j)
			if k < 0 || k >= dict.Len() {
				panic(errBadDictIndex) // recovered as corrupt
			}
			fillColumn(dict, k, recs[i:i+1], f, ar)
		}
		return
	}
	drecs := make([]pipeline.Record, dict.Len())
	vals := make([]core.Value, dict.Len())
	for i := range drecs {
		drecs[i].Values = vals[i : i+1 : i+1]
	}
	fillColumn(dict, 0, drecs, 0, ar)
	for i := range recs {
		j := row0 + i
		if nulls && d.IsNull(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		recs[i].Values[f] = vals[d.GetValueIndex(j)] // out of range panics: recovered as corrupt
	}
}
