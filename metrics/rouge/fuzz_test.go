package rouge

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// fuzzMetrics covers every state type and layout of the package.
func fuzzMetrics(t testing.TB) []core.Metric {
	return []core.Metric{
		build(t, "rouge_n", nil),
		build(t, "rouge_n", map[string]any{"compat": "mindnlp", "n": 2}),
		build(t, "rouge_l", nil),
		build(t, "rouge_lsum", nil),
		build(t, "rouge_l_dureader", nil),
	}
}

// FuzzDecodeState feeds arbitrary bytes to DecodeState: it must return an error or a usable
// state, never panic, and a decoded state must report a finite value or null.
func FuzzDecodeState(f *testing.F) {
	ms := fuzzMetrics(f)
	for i, m := range ms {
		st := m.NewState()
		exs := examples(m, []rec{{seed3Cand, seed3Refs}, {"a b c\nd e", []string{"a c", "b d e"}}})
		for j := range exs {
			if m.Check(&exs[j]) == nil {
				st.Add(&exs[j], int64(j+1))
			}
		}
		b, err := st.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(byte(i), b)
		e, _ := m.NewState().MarshalBinary()
		f.Add(byte(i), e)
	}
	f.Fuzz(func(t *testing.T, which byte, b []byte) {
		m := ms[int(which)%len(ms)]
		st, err := m.DecodeState(b)
		if err != nil {
			return
		}
		res := st.Result()
		if v, ok := res.Value.(float64); ok && !(v >= 0 && v <= 1) {
			t.Fatalf("value %v out of [0, 1]", v)
		}
		if res.Value == nil && res.Reason == "" {
			t.Fatal("null value without a reason")
		}
		if err := st.Merge(m.NewState()); err != nil {
			t.Fatal(err)
		}
		if _, err := st.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
	})
}
