package sources

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/retrieval"
	"github.com/evalstream/evalstream/pipeline"
)

// retrievalFields are the fields the retrieval fixtures are read with: qid, then the roles
// of a retrieval metric (prediction, references, relevance).
var retrievalFields = []string{"qid", "prediction", "references", "relevance"}

// canonMap renders a value like canon, with a Map's pairs sorted by key: Arrow and Parquet
// keep a map's order, JSON objects are sorted, and a struct has its schema's order.
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

// retrievalRead reads a fixture in batches of batchSize and scores ndcg@5 and mrr on it as
// the pipeline does (finite and UTF-8 checks, then Check, then Add). It returns the
// canonical rows, the two values and the number of rejected records.
func retrievalRead(t *testing.T, path string, batchSize int) (rows [][]string, ndcg5, mrr any, rejected int) {
	t.Helper()
	var ms []core.Metric
	for _, c := range []struct {
		new  func(*core.Options) (core.Metric, error)
		opts map[string]any
	}{{retrieval.NewNDCG, map[string]any{"k": 5}}, {retrieval.NewMRR, nil}} {
		m, err := c.new(core.NewOptions(c.opts))
		require.NoError(t, err)
		ms = append(ms, m)
	}
	states := []core.State{ms[0].NewState(), ms[1].NewState()}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	src, err := openFiles(FileConfig{Path: path}, retrievalFields, batchSize, 0, mem)
	require.NoError(t, err)
	for {
		b, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		for _, r := range b.Records {
			require.Nil(t, r.Err, "%s row %d", path, r.Pos.Row)
			row := make([]string, len(r.Values))
			for i, v := range r.Values {
				row[i] = canonMap(v)
			}
			rows = append(rows, row)
			ex := core.Example{Values: r.Values[1:]}
			ok := true
			for i := range r.Values {
				if pipeline.CheckFinite(&r.Values[i], retrievalFields[i]) != nil {
					ok = false
				}
			}
			for _, m := range ms {
				ok = ok && m.Check(&ex) == nil
			}
			if !ok {
				rejected++
				continue
			}
			for _, s := range states {
				s.Add(&ex, 1)
			}
		}
		if b.Release != nil {
			b.Release()
		}
	}
	require.NoError(t, src.Close())
	mem.AssertSize(t, 0)
	return rows, states[0].Result().Value, states[1].Result().Value, rejected
}

// TestRetrievalFixtures reads the relevance maps of every writer in testdata/retrieval
// (pyarrow maps and lists of structs, pandas and polars structs, duckdb maps; Arrow IPC and
// Parquet) and requires the values of their JSON Lines twin and the ndcg@5 and mrr that
// pytrec_eval gives for the records.
func TestRetrievalFixtures(t *testing.T) {
	dir := filepath.Join("..", "testdata", "retrieval")
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var man struct {
		Fixtures []struct{ File, Writer, Twin string }
		Values   map[string]struct {
			NDCG5    float64 `json:"ndcg@5"`
			MRR      float64 `json:"mrr"`
			Rejected int     `json:"rejected"`
		}
	}
	require.NoError(t, json.Unmarshal(b, &man))
	require.Len(t, man.Fixtures, 13)
	for twin, want := range man.Values {
		rows, ndcg, mrr, rejected := retrievalRead(t, filepath.Join(dir, "files", twin), 1000)
		require.NotEmpty(t, rows)
		require.InDelta(t, want.NDCG5, ndcg, 1e-12, twin)
		require.InDelta(t, want.MRR, mrr, 1e-12, twin)
		require.Equal(t, want.Rejected, rejected, twin)
	}
	for _, fx := range man.Fixtures {
		t.Run(fx.File, func(t *testing.T) {
			want, _, _, _ := retrievalRead(t, filepath.Join(dir, "files", fx.Twin), 1000)
			for _, bs := range []int{5, 1000} {
				got, ndcg, mrr, rejected := retrievalRead(t, filepath.Join(dir, "files", fx.File), bs)
				require.Equal(t, want, got, "%s (%s), batch size %d", fx.File, fx.Writer, bs)
				v := man.Values[fx.Twin]
				require.InDelta(t, v.NDCG5, ndcg, 1e-12)
				require.InDelta(t, v.MRR, mrr, 1e-12)
				require.Equal(t, v.Rejected, rejected)
			}
		})
	}
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
			var ar arena
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
