package text

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func benchText(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		switch rng.Intn(10) {
		case 0:
			ws[i] = "the"
		case 1:
			ws[i] = "A,"
		default:
			ws[i] = fmt.Sprintf("w%d", int(rng.ExpFloat64()*200))
		}
	}
	return strings.Join(ws, " ")
}

func BenchmarkAdd(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	for _, c := range []struct {
		name string
		typ  string
		n    int
		refs int
	}{
		{"distinct/n2-text", "distinct", 25, 0},
		{"exact_match/short-3golds", "exact_match", 4, 3},
		{"token_f1/short-3golds", "token_f1", 4, 3},
		{"token_f1/sentence-1gold", "token_f1", 25, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := build(b, c.typ, nil)
			recs := make([]rec, 256)
			for i := range recs {
				golds := make([]string, c.refs)
				for j := range golds {
					golds[j] = benchText(rng, c.n)
				}
				recs[i] = rec{benchText(rng, c.n), golds}
			}
			exs := examples(m, recs)
			st := m.NewState()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st.Add(&exs[i%len(exs)], 1)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
