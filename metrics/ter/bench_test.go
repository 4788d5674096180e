package ter

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// BenchmarkWMT17Sample folds the two committed WMT17 en-de systems (6,008 records) into one
// state: sacrebleu's default TER, the shift search included.
func BenchmarkWMT17Sample(b *testing.B) {
	systems, order := readWMT(b, samplePath)
	var exs []core.Example
	for _, name := range order {
		exs = append(exs, examplesOf(systems[name])...)
	}
	m, err := New(core.NewOptions(map[string]any{}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		st := m.NewState()
		for i := range exs {
			st.Add(&exs[i], 1)
		}
		if st.Result().Value == nil {
			b.Fatal("no value")
		}
	}
	b.ReportMetric(float64(len(exs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
