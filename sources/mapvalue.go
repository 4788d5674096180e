package sources

import (
	"sort"
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// This file decodes the map values (core.Map: an object of numbers keyed by string, such as a
// retrieval metric's graded relevance) of every format: JSON objects here, Arrow maps and
// lists of key/value structs in mapValueArrow.

// mapValue parses a requested JSON object at d.pos (its own nesting depth is depth). An
// object whose values are all numbers (booleans count 0/1, as in a list) is a core.Map with
// its keys sorted and, of a repeated key, the last value kept: the value core.FromJSON gives
// from encoding/json's decoding. Any other object is Other. bad reports a key holding
// invalid UTF-8 (reported as for a string value; encoding/json would coerce it).
func (d *jsonDecoder) mapValue(depth int) (core.Value, bool, bool) {
	if depth > maxNestingDepth {
		return core.Value{}, false, d.fail(errTooDeep)
	}
	start := d.pos
	d.pos++
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == '}' {
		d.pos++
		return core.Value{Kind: core.Map, Strs: emptyStrs, Floats: emptyFloats}, false, true
	}
	sbase, fbase := len(d.strStack), len(d.fltStack)
	drop := func() {
		clear(d.strStack[sbase:])
		d.strStack, d.fltStack = d.strStack[:sbase], d.fltStack[:fbase]
	}
	anyBad := false
	for {
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			drop()
			return core.Value{}, false, d.failChar("looking for beginning of object key string")
		}
		key, bad, ok := d.str()
		if !ok {
			drop()
			return core.Value{}, false, false
		}
		anyBad = anyBad || bad
		d.ws()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			drop()
			return core.Value{}, false, d.failChar("after object key")
		}
		d.pos++
		d.ws()
		f, isNum, ok := d.mapNumber()
		if !ok {
			drop()
			return core.Value{}, false, false
		}
		if !isNum {
			// Not an object of numbers: validate the whole object again as skipped input.
			drop()
			d.pos = start
			return core.Value{Kind: core.Other}, false, d.skipObject(depth)
		}
		d.strStack = append(d.strStack, key)
		d.fltStack = append(d.fltStack, f)
		d.ws()
		if d.pos >= len(d.buf) {
			drop()
			return core.Value{}, false, d.failChar("after object key:value pair")
		}
		c := d.buf[d.pos]
		d.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			d.pos--
			drop()
			return core.Value{}, false, d.failChar("after object key:value pair")
		}
		d.ws()
	}
	n := len(d.strStack) - sbase
	p := mapPairs{keys: d.strStack[sbase:], vals: d.fltStack[fbase:]}
	sort.Stable(p)
	keys := d.ar.allocStrs(n)[:0]
	vals := d.ar.allocFloats(n)[:0]
	for i := range n {
		if i+1 < n && p.keys[i+1] == p.keys[i] {
			continue // a later value of the same key wins
		}
		keys = append(keys, p.keys[i])
		vals = append(vals, p.vals[i])
	}
	drop()
	return core.Value{Kind: core.Map, Strs: keys, Floats: vals}, anyBad, true
}

// mapNumber parses an object member's value when it is a number or a boolean; isNum is false
// (and nothing is consumed) for any other value.
func (d *jsonDecoder) mapNumber() (f float64, isNum, ok bool) {
	if d.pos >= len(d.buf) {
		return 0, false, d.failChar("looking for beginning of value")
	}
	switch c := d.buf[d.pos]; {
	case c == '-' || (c >= '0' && c <= '9'):
		lit, intLit, ok := d.scanNumber()
		if !ok {
			return 0, false, false
		}
		v := numberValue(lit, intLit)
		switch v.Kind {
		case core.Int:
			return float64(v.Int), true, true
		case core.Float:
			return v.Float, true, true
		}
		return 0, false, true
	case c == 't':
		return 1, true, d.literal("true")
	case c == 'f':
		return 0, true, d.literal("false")
	}
	return 0, false, true
}

// mapPairs sorts keys and their values together.
type mapPairs struct {
	keys []string
	vals []float64
}

func (p mapPairs) Len() int           { return len(p.keys) }
func (p mapPairs) Less(i, j int) bool { return p.keys[i] < p.keys[j] }
func (p mapPairs) Swap(i, j int) {
	p.keys[i], p.keys[j] = p.keys[j], p.keys[i]
	p.vals[i], p.vals[j] = p.vals[j], p.vals[i]
}

var emptyFloats = []float64{}

