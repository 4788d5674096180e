package retrieval

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// FuzzDecodeState: decoding arbitrary bytes never panics; a state that decodes is usable.
func FuzzDecodeState(f *testing.F) {
	var metrics []core.Metric
	for _, typ := range []string{"mrr", "ndcg", "map", "precision_at_k"} {
		m, err := ctor(typ, core.NewOptions(map[string]any{"k": 3}))
		if err != nil {
			f.Fatal(err)
		}
		metrics = append(metrics, m)
		s := m.NewState()
		for i, e := range []core.Example{
			example(strs("a", "b"), strs("b"), missing()),
			example(strs("c"), missing(), rel([]string{"c", "d"}, 2, 1)),
			example(strs("a"), strs(), missing()),
		} {
			s.Add(&e, int64(i+1))
		}
		b, _ := s.MarshalBinary()
		f.Add(b)
		b, _ = m.NewState().MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range metrics {
			s, err := m.DecodeState(b)
			if err != nil {
				continue
			}
			_ = s.Result()
			e := example(strs("a"), strs("a"), missing())
			s.Add(&e, 1)
			_ = s.Merge(m.NewState())
			_ = s.Result()
			if _, err := s.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzCheck: any ranking and judgments built from the input are checked without a panic,
// and a record Check accepts scores a value in [0, 1].
func FuzzCheck(f *testing.F) {
	f.Add([]byte("ab\x00ba"), uint8(3))
	f.Add([]byte("aa"), uint8(0))
	f.Add([]byte{}, uint8(1))
	ms := map[string]core.Metric{}
	for _, typ := range []string{"mrr", "ndcg", "map", "precision_at_k", "recall_at_k", "hit_rate"} {
		m, err := ctor(typ, core.NewOptions(map[string]any{"k": 2}))
		if err != nil {
			f.Fatal(err)
		}
		ms[typ] = m
	}
	f.Fuzz(func(t *testing.T, b []byte, g uint8) {
		var pred, keys []string
		var grades []float64
		for i, c := range b {
			id := string(rune('a' + c%8))
			if i%2 == 0 {
				pred = append(pred, id)
			} else {
				keys = append(keys, id)
				grades = append(grades, float64(int(c%5)-1)+float64(g%2)/2)
			}
		}
		e := example(strs(pred...), missing(), rel(keys, grades...))
		for typ, m := range ms {
			if m.Check(&e) != nil {
				continue
			}
			v, ok := m.(core.SentenceScorer).SentenceScore(&e)
			if ok && !(v >= 0 && v <= 1) {
				t.Fatalf("%s: score %v outside [0, 1]", typ, v)
			}
		}
	})
}
