package retrieval

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// splitmix64 is the generator of the benchmark queries, shared with
// testdata/goldens/bench_retrieval.py so that pytrec_eval is timed on the same queries.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

const benchPool = 50

var benchIDs = func() []string {
	out := make([]string, benchPool)
	for i := range out {
		out[i] = fmt.Sprintf("d%d", i)
	}
	return out
}()

// benchQuery fills ex with query i: a ranking of 10..29 distinct documents of a pool of 50
// and 1..8 judged documents with grades 0..3.
func benchQuery(i int, ex *core.Example, ranking, keys []string, grades []float64) {
	h := splitmix64(uint64(i))
	n := 10 + int(h%20)
	start, step := int(h>>8)%benchPool, []int{1, 3, 7, 9, 11, 13}[(h>>16)%6]
	ranking = ranking[:0]
	for r := range n {
		ranking = append(ranking, benchIDs[(start+r*step)%benchPool])
	}
	m := 1 + int((h>>24)%8)
	jstart := int(h>>32) % benchPool
	keys, grades = keys[:0], grades[:0]
	for r := range m {
		keys = append(keys, benchIDs[(jstart+r*7)%benchPool])
		grades = append(grades, float64((h>>(40+uint(r)))%4))
	}
	ex.Values[0] = core.Value{Kind: core.StringList, Strs: ranking}
	ex.Values[2] = core.Value{Kind: core.Map, Strs: keys, Floats: grades}
}

// BenchmarkNDCG10MRR1M folds 1M queries into ndcg (k 10) and mrr and computes both: the
// work of `evalstream run` with both metrics, without file reading. Compare with
// testdata/goldens/bench_retrieval.py (pytrec_eval on the same queries).
func BenchmarkNDCG10MRR1M(b *testing.B) {
	const n = 1_000_000
	var ms []core.Metric
	for _, c := range []struct {
		new  func(*core.Options) (core.Metric, error)
		opts map[string]any
	}{{NewNDCG, map[string]any{"k": 10}}, {NewMRR, nil}} {
		m, err := c.new(core.NewOptions(c.opts))
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	// As the pipeline's folder: one memo shared by the metrics, a new record before Add.
	var memo core.Memo
	ex := core.Example{Values: make([]core.Value, 3), Memo: &memo}
	ranking, keys, grades := make([]string, 0, 32), make([]string, 0, 8), make([]float64, 0, 8)
	b.ReportAllocs()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		states := []core.State{ms[0].NewState(), ms[1].NewState()}
		for i := range n {
			benchQuery(i, &ex, ranking, keys, grades)
			ex.Seq = uint64(i)
			ok := true
			for _, m := range ms {
				ok = ok && m.Check(&ex) == nil
			}
			if !ok {
				b.Fatal("rejected")
			}
			memo.Next()
			for k := range ms {
				states[k].Add(&ex, 1)
			}
		}
		for k, s := range states {
			r := s.Result()
			if r.Value == nil {
				b.Fatal("null result")
			}
			if it == 0 {
				b.Logf("%s = %v %v", ms[k].Signature(), r.Value, r.Details)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}
