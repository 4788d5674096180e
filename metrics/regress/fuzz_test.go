package regress

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// FuzzDecodeState: decoding arbitrary bytes never panics; a state that decodes is usable.
func FuzzDecodeState(f *testing.F) {
	var metrics []core.Metric
	for _, c := range []struct{ typ, compat string }{{"pearson", "scipy"}, {"spearman", "mindnlp"}, {"spearman", "scipy"}, {"perplexity", "mindnlp"},
		{"mse", "sklearn"}, {"mae", "sklearn"}, {"mape", "sklearn"}, {"r2", "sklearn"}, {"explained_variance", "sklearn"}} {
		o := core.NewOptions(map[string]any{"compat": c.compat})
		m, _ := ctor(c.typ, o)
		metrics = append(metrics, m)
		s := m.NewState()
		if c.typ == "perplexity" {
			s.Add(ex([]any{0.25, 0.75}, 1), 3)
		} else {
			s.Add(ex(1.5, 2.0), 2)
			s.Add(ex(1e9, -3.0), 1)
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
