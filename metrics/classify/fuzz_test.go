package classify

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

// FuzzDecodeState: decoding arbitrary bytes never panics; a state that decodes is usable.
func FuzzDecodeState(f *testing.F) {
	metrics := []core.Metric{}
	for _, typ := range []string{"accuracy", "precision", "confusion_matrix", "mcc", "cohen_kappa", "balanced_accuracy"} {
		o := core.NewOptions(nil)
		m, _ := ctor(typ, o)
		metrics = append(metrics, m)
		s := m.NewState()
		s.Add(ex(1, 0), 2)
		s.Add(ex([]any{0.1, 0.9}, 1), 1)
		b, _ := s.MarshalBinary()
		f.Add(b)
		b, _ = m.NewState().MarshalBinary()
		f.Add(b)
	}
	// States of class names (format 2): plain, mixed with ids, and past max_classes.
	for _, m := range metrics {
		s := m.NewState()
		s.Add(ex("pos", "neg"), 2)
		s.Add(ex("neu", "neu"), 1)
		b, _ := s.MarshalBinary()
		f.Add(b)
		s.Add(ex(1, 1), 1)
		b, _ = s.MarshalBinary()
		f.Add(b)
	}
	sparse := metrics[1].NewState()
	sparse.Add(ex(700, 3), 1)
	b, _ := sparse.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range metrics {
			s, err := m.DecodeState(b)
			if err != nil {
				continue
			}
			res := s.Result()
			c, err := core.CopyState(m, s)
			if err != nil {
				t.Fatalf("a decoded state does not round-trip: %v", err)
			}
			if a, b := goldentest.Fingerprint(res), goldentest.Fingerprint(c.Result()); a != b {
				t.Fatalf("%s: result %s, after a round trip %s", m.Signature(), a, b)
			}
			s.Add(ex(1, 1), 1)
			c.Add(ex("a", "b"), 1)
			_ = c.Result()
			_ = s.Merge(m.NewState())
			_ = c.Merge(c)
			if _, err := s.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
