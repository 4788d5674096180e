package compare

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

var classCI = stats.Config{Method: stats.MethodPoisson, Resamples: 300, Level: 0.95, Seed: 2026}

// bootMetric builds a metric of the registry wrapped with classCI's replicates.
func bootMetric(t *testing.T, entry map[string]any) core.Metric {
	t.Helper()
	m, err := metrics.New(entry)
	require.NoError(t, err)
	m, err = m.WithCI(classCI)
	require.NoError(t, err)
	return m.Metric
}

// foldClasses folds (prediction, label) pairs, record i being the resampling unit of row i
// (as in a file run), into a new state of m.
func foldClasses(m core.Metric, preds, labels []core.Value) *stats.BootstrapState {
	st := m.NewState()
	var memo core.Memo
	for i := range preds {
		memo.Next()
		st.Add(&core.Example{Values: []core.Value{preds[i], labels[i]}, Unit: stats.UnitOfRow(int64(i)), Memo: &memo}, 1)
	}
	return st.(*stats.BootstrapState)
}

func ids(xs []int64) []core.Value {
	out := make([]core.Value, len(xs))
	for i, x := range xs {
		out[i] = core.Value{Kind: core.Int, Int: x}
	}
	return out
}

// threeClassData: 400 records of classes 0..2; the baseline is right 60% of the time, the
// candidate fixes some of its errors on class 1 only (so class 1's F1 rises clearly and the
// others move a little). With extra, the candidate also predicts, once, a class 3 no label
// has: a third of the replicates lack it.
func threeClassData(extra bool) (labels, base, cand []int64) {
	rng := rand.New(rand.NewSource(5))
	for i := 0; i < 400; i++ {
		l := int64(rng.Intn(3))
		b := l
		if rng.Float64() < 0.4 {
			b = (l + 1 + int64(rng.Intn(2))) % 3
		}
		c := b
		if l == 1 && b != 1 && rng.Float64() < 0.7 {
			c = 1
		}
		if extra && i == 5 {
			c = 3
		}
		labels, base, cand = append(labels, l), append(base, b), append(cand, c)
	}
	return labels, base, cand
}

// oneVsRest recodes class ids: k → 1, every other class → 0.
func oneVsRest(xs []int64, k int64) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		if x == k {
			out[i] = 1
		}
	}
	return out
}

// percentile is numpy's default (linear) percentile of sorted values, written out here
// independently of stats.Spread.
func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := math.Floor(pos)
	hi := math.Ceil(pos)
	return sorted[int(lo)] + (sorted[int(hi)]-sorted[int(lo)])*(pos-lo)
}

func compareOne(t *testing.T, name string, base, cand *stats.BootstrapState) *Report {
	t.Helper()
	rep, err := Compare(context.Background(), []System{{Name: "base", States: []core.State{base}}, {Name: "cand", States: []core.State{cand}}}, 0,
		Options{Test: TestBootstrap, Alpha: 0.05, Names: []string{name}, CI: classCI})
	require.NoError(t, err)
	return rep
}

// TestPerClassAgainstHandComputation: every class's delta, delta interval and p-value of a
// per-class F1 equal the paired bootstrap computed here by hand from the two states'
// replicate values (statistics.md §2: p = (1 + #{b : |δ*_b − δ̂| ≥ |δ̂|}) / (B + 1), the
// percentile interval of δ*), and each class's value and interval equal the results'.
func TestPerClassAgainstHandComputation(t *testing.T) {
	labels, base, cand := threeClassData(false)
	m := bootMetric(t, map[string]any{"type": "f1"})
	bs, cs := foldClasses(m, ids(base), ids(labels)), foldClasses(m, ids(cand), ids(labels))
	rep := compareOne(t, "f1", bs, cs)
	rows := rep.Metrics[0].Rows
	require.Len(t, rows, 2)
	bv, cv := bs.Result().Value.([]float64), cs.Result().Value.([]float64)
	require.Len(t, bv, 3)
	bReps, cReps := bs.ReplicateValues(), cs.ReplicateValues()
	for k := 0; k < 3; k++ {
		t.Run(stats.ClassKey(int64(k)), func(t *testing.T) {
			want := cv[k] - bv[k]
			var deltas []float64
			for b := range bReps {
				x, y := bReps[b].([]float64), cReps[b].([]float64)
				require.Len(t, x, 3, "every class is in every replicate of 400 records")
				require.Len(t, y, 3)
				deltas = append(deltas, y[k]-x[k])
			}
			extreme := 0
			for _, d := range deltas {
				if math.Abs(d-want) >= math.Abs(want) {
					extreme++
				}
			}
			sort.Float64s(deltas)
			br, cr := rows[0].Classes[k], rows[1].Classes[k]
			require.Equal(t, int64(k), br.Class)
			require.Equal(t, int64(k), cr.Class)
			require.Equal(t, bv[k], *br.Value)
			require.Equal(t, cv[k], *cr.Value)
			ci := cs.Result().CI
			require.Equal(t, ci.Low.([]float64)[k], *cr.Low)
			require.Equal(t, ci.High.([]float64)[k], *cr.High)
			require.False(t, br.Tested, "the baseline is not tested against itself")
			require.True(t, cr.Tested, cr.Reason)
			require.Equal(t, want, cr.Test.Delta)
			require.Equal(t, float64(1+extreme)/float64(len(deltas)+1), cr.Test.P)
			require.InDelta(t, percentile(deltas, 0.025), cr.Test.DeltaLow, 1e-12)
			require.InDelta(t, percentile(deltas, 0.975), cr.Test.DeltaHigh, 1e-12)
			require.Equal(t, len(deltas), cr.Test.Draws)
		})
	}
	// The candidate fixed class-1 errors: class 1 improves significantly.
	require.Greater(t, rows[1].Classes[1].Test.Delta, 0.05)
	require.True(t, rows[1].Classes[1].Significant(0.05))
}

