package classify

import (
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

func benchExamples(n, classes int, scores bool) []core.Example {
	rng := rand.New(rand.NewSource(1))
	exs := make([]core.Example, n)
	for i := range exs {
		label := core.Value{Kind: core.Int, Int: int64(rng.Intn(classes))}
		var pred core.Value
		if scores {
			xs := make([]float64, classes)
			for j := range xs {
				xs[j] = rng.Float64()
			}
			pred = core.Value{Kind: core.FloatList, Floats: xs}
		} else {
			pred = core.Value{Kind: core.Int, Int: int64(rng.Intn(classes))}
		}
		exs[i] = core.Example{Values: []core.Value{pred, label}, Seq: uint64(i)}
	}
	return exs
}

func benchAdd(b *testing.B, typ string, opts map[string]any, classes int, scores bool) {
	m := build(b, typ, opts)
	exs := benchExamples(1024, classes, scores)
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

func BenchmarkAccuracyScores10(b *testing.B) { benchAdd(b, "accuracy", nil, 10, true) }
func BenchmarkAccuracyTop5Scores100(b *testing.B) {
	benchAdd(b, "accuracy", map[string]any{"top_k": 5}, 100, true)
}
func BenchmarkF1Ids10(b *testing.B)          { benchAdd(b, "f1", nil, 10, false) }
func BenchmarkF1Scores10(b *testing.B)       { benchAdd(b, "f1", nil, 10, true) }
func BenchmarkPrecisionIds5000(b *testing.B) { benchAdd(b, "precision", nil, 5000, false) }
func BenchmarkMCCIds3(b *testing.B)          { benchAdd(b, "mcc", nil, 3, false) }

func BenchmarkMergeResult(b *testing.B) {
	m := build(b, "f1", map[string]any{"compat": "sklearn", "average": "macro"})
	exs := benchExamples(4096, 50, false)
	parts := make([]core.State, 8)
	for i := range parts {
		parts[i] = m.NewState()
	}
	for i := range exs {
		parts[i%8].Add(&exs[i], 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := m.NewState()
		for _, p := range parts {
			_ = s.Merge(p)
		}
		_ = s.Result()
	}
}

// benchNamed replaces the ids of benchExamples by names, as a JSON or string column gives them.
func benchNamed(n, classes int) []core.Example {
	exs := benchExamples(n, classes, false)
	names := make([]string, classes)
	for i := range names {
		names[i] = "class-" + string(rune('a'+i%26)) + string(rune('a'+i/26%26))
	}
	for i := range exs {
		for j := range exs[i].Values {
			v := &exs[i].Values[j]
			*v = core.Value{Kind: core.String, Str: names[v.Int]}
		}
	}
	return exs
}

func BenchmarkF1Names10(b *testing.B) {
	m := build(b, "f1", nil)
	exs := benchNamed(1024, 10)
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

// BenchmarkMergeResultNames merges 8 states of 50 names, each numbering them in its own
// order, and computes the result (sorted view and remap included).
func BenchmarkMergeResultNames(b *testing.B) {
	m := build(b, "f1", map[string]any{"compat": "sklearn", "average": "macro"})
	exs := benchNamed(4096, 50)
	parts := make([]core.State, 8)
	for i := range parts {
		parts[i] = m.NewState()
	}
	for i := range exs {
		parts[i%8].Add(&exs[i], 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := m.NewState()
		for _, p := range parts {
			_ = s.Merge(p)
		}
		_ = s.Result()
	}
}
