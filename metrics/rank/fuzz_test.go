package rank

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

// FuzzDecodeState: decoding arbitrary bytes never panics; a state that decodes is usable.
func FuzzDecodeState(f *testing.F) {
	var metrics []core.Metric
	for _, c := range []struct {
		typ  string
		opts map[string]any
	}{
		{"auroc", nil},
		{"auroc", map[string]any{"multi_class": "ovo"}},
		{"average_precision", map[string]any{"compat": "torchmetrics", "thresholds": 4}},
	} {
		m, err := ctor(c.typ, core.NewOptions(c.opts))
		if err != nil {
			f.Fatal(err)
		}
		metrics = append(metrics, m)
		s := m.NewState()
		for i, e := range []core.Example{ex(0.3, int64(1)), ex(0.3, int64(0)), ex([]any{0.2, 0.3, 0.5}, int64(2)), ex([]any{0.6, 0.3, 0.1}, int64(0))} {
			s.Add(&e, int64(i+1))
		}
		b, _ := s.MarshalBinary()
		f.Add(b)
		b, _ = m.NewState().MarshalBinary()
		f.Add(b)
		named := m.NewState()
		for i, e := range []core.Example{ex(0.3, "b"), ex(0.7, "a"), ex([]any{0.4, 0.6}, "b")} {
			named.Add(&e, int64(i+1))
		}
		b, _ = named.MarshalBinary()
		f.Add(b)
		mc := m.NewState()
		for i, e := range []core.Example{ex([]any{0.2, 0.3, 0.5}, "b"), ex([]any{0.6, 0.3, 0.1}, "c"), ex([]any{0.1, 0.1, 0.8}, "a")} {
			mc.Add(&e, int64(i+1))
		}
		b, _ = mc.MarshalBinary()
		f.Add(b)
		one := m.NewState()
		for _, e := range []core.Example{ex(0.3, "a"), ex(0.8, "a")} {
			one.Add(&e, 1)
		}
		b, _ = one.MarshalBinary()
		f.Add(b)
		e := ex(0.2, int64(1))
		named.Add(&e, 1) // mixed: the counts are dropped
		b, _ = named.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range metrics {
			s, err := m.DecodeState(b)
			if err != nil {
				continue
			}
			res := s.Result()
			// What decodes is a state: its bytes decode again to the same result.
			c, err := core.CopyState(m, s)
			if err != nil {
				t.Fatalf("%s: a decoded state does not round-trip: %v", m.Signature(), err)
			}
			if a, b := goldentest.Fingerprint(res), goldentest.Fingerprint(c.Result()); a != b {
				t.Fatalf("%s: result %s, after a round trip %s", m.Signature(), a, b)
			}
			_ = c.Merge(c)
			_ = c.Result()
			e := ex(0.5, int64(1))
			s.Add(&e, 1)
			n := ex(0.5, "z")
			s.Add(&n, 1)
			_ = s.Merge(m.NewState())
			_ = s.Result()
			if _, err := s.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