// fillMaps converts a map<K, V> column, or a list<struct<K, V>> column (a struct of exactly
// two fields, the key first), into core.Map values when K is a string or an integer type
// (integer keys are rendered in decimal, as str(key) would) and V a number or boolean type.
// A struct column whose fields are all numbers is a map too (fillStructMaps).
// A row holding a null entry, key or value is Other; a null row is Null. It reports false,
// converting nothing, for a column of any other type. Keys alias the Arrow buffers, like the
// strings of fillColumn.
func fillMaps(arr arrow.Array, row0 int, recs []pipeline.Record, f int, ar *arena) bool {
	var lv *listView
	switch a := arr.(type) {
	case *array.Struct:
		return fillStructMaps(a, row0, recs, f, ar)
	case *array.Map:
		lv, _ = newListView(a.List)
	case *array.List, *array.LargeList:
		lv, _ = newListView(arr)
	default:
		return false
	}
	st, ok := lv.child.(*array.Struct)
	if !ok || st.NumField() != 2 {
		return false
	}
	kArr, vArr := st.Field(0), st.Field(1)
	keyStr, isStr := newStrView(kArr)
	keyInt, isInt := intKeyGetter(kArr)
	val, isNum := numGetter(vArr)
	if !(isStr || isInt) || !isNum {
		return false
	}
	nulls := st.NullN() > 0 || kArr.NullN() > 0 || vArr.NullN() > 0
	for i := range recs {
		j := row0 + i
		if lv.null(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		s, e := lv.bounds(j)
		if s == e {
			recs[i].Values[f] = core.Value{Kind: core.Map, Strs: emptyStrs, Floats: emptyFloats}
			continue
		}
		keys, vals := ar.allocStrs(e-s), ar.allocFloats(e-s)
		v := core.Value{Kind: core.Map, Strs: keys, Floats: vals}
		for k := s; k < e; k++ {
			if nulls && (st.IsNull(k) || kArr.IsNull(k) || vArr.IsNull(k) || (isStr && keyStr.null(k))) {
				v = core.Value{Kind: core.Other}
				break
			}
			if isStr {
				keys[k-s] = keyStr.at(k)
			} else {
				keys[k-s] = keyInt(k, ar)
			}
			vals[k-s] = val(k)
		}
		recs[i].Values[f] = v
	}
	return true
}

// intKeyGetter returns a reader of an integer array's values in decimal, by logical index;
// the strings are carved from ar.
func intKeyGetter(arr arrow.Array) (func(int, *arena) string, bool) {
	dec := func(x int64, ar *arena) string {
		var buf [20]byte
		b := strconv.AppendInt(buf[:0], x, 10)
		dst := ar.allocBytes(len(b))
		copy(dst, b)
		return bstr(dst)
	}
	switch a := arr.(type) {
	case *array.Int8:
		return func(k int, ar *arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Int16:
		return func(k int, ar *arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Int32:
		return func(k int, ar *arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Int64:
		return func(k int, ar *arena) string { return dec(a.Value(k), ar) }, true
	case *array.Uint8:
		return func(k int, ar *arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Uint16:
		return func(k int, ar *arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Uint32:
		return func(k int, ar *arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Uint64:
		return func(k int, ar *arena) string {
			b := strconv.AppendUint(nil, a.Value(k), 10)
			dst := ar.allocBytes(len(b))
			copy(dst, b)
			return bstr(dst)
		}, true
	}
	return nil, false
}

// mapSize estimates the bytes a Map value covers, for recordSize.
func mapSize(v *core.Value) int64 {
	n := 8 * int64(len(v.Floats))
	for _, k := range v.Strs {
		n += int64(len(k)) + 1
	}
	return n
}

// fillStructMaps converts a struct column whose fields are all numbers (or booleans) into
// core.Map values: the names of the fields that are not null, with their values. That is how
// pandas, polars and HF datasets store a column of Python dicts (one field per key seen in
// the column, null where a record lacks it). A null row is Null. It reports false for a
// struct with a field of another type.
func fillStructMaps(st *array.Struct, row0 int, recs []pipeline.Record, f int, ar *arena) bool {
	typ := st.DataType().(*arrow.StructType)
	getters := make([]func(int) float64, st.NumField())
	for i := range getters {
		g, ok := numGetter(st.Field(i))
		if !ok {
			return false
		}
		getters[i] = g
	}
	nulls := st.NullN() > 0
	for i := range recs {
		j := row0 + i
		if nulls && st.IsNull(j) {
			recs[i].Values[f] = core.Value{Kind: core.Null}
			continue
		}
		n := 0
		for k := range getters {
			if !st.Field(k).IsNull(j) {
				n++
			}
		}
		keys, vals := ar.allocStrs(n)[:0], ar.allocFloats(n)[:0]
		for k, g := range getters {
			if !st.Field(k).IsNull(j) {
				keys = append(keys, typ.Field(k).Name)
				vals = append(vals, g(j))
			}
		}
		recs[i].Values[f] = core.Value{Kind: core.Map, Strs: keys, Floats: vals}
	}
	return true
}
