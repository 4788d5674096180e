package arrow

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

func mv(k []string, f ...float64) core.Value {
	return core.Value{Kind: core.Map, Strs: k, Floats: f}
}

// canonMap renders a map with its pairs sorted (the key order a converter produced does not
// matter), any other value as canon does.
func canonMap(v core.Value) string {
	if v.Kind != core.Map {
		return canon(v)
	}
	pairs := make([]string, len(v.Strs))
	for i, k := range v.Strs {
		pairs[i] = fmt.Sprintf("%q=%x", k, math.Float64bits(v.Floats[i]))
	}
	sort.Strings(pairs)
	return "m:" + strings.Join(pairs, ",")
}

// TestMapValuesArrow covers the Arrow shapes the fixtures do not: null keys, values and
// entries, maps of other types, NaN grades and invalid UTF-8 keys.
func TestMapValuesArrow(t *testing.T) {
	mem := memory.NewGoAllocator()
	build := func(dt arrow.DataType, js string) arrow.Array {
		a, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
		require.NoError(t, err)
		return a
	}
	kv := arrow.StructOf(arrow.Field{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true}, arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	tests := []struct {
		name string
		arr  arrow.Array
		want []string
	}{
		{"map<string, float64>", build(arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64),
			`[[{"key":"b","value":1.5},{"key":"a","value":2}], [], null, [{"key":"x","value":null}]]`),
			[]string{canonMap(mv([]string{"a", "b"}, 2, 1.5)), canonMap(mv(nil)), "null", "other"}},
		{"map<int32, bool>", build(arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Boolean),
			`[[{"key":-7,"value":true},{"key":7,"value":false}]]`),
			[]string{canonMap(mv([]string{"-7", "7"}, 1, 0))}},
		{"map<string, string> is other", build(arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String),
			`[[{"key":"a","value":"1"}]]`), []string{"other"}},
		{"list<struct> with null key or entry", build(arrow.ListOf(kv),
			`[[{"k":"a","v":1}], [{"k":null,"v":1}], [null], [{"k":"a","v":1},{"k":"a","v":2}]]`),
			[]string{canonMap(mv([]string{"a"}, 1)), "other", "other", "m:\"a\"=3ff0000000000000,\"a\"=4000000000000000"}},
		{"struct of numbers", build(arrow.StructOf(arrow.Field{Name: "d1", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "d2", Type: arrow.PrimitiveTypes.Float32, Nullable: true}),
			`[{"d1":1,"d2":null}, {"d1":null,"d2":null}, null, {"d1":2,"d2":0.5}]`),
			[]string{canonMap(mv([]string{"d1"}, 1)), canonMap(mv(nil)), "null", canonMap(mv([]string{"d1", "d2"}, 2, 0.5))}},
		{"struct with a string is other", build(arrow.StructOf(arrow.Field{Name: "d1", Type: arrow.BinaryTypes.String, Nullable: true}),
			`[{"d1":"x"}]`), []string{"other"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.arr.Release()
			recs := make([]pipeline.Record, tc.arr.Len())
			for i := range recs {
				recs[i].Values = make([]core.Value, 1)
			}
			var ar fileread.Arena
			fillColumn(tc.arr, 0, recs, 0, &ar)
			var got []string
			for _, r := range recs {
				got = append(got, canonMap(r.Values[0]))
			}
			require.Equal(t, tc.want, got)
		})
	}
	// Every format: a NaN grade is non-finite, a key with invalid UTF-8 is invalid UTF-8.
	nan := core.Value{Kind: core.Map, Strs: []string{"a"}, Floats: []float64{math.NaN()}}
	require.Equal(t, pipeline.ReasonNonFinite, pipeline.CheckFinite(&nan, "relevance").Reason)
}