// TestPerClassEqualsOneVsRest: the entry of class k equals the positive class's entry of
// the same comparison on the data recoded one-vs-rest (k → 1, the rest → 0) — per-class
// precision, recall and F1 of k depend on nothing else, and the records keep their
// resampling units — bit for bit, also when the candidate predicts a class the baseline's
// results do not list (entries are matched by class, not position).
func TestPerClassEqualsOneVsRest(t *testing.T) {
	for _, extra := range []bool{false, true} {
		labels, base, cand := threeClassData(extra)
		for _, typ := range []string{"f1", "precision", "recall"} {
			m := bootMetric(t, map[string]any{"type": typ})
			rep := compareOne(t, typ, foldClasses(m, ids(base), ids(labels)), foldClasses(m, ids(cand), ids(labels)))
			multi := rep.Metrics[0].Rows[1]
			for k := int64(0); k < 3; k++ {
				bin := compareOne(t, typ, foldClasses(m, ids(oneVsRest(base, k)), ids(oneVsRest(labels, k))),
					foldClasses(m, ids(oneVsRest(cand, k)), ids(oneVsRest(labels, k)))).Metrics[0].Rows[1]
				got, ok := multi.class(stats.ClassKey(k))
				require.True(t, ok)
				pos, ok := bin.class("1")
				require.True(t, ok)
				require.True(t, got.Tested, "%s class %d (extra %v): %s", typ, k, extra, got.Reason)
				require.Equal(t, pos.Test, got.Test, "%s class %d (extra %v)", typ, k, extra)
				require.Equal(t, *pos.Value, *got.Value)
				// The class's interval is its own replicates' too, whatever other
				// classes a replicate lacks.
				require.Equal(t, *pos.Low, *got.Low, "%s class %d (extra %v)", typ, k, extra)
				require.Equal(t, *pos.High, *got.High, "%s class %d (extra %v)", typ, k, extra)
			}
			if !extra {
				require.Len(t, multi.Classes, 3)
				continue
			}
			// Class 3 only the candidate predicts: listed, not compared; the baseline row
			// shows it as absent.
			c3, ok := multi.class("3")
			require.True(t, ok)
			require.False(t, c3.Tested)
			require.Equal(t, "not compared: the baseline's results do not list this class", c3.Reason)
			_, inBase := rep.Metrics[0].Rows[0].class("3")
			require.False(t, inBase)
			var tb strings.Builder
			require.NoError(t, rep.WriteTable(&tb, 4))
			require.Regexp(t, regexp.MustCompile(`(?m)^`+typ+`\[3\]\s+base\s+— \(not listed\)`), tb.String())
		}
	}
}

