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
