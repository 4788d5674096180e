package regress

import (
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

func numberExamples(n int) []core.Example {
	rng := rand.New(rand.NewSource(1))
	exs := make([]core.Example, n)
	for i := range exs {
		x := rng.NormFloat64()
		exs[i] = core.Example{Values: []core.Value{{Kind: core.Float, Float: x}, {Kind: core.Float, Float: x + rng.NormFloat64()}}, Seq: uint64(i)}
	}
	return exs
}

func benchAdd(b *testing.B, m core.Metric, exs []core.Example) {
	s := m.NewState()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e := &exs[i%len(exs)]
		if m.Check(e) == nil {
			s.Add(e, 1)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkPearsonAdd(b *testing.B) {
	benchAdd(b, build(b, "pearson", nil), numberExamples(1024))
}

func BenchmarkSpearmanAdd(b *testing.B) {
	benchAdd(b, build(b, "spearman", nil), numberExamples(1024))
}

func BenchmarkPerplexityProbs(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	exs := make([]core.Example, 1024)
	for i := range exs {
		xs := make([]float64, 32)
		for j := range xs {
			xs[j] = rng.Float64()
		}
		exs[i] = core.Example{Values: []core.Value{{Kind: core.FloatList, Floats: xs}, {Kind: core.Int, Int: int64(rng.Intn(32))}}}
	}
	benchAdd(b, build(b, "perplexity", nil), exs)
}

func BenchmarkPerplexityLogits(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	exs := make([]core.Example, 1024)
	for i := range exs {
		xs := make([]float64, 32)
		for j := range xs {
			xs[j] = rng.NormFloat64() * 3
		}
		exs[i] = core.Example{Values: []core.Value{{Kind: core.FloatList, Floats: xs}, {Kind: core.Int, Int: int64(rng.Intn(32))}}}
	}
	benchAdd(b, build(b, "perplexity", map[string]any{"compat": "ignite"}), exs)
}

func benchResult(b *testing.B, typ, compat string, n int) {
	m := build(b, typ, map[string]any{"compat": compat})
	s := m.NewState()
	exs := numberExamples(n)
	for i := range exs {
		s.Add(&exs[i], 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Result()
	}
	b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkPearsonResult(b *testing.B)          { benchResult(b, "pearson", "scipy", 1) }
func BenchmarkSpearmanResultScipy1e5(b *testing.B) { benchResult(b, "spearman", "scipy", 100000) }
func BenchmarkSpearmanResultMindNLP1e5(b *testing.B) {
	benchResult(b, "spearman", "mindnlp", 100000)
}
