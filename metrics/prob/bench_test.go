package prob

import (
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// probExamples returns n records: a binary probability when k is 1, else k probabilities.
func probExamples(n, k int) []core.Example {
	rng := rand.New(rand.NewSource(1))
	exs := make([]core.Example, n)
	for i := range exs {
		label := core.Value{Kind: core.Int, Int: int64(rng.Intn(max(k, 2)))}
		if k == 1 {
			exs[i] = core.Example{Values: []core.Value{{Kind: core.Float, Float: rng.Float64()}, label}}
			continue
		}
		ps := make([]float64, k)
		var sum float64
		for j := range ps {
			ps[j] = rng.Float64()
			sum += ps[j]
		}
		for j := range ps {
			ps[j] /= sum
		}
		exs[i] = core.Example{Values: []core.Value{{Kind: core.FloatList, Floats: ps}, label}}
	}
	return exs
}

func benchAdd(b *testing.B, typ string, k int) {
	m, err := ctor(typ, core.NewOptions(nil))
	if err != nil {
		b.Fatal(err)
	}
	exs := probExamples(1024, k)
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

func BenchmarkLogLossBinaryAdd(b *testing.B)     { benchAdd(b, "log_loss", 1) }
func BenchmarkLogLoss10Add(b *testing.B)         { benchAdd(b, "log_loss", 10) }
func BenchmarkBrierBinaryAdd(b *testing.B)       { benchAdd(b, "brier", 1) }
func BenchmarkBrier10Add(b *testing.B)           { benchAdd(b, "brier", 10) }
func BenchmarkCalibrationBinaryAdd(b *testing.B) { benchAdd(b, "calibration_error", 1) }
func BenchmarkCalibration10Add(b *testing.B)     { benchAdd(b, "calibration_error", 10) }
