package text

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// FuzzDecodeState feeds arbitrary bytes to DecodeState: it must return an error or a usable
// state, never panic, and a decoded state must report a value in [0, 1] or null.
func FuzzDecodeState(f *testing.F) {
	ms := []core.Metric{build(f, "distinct", nil), build(f, "exact_match", nil), build(f, "token_f1", nil)}
	for i, m := range ms {
		st := m.NewState()
		exs := examples(m, []rec{{"the cat sat on the mat", []string{"a cat"}}, {seed4, "cat"}})
		for j := range exs {
			st.Add(&exs[j], int64(j+1))
		}
		b, err := st.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(byte(i), b)
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
