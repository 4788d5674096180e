package prob

import (
	"math"
	"reflect"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
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

// FuzzNamedRecords: any sequence of records with class names (including names that read as
// numbers) or ids, under any pos_label, folded into one state or into two shards merged
// through their bytes, gives the same result without a panic, finite when defined.
func FuzzNamedRecords(f *testing.F) {
	f.Add([]byte{0x00, 0x49, 0x1a, 0x53}, uint8(1))
	f.Add([]byte{0x02, 0x43}, uint8(2))
	f.Add([]byte{0x20, 0x61, 0x21}, uint8(0))
	f.Add([]byte{}, uint8(3))
	labels := []any{"a", "b", "1", "0", "é", int64(0), int64(1), int64(2)}
	preds := []any{0.0, 0.3, 1.0, []any{0.2, 0.8}, []any{0.2, 0.3, 0.5}, []any{1.0}, []any{0.5, 0.5, 0.0}, 0.7}
	options := []map[string]any{{}, {"pos_label": "a"}, {"pos_label": 1}, {"pos_label": "0"}, {"pos_label": "nope"}}
	f.Fuzz(func(t *testing.T, prog []byte, opt uint8) {
		// A few dozen records reach every case; longer inputs only slow the minimizer down.
		prog = prog[:min(len(prog), 32)]
		for _, typ := range []string{"log_loss", "brier", "calibration_error"} {
			o := map[string]any{}
			if typ == "brier" {
				o = options[int(opt)%len(options)]
			}
			m, err := ctor(typ, core.NewOptions(o))
			if err != nil {
				t.Fatal(err)
			}
			whole, shards := m.NewState(), []core.State{m.NewState(), m.NewState()}
			for _, b := range prog {
				e := ex(preds[b>>3&7], labels[b&7])
				if m.Check(e) != nil {
					continue
				}
				w := int64(b>>7) + 1
				whole.Add(e, w)
				shards[b>>6&1].Add(e, w)
			}
			saved, err := shards[1].MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			back, err := m.DecodeState(saved)
			if err != nil {
				t.Fatalf("%s: a state's own bytes: %v", typ, err)
			}
			if err := shards[0].Merge(back); err != nil {
				t.Fatal(err)
			}
			res := whole.Result()
			if v, ok := res.Value.(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
				t.Fatalf("%s %x: %v", typ, prog, v)
			}
			if a, b := goldentest.Fingerprint(res), goldentest.Fingerprint(shards[0].Result()); a != b {
				t.Fatalf("%s %x: whole %s, merged shards %s", typ, prog, a, b)
			}
		}
	})
}
