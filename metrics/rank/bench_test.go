package rank

import (
	"math"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// splitmix64 is the generator of the benchmark data, shared with testdata/goldens/bench_rank.py
// so that scikit-learn is timed on the same scores.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// benchRecord returns record i: label = bit 0 of the hash, score = a float32-quantised
// uniform shifted up by 0.2 for positives (clipped to 1).
func benchRecord(i int) (float64, int64) {
	h := splitmix64(uint64(i))
	label := int64(h & 1)
	u := float64(h>>11) / (1 << 53)
	x := float64(float32(math.Min(1, u+0.2*float64(label))))
	return x, label
}

// benchExact folds n records into auroc and average_precision states and computes both: the
// work of `evalstream run` with both metrics, without file reading.
func benchExact(b *testing.B, n int, opts map[string]any) { benchFold(b, n, 0, opts) }

// benchFold is benchExact with scores rounded to 1/grid when grid > 0 (grid+1 distinct
// scores: memory stays bounded whatever n).
func benchFold(b *testing.B, n, grid int, opts map[string]any) {
	var ms []core.Metric
	for _, typ := range []string{"auroc", "average_precision"} {
		m, err := ctor(typ, core.NewOptions(opts))
		if err != nil {
			b.Fatal(err)
		}
		ms = append(ms, m)
	}
	ex := core.Example{Values: []core.Value{{Kind: core.Float}, {Kind: core.Int}}}
	b.ReportAllocs()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		states := []core.State{ms[0].NewState(), ms[1].NewState()}
		for i := 0; i < n; i++ {
			ex.Values[0].Float, ex.Values[1].Int = benchRecord(i)
			if grid > 0 {
				ex.Values[0].Float = math.Round(ex.Values[0].Float*float64(grid)) / float64(grid)
			}
			for k, m := range ms {
				if m.Check(&ex) == nil {
					states[k].Add(&ex, 1)
				}
			}
		}
		for k, s := range states {
			v := s.Result().Value
			if v == nil {
				b.Fatal("null result")
			}
			if it == 0 {
				b.Logf("n=%d %s = %v", n, ms[k].Signature(), v)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkExactBinary1M(b *testing.B)  { benchExact(b, 1_000_000, nil) }
func BenchmarkExactBinary10M(b *testing.B) { benchExact(b, 10_000_000, nil) }
func BenchmarkBinned1000Binary10M(b *testing.B) {
	benchExact(b, 10_000_000, map[string]any{"compat": "torchmetrics", "thresholds": 1000})
}

// BenchmarkExactBinary10MGrid1e4: scores with 10^4 + 1 distinct values.
func BenchmarkExactBinary10MGrid1e4(b *testing.B) { benchFold(b, 10_000_000, 10_000, nil) }
