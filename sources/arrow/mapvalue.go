package arrow

import (
	"strconv"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

var emptyFloats = []float64{}

// fillMaps converts a map<K, V> column, or a list<struct<K, V>> column (a struct of exactly
// two fields, the key first), into core.Map values when K is a string or an integer type
// (integer keys are rendered in decimal, as str(key) would) and V a number or boolean type.
// A struct column whose fields are all numbers is a map too (fillStructMaps).
// A row holding a null entry, key or value is Other; a null row is Null. It reports false,
// converting nothing, for a column of any other type. Keys alias the Arrow buffers, like the
// strings of fillColumn.
func fillMaps(arr arrow.Array, row0 int, recs []pipeline.Record, f int, ar *fileread.Arena) bool {
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
			recs[i].Values[f] = core.Value{Kind: core.Map, Strs: fileread.EmptyStrs, Floats: emptyFloats}
			continue
		}
		keys, vals := ar.AllocStrs(e-s), ar.AllocFloats(e-s)
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
func intKeyGetter(arr arrow.Array) (func(int, *fileread.Arena) string, bool) {
	dec := func(x int64, ar *fileread.Arena) string {
		var buf [20]byte
		b := strconv.AppendInt(buf[:0], x, 10)
		dst := ar.AllocBytes(len(b))
		copy(dst, b)
		return bstr(dst)
	}
	switch a := arr.(type) {
	case *array.Int8:
		return func(k int, ar *fileread.Arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Int16:
		return func(k int, ar *fileread.Arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Int32:
		return func(k int, ar *fileread.Arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Int64:
		return func(k int, ar *fileread.Arena) string { return dec(a.Value(k), ar) }, true
	case *array.Uint8:
		return func(k int, ar *fileread.Arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Uint16:
		return func(k int, ar *fileread.Arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Uint32:
		return func(k int, ar *fileread.Arena) string { return dec(int64(a.Value(k)), ar) }, true
	case *array.Uint64:
		return func(k int, ar *fileread.Arena) string {
			b := strconv.AppendUint(nil, a.Value(k), 10)
			dst := ar.AllocBytes(len(b))
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
func fillStructMaps(st *array.Struct, row0 int, recs []pipeline.Record, f int, ar *fileread.Arena) bool {
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
		keys, vals := ar.AllocStrs(n)[:0], ar.AllocFloats(n)[:0]
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
