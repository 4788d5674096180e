package classify

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

// The columnar path (CheckIntColumns + AddIntColumns) must agree with Check + Add record by
// record: same acceptance, bit-identical states and results.
func TestIntColumnsMatchRecords(t *testing.T) {
	metrics := []struct {
		typ  string
		opts map[string]any
	}{
		{"accuracy", nil},
		{"accuracy", map[string]any{"top_k": 2}},
		{"precision", nil},
		{"recall", map[string]any{"compat": "sklearn", "average": "macro"}},
		{"f1", map[string]any{"compat": "sklearn", "average": "macro"}},
		{"f1", map[string]any{"num_classes": 5, "average": "weighted"}},
		{"confusion_matrix", map[string]any{"num_classes": 5}},
		{"confusion_matrix", map[string]any{"num_classes": 300}},
		{"mcc", nil},
		{"mcc", map[string]any{"compat": "mindnlp"}},
		{"cohen_kappa", nil},
		{"cohen_kappa", map[string]any{"weights": "linear"}},
		{"cohen_kappa", map[string]any{"weights": "quadratic"}},
		{"balanced_accuracy", nil},
		{"balanced_accuracy", map[string]any{"adjusted": true}},
	}
	rng := rand.New(rand.NewSource(3))
	for _, mc := range metrics {
		m := build(t, mc.typ, mc.opts)
		cc := m.(interface{ CheckIntColumns([][]int64) bool })
		for trial := 0; trial < 60; trial++ {
			n := []int{0, 1, 7, 64, 65, 1000}[trial%6]
			classes := []int64{2, 5, 16, 17, 300, 1000}[trial/6%6]
			pred, label := make([]int64, n), make([]int64, n)
			for i := range pred {
				pred[i], label[i] = rng.Int63n(classes), rng.Int63n(classes)
				if rng.Intn(3) > 0 {
					pred[i] = label[i]
				}
			}
			if trial%10 == 9 && n > 0 {
				pred[rng.Intn(n)] = []int64{-1, MaxClasses, 1 << 40}[trial%3]
			}
			weight := int64(1 + trial%3/2*2) // 1 or 3
			name := fmt.Sprintf("%s %v trial %d", mc.typ, mc.opts, trial)

			rows := m.NewState()
			all := true
			for i := range pred {
				ex := &core.Example{Values: []core.Value{{Kind: core.Int, Int: pred[i]}, {Kind: core.Int, Int: label[i]}}}
				if m.Check(ex) != nil {
					all = false
					continue
				}
				rows.Add(ex, weight)
			}
			require.Equal(t, all, cc.CheckIntColumns([][]int64{pred, label}), name)
			if !all {
				continue
			}
			cols := m.NewState()
			// Split the batch in two, as the pipeline folds batch by batch.
			k := n / 3
			cols.(*State).AddIntColumns([][]int64{pred[:k], label[:k]}, weight)
			cols.(*State).AddIntColumns([][]int64{pred[k:], label[k:]}, weight)
			a, err := rows.MarshalBinary()
			require.NoError(t, err)
			b, err := cols.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, a, b, name)
			require.Equal(t, rows.Result(), cols.Result(), name)
		}
	}
}

func BenchmarkAddIntColumns(b *testing.B) {
	for _, typ := range []string{"accuracy", "confusion_matrix"} {
		b.Run(typ, func(b *testing.B) {
			opts := map[string]any{"num_classes": 5}
			if typ == "accuracy" {
				opts = nil
			}
			m := build(b, typ, opts)
			rng := rand.New(rand.NewSource(1))
			pred, label := make([]int64, 1024), make([]int64, 1024)
			for i := range pred {
				pred[i], label[i] = rng.Int63n(5), rng.Int63n(5)
			}
			cols := [][]int64{pred, label}
			s := m.NewState().(*State)
			cc := m.(*Metric)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if cc.CheckIntColumns(cols) {
					s.AddIntColumns(cols, 1)
				}
			}
			b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "records/s")
		})
	}
}
