package arrow

import (
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// dictArray is a dictionary array of indices idx (-1: null) into dict.
func dictArray(t *testing.T, mem memory.Allocator, indexType arrow.DataType, dict arrow.Array, idx []int) *array.Dictionary {
	t.Helper()
	ib := array.NewBuilder(mem, indexType)
	defer ib.Release()
	for _, i := range idx {
		switch b := ib.(type) {
		case *array.Int8Builder:
			appendIdx(b.Append, b.AppendNull, int8(i), i < 0)
		case *array.Int32Builder:
			appendIdx(b.Append, b.AppendNull, int32(i), i < 0)
		case *array.Uint16Builder:
			appendIdx(b.Append, b.AppendNull, uint16(i), i < 0)
		}
	}
	ix := ib.NewArray()
	defer ix.Release()
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: indexType, ValueType: dict.DataType()}, ix, dict)
}

func appendIdx[T any](add func(T), null func(), v T, isNull bool) {
	if isNull {
		null()
		return
	}
	add(v)
}

func TestFillDictionaryColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ints := array.NewInt64Builder(mem)
	ints.AppendValues([]int64{7, -3}, nil)
	intDict := ints.NewArray()
	ints.Release()
	defer intDict.Release()
	floats := array.NewFloat64Builder(mem)
	floats.AppendValues([]float64{0.5}, nil)
	floats.AppendNull()
	floatDict := floats.NewArray()
	floats.Release()
	defer floatDict.Release()

	iv := func(x int64) core.Value { return core.Value{Kind: core.Int, Int: x} }
	null := core.Value{Kind: core.Null}
	cases := []struct {
		name  string
		arr   *array.Dictionary
		row0  int
		want  []core.Value
		codes []int32 // of dictColumn from row0; nil: not a dictionary column
	}{
		{"int64 values, int8 indices, a null row", dictArray(t, mem, arrow.PrimitiveTypes.Int8, intDict, []int{1, 0, -1, 1}), 0,
			[]core.Value{iv(-3), iv(7), null, iv(-3)}, nil},
		{"from row 1, int32 indices", dictArray(t, mem, arrow.PrimitiveTypes.Int32, intDict, []int{1, 0, 0, 1}), 1,
			[]core.Value{iv(7), iv(7), iv(-3)}, []int32{0, 0, 1}},
		{"uint16 indices", dictArray(t, mem, arrow.PrimitiveTypes.Uint16, intDict, []int{0, 1}), 0,
			[]core.Value{iv(7), iv(-3)}, []int32{0, 1}},
		{"a null dictionary value", dictArray(t, mem, arrow.PrimitiveTypes.Int32, floatDict, []int{1, 0}), 0,
			[]core.Value{null, {Kind: core.Float, Float: 0.5}}, nil},
	}
	r := &arrowReader{}
	defer r.releaseDicts()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer c.arr.Release()
			recs := make([]pipeline.Record, len(c.want))
			for i := range recs {
				recs[i].Values = make([]core.Value, 1)
			}
			var ar fileread.Arena
			fillColumn(c.arr, c.row0, recs, 0, &ar)
			for i, rec := range recs {
				require.Equal(t, c.want[i], rec.Values[0], "row %d", i)
			}
			d := r.dictColumn(c.arr, c.row0, c.arr.Len(), 0)
			again := r.dictColumn(c.arr, c.row0, c.arr.Len(), 0)
			if d != nil {
				require.Same(t, &d.Values[0], &again.Values[0], "the dictionary converted once")
			}
			if c.codes == nil {
				if c.arr.NullN() == 0 {
					require.Nil(t, d)
				}
				return
			}
			require.NotNil(t, d)
			require.Equal(t, c.codes, d.Codes)
			for i, code := range d.Codes {
				require.Equal(t, c.want[i], d.Values[code])
			}
		})
	}
}

// TestFillDictLarger converts rows of a dictionary larger than they are (converted value by
// value) like rows of a small one (converted whole): same values, nulls included, and an
// index past the dictionary is an error, not a value.
func TestFillDictLarger(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	for i := 0; i < 100; i++ {
		b.Append(int64(i * 3))
	}
	dict := b.NewArray()
	b.Release()
	defer dict.Release()
	arr := dictArray(t, mem, arrow.PrimitiveTypes.Int32, dict, []int{99, -1, 5, 0, 42})
	defer arr.Release()
	want := []core.Value{{Kind: core.Int, Int: 297}, {Kind: core.Null}, {Kind: core.Int, Int: 15}, {Kind: core.Int, Int: 0}, {Kind: core.Int, Int: 126}}
	for row0 := 0; row0 < len(want); row0++ {
		recs := make([]pipeline.Record, len(want)-row0)
		for i := range recs {
			recs[i].Values = make([]core.Value, 2)
		}
		var ar fileread.Arena
		fillColumn(arr, row0, recs, 1, &ar)
		for i, rec := range recs {
			require.Equal(t, want[row0+i], rec.Values[1], "from row %d, row %d", row0, i)
		}
	}

	bad := dictArray(t, mem, arrow.PrimitiveTypes.Int32, dict, []int{100})
	defer bad.Release()
	recs := []pipeline.Record{{Values: make([]core.Value, 1)}}
	err := func() (err error) {
		defer fileread.Recovered(&err)
		var ar fileread.Arena
		fillColumn(bad, 0, recs, 0, &ar)
		return nil
	}()
	require.ErrorIs(t, err, fileread.ErrCorrupt)
}
