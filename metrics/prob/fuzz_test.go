package prob

import (
	"math"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// FuzzDecodeState: decoding arbitrary bytes never panics; a state that decodes is usable.
func FuzzDecodeState(f *testing.F) {
	var metrics []core.Metric
	for _, typ := range []string{"log_loss", "brier", "calibration_error"} {
		m, _ := ctor(typ, core.NewOptions(map[string]any{}))
		metrics = append(metrics, m)
		s := m.NewState()
		s.Add(ex([]any{0.25, 0.75}, 1), 3)
		s.Add(ex([]any{0.5, 0.5}, 0), 1)
		named := m.NewState()
		named.Add(ex(0.3, "b"), 2)
		named.Add(ex(0.6, "a"), 1)
		if nb, err := named.MarshalBinary(); err == nil {
			f.Add(nb)
		}
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range metrics {
			s, err := m.DecodeState(b)
			if err != nil {
				continue
			}
			_ = s.Result()
			_ = s.Merge(m.NewState())
			if _, err := s.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzRecords: any prediction/label pair is either rejected by Check or scored without a
// panic, and a defined result is finite.
func FuzzRecords(f *testing.F) {
	f.Add(0.5, 1.0, int64(1), 3)
	f.Add(0.0, 1.0, int64(0), 1)
	f.Add(1.0, 0.0, int64(2), 0)
	f.Fuzz(func(t *testing.T, a, b float64, label int64, bins int) {
		opts := map[string]map[string]any{
			"log_loss":          {"eps": 1e-3},
			"brier":             {},
			"calibration_error": {"n_bins": bins%7 + 1},
		}
		for _, pred := range []any{a, []any{a, b}, []any{a, b, 1 - a - b}, []any{a}} {
			for typ, o := range opts {
				m, err := ctor(typ, core.NewOptions(o))
				if err != nil {
					t.Fatal(err)
				}
				e := ex(pred, label)
				s := m.NewState()
				if m.Check(e) != nil {
					continue
				}
				s.Add(e, 2)
				s.Add(ex(a, int64(1)), 1)
				if r := s.Result(); r.Value != nil {
					if v := r.Value.(float64); math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("%s %v %d: %v", typ, pred, label, v)
					}
				}
			}
		}
	})
}