// TestPerClassOutputNamesClasses: with class names, the table has one line per class and
// system named metric[class], and the JSON one entry per class with its name, value,
// interval and, for the candidate, delta, delta interval, p-value and significance. The
// confusion matrix is shown but not compared.
func TestPerClassOutputNamesClasses(t *testing.T) {
	labels, base, cand := threeClassData(false)
	names := []string{"neg", "neu", "pos"}
	str := func(xs []int64) []core.Value {
		out := make([]core.Value, len(xs))
		for i, x := range xs {
			out[i] = core.Value{Kind: core.String, Str: names[x]}
		}
		return out
	}
	f1 := bootMetric(t, map[string]any{"type": "f1", "classes": []any{"neg", "neu", "pos"}})
	cm := bootMetric(t, map[string]any{"type": "confusion_matrix", "num_classes": 3})
	sys := func(name string, preds []int64) System {
		return System{Name: name, States: []core.State{foldClasses(f1, str(preds), str(labels)), foldClasses(cm, ids(preds), ids(labels))}}
	}
	rep, err := Compare(context.Background(), []System{sys("base", base), sys("cand", cand)}, 0, Options{Test: TestBootstrap, Alpha: 0.05, Names: []string{"f1", "cm"}, CI: classCI})
	require.NoError(t, err)
	// Names give the same numbers as ids.
	byID := compareOne(t, "f1", foldClasses(f1, ids(base), ids(labels)), foldClasses(f1, ids(cand), ids(labels))).Metrics[0].Rows[1]
	for k, n := range names {
		got, ok := rep.Metrics[0].Rows[1].class(n)
		require.True(t, ok, n)
		require.Equal(t, byID.Classes[k].Test, got.Test, n)
	}
	cmRow := rep.Metrics[1].Rows[1]
	require.Nil(t, cmRow.Classes)
	require.False(t, cmRow.Tested)
	require.Equal(t, "not compared: a matrix (the confusion matrix) is shown, not tested", cmRow.Reason)

	var tb strings.Builder
	require.NoError(t, rep.WriteTable(&tb, 4))
	table := tb.String()
	var f1Lines []string
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "f1") {
			f1Lines = append(f1Lines, l)
		}
	}
	require.Len(t, f1Lines, 6, table)
	for i, n := range names {
		require.Regexp(t, `^f1\[`+n+`\]\s+base\s+[0-9.]+ \[[0-9.]+, [0-9.]+\]\s+\(baseline\)`, f1Lines[2*i])
		require.Regexp(t, `^f1\[`+n+`\]\s+cand\s+[0-9.]+ \[[0-9.]+, [0-9.]+\]\s+[+-][0-9.]+ \[[+-][0-9.e-]+, [+-][0-9.e-]+\]\s+p = [0-9.]+`, f1Lines[2*i+1])
	}
	require.Regexp(t, `f1\[neu\]\s+cand\s+.*p = 0\.00[0-9]+ \*`, table, "class neu improves significantly")
	require.Regexp(t, `cm\s+cand\s+\[\[.*not compared`, table)

	raw, err := rep.MarshalJSON()
	require.NoError(t, err)
	var out struct {
		Metrics map[string][]struct {
			System  string `json:"system"`
			Value   any    `json:"value"`
			Reason  string `json:"reason"`
			Classes []struct {
				Class       string              `json:"class"`
				Value       *float64            `json:"value"`
				CI          *map[string]float64 `json:"ci"`
				Delta       *float64            `json:"delta"`
				DeltaCI     *map[string]float64 `json:"delta_ci"`
				PValue      *float64            `json:"p_value"`
				Significant *bool               `json:"significant"`
			} `json:"classes"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	rows := out.Metrics["f1"]
	require.Len(t, rows, 2)
	for r, row := range rows {
		require.Len(t, row.Classes, 3)
		for k, c := range row.Classes {
			want := rep.Metrics[0].Rows[r].Classes[k]
			require.Equal(t, names[k], c.Class)
			require.Equal(t, *want.Value, *c.Value)
			require.NotNil(t, c.CI)
			require.Equal(t, *want.Low, (*c.CI)["low"])
			if r == 0 {
				require.Nil(t, c.Delta, "the baseline has no delta")
				continue
			}
			require.Equal(t, want.Test.Delta, *c.Delta)
			require.Equal(t, want.Test.DeltaLow, (*c.DeltaCI)["low"])
			require.Equal(t, want.Test.P, *c.PValue)
			require.Equal(t, want.Test.P < 0.05, *c.Significant)
		}
	}
	require.Empty(t, rows[1].Reason, "a per-class candidate is compared, class by class")
	require.Nil(t, out.Metrics["cm"][1].Classes)
}

// TestPerClassUnderRandomization: test ar keeps trials of single numbers only, so a
// per-class metric is shown but not tested (not given a bootstrap p-value under an ar
// footer).
func TestPerClassUnderRandomization(t *testing.T) {
	labels, base, cand := threeClassData(false)
	m := bootMetric(t, map[string]any{"type": "f1"})
	rep, err := Compare(context.Background(), []System{{Name: "base", States: []core.State{foldClasses(m, ids(base), ids(labels))}}, {Name: "cand", States: []core.State{foldClasses(m, ids(cand), ids(labels))}}}, 0,
		Options{Test: TestRandomization, Alpha: 0.05, Names: []string{"f1"}, CI: classCI, Trials: 100})
	require.NoError(t, err)
	row := rep.Metrics[0].Rows[1]
	require.Equal(t, "not compared: test ar compares single numbers; per-class values need --test bs", row.Reason)
	require.Len(t, row.Classes, 3)
	for _, c := range row.Classes {
		require.False(t, c.Tested)
		require.NotNil(t, c.Value)
	}
	var tb strings.Builder
	require.NoError(t, rep.WriteTable(&tb, 4))
	require.Regexp(t, `f1\[1\]\s+cand\s+[0-9.]+ \[[0-9.]+, [0-9.]+\]\s+not compared: test ar`, tb.String())
}
