package prob

import (
	"math"
	"reflect"
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
		b, _ := s.MarshalBinary()
		f.Add(b)
		// States of class names (format 2): binary, lists, ragged, and mixed with ids.
		for _, recs := range [][][2]any{
			{{0.3, "b"}, {0.6, "a"}},
			{{[]any{0.2, 0.3, 0.5}, "b"}, {[]any{0.6, 0.3, 0.1}, "c"}, {[]any{0.1, 0.1, 0.8}, "a"}},
			{{[]any{0.2, 0.8}, "b"}, {0.6, "a"}},
			{{0.3, "b"}, {0.6, int64(1)}},
		} {
			named := m.NewState()
			for i, r := range recs {
				named.Add(ex(r[0], r[1]), int64(i+1))
			}
			if nb, err := named.MarshalBinary(); err == nil {
				f.Add(nb)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range metrics {
			s, err := m.DecodeState(b)
			if err != nil {
				continue
			}
			res := s.Result()
			if v, ok := res.Value.(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
				t.Fatalf("%s: a decoded state scores %v", m.Signature(), v)
			}
			// What decodes is a state: its bytes decode again to the same result.
			c, err := core.CopyState(m, s)
			if err != nil {
				t.Fatalf("%s: a decoded state does not round-trip: %v", m.Signature(), err)
			}
			if again := c.Result(); !reflect.DeepEqual(res, again) {
				t.Fatalf("%s: result %v, after a round trip %v", m.Signature(), res, again)
			}
			_ = s.Merge(m.NewState())
			_ = c.Merge(c)
			s.Add(ex(0.5, "z"), 1)
			s.Add(ex([]any{0.5, 0.5}, int64(1)), 1)
			_ = s.Result()
			_ = c.Result()
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
