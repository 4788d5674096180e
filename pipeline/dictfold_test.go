package pipeline

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
)

// classifyPlan is accuracy, macro F1 and a confusion matrix over 3 classes, reading
// prediction and label.
func classifyPlan(t *testing.T, extra ...map[string]any) *Plan {
	t.Helper()
	entries := []map[string]any{
		{"type": "accuracy"},
		{"type": "f1", "average": "macro", "num_classes": 3},
		{"type": "confusion_matrix", "num_classes": 3},
	}
	var ms []*metrics.Metric
	for _, e := range append(entries, extra...) {
		m, err := metrics.New(e)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	p := NewPlan(ms, nil)
	require.True(t, p.Columnar())
	require.Equal(t, []string{"prediction", "label"}, p.Fields)
	return p
}

func intDict(vals ...int64) []core.Value {
	out := make([]core.Value, len(vals))
	for i, v := range vals {
		out[i] = core.Value{Kind: core.Int, Int: v}
	}
	return out
}

// foldRecords folds the records of the dictionary columns one by one, as a source without
// columns makes the pipeline do.
func foldRecords(t *testing.T, p *Plan, cols *Columns) *Accumulator {
	t.Helper()
	f, acc := NewFolder(p), NewAccumulator(p)
	for i := 0; i < cols.N; i++ {
		rec := Record{Values: make([]core.Value, len(p.Fields))}
		for fi, d := range cols.Dicts {
			rec.Values[fi] = d.Values[d.Codes[i]]
		}
		if rej := f.Check(&rec); rej != nil {
			acc.Reject(rej.Reason, &rec)
			continue
		}
		f.Add(acc, &rec, 1)
	}
	return acc
}

func TestFoldDictsLikeRecords(t *testing.T) {
	pred := &DictColumn{Values: intDict(2, 0, 1, 7), Codes: []int32{0, 1, 2, 0, 0, 1, 2, 2, 1, 0, 1}} // 7 unused
	label := &DictColumn{Values: intDict(0, 1, 2), Codes: []int32{2, 0, 1, 1, 2, 0, 0, 1, 1, 2, 0}}
	p := classifyPlan(t)
	cols := &Columns{N: len(pred.Codes), Ints: make([][]int64, 2), Dicts: []*DictColumn{pred, label}}
	f, acc := NewFolder(p), NewAccumulator(p)
	require.True(t, f.FoldColumns(acc, cols))
	want := foldRecords(t, p, cols)
	require.Equal(t, want.Records, acc.Records)
	require.Equal(t, int64(0), want.Skipped)
	for i := range p.Metrics {
		require.Equal(t, want.States[i].Result(), acc.States[i].Result(), p.Metrics[i].Name)
	}
}

func TestFoldDictsRefuses(t *testing.T) {
	p := classifyPlan(t)
	cases := []struct {
		name        string
		pred, label *DictColumn
	}{
		{"a class out of range is rejected: the records decide",
			&DictColumn{Values: intDict(0, 5), Codes: []int32{0, 1, 0}}, &DictColumn{Values: intDict(0, 1), Codes: []int32{0, 0, 1}}},
		{"a string without classes is rejected",
			&DictColumn{Values: []core.Value{{Kind: core.String, Str: "pos"}}, Codes: []int32{0, 0}}, &DictColumn{Values: intDict(1), Codes: []int32{0, 0}}},
		{"a code past its dictionary",
			&DictColumn{Values: intDict(0, 1), Codes: []int32{0, 2}}, &DictColumn{Values: intDict(0, 1), Codes: []int32{0, 1}}},
		{"a negative code",
			&DictColumn{Values: intDict(0, 1), Codes: []int32{0, 1}}, &DictColumn{Values: intDict(0, 1), Codes: []int32{-1, 1}}},
		{"codes shorter than the batch",
			&DictColumn{Values: intDict(0, 1), Codes: []int32{0}}, &DictColumn{Values: intDict(0, 1), Codes: []int32{0, 1}}},
		{"an empty dictionary",
			&DictColumn{Codes: []int32{0, 0}}, &DictColumn{Values: intDict(0, 1), Codes: []int32{0, 1}}},
		{"one field not dictionary-encoded", &DictColumn{Values: intDict(0, 1), Codes: []int32{0, 1}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cols := &Columns{N: 2, Ints: make([][]int64, 2), Dicts: []*DictColumn{c.pred, c.label}}
			if c.label != nil && len(c.label.Codes) == 3 {
				cols.N = 3
			}
			f, acc := NewFolder(p), NewAccumulator(p)
			require.False(t, f.FoldColumns(acc, cols))
			require.Zero(t, acc.Records)
			for i := range p.Metrics {
				require.Equal(t, NewAccumulator(p).States[i].Result(), acc.States[i].Result())
			}
		})
	}
}

// TestFoldDictsAsInts folds integer dictionary columns that foldDicts cannot fold (too many
// code combinations, or another field held as plain integers) through the integer path, the
// dictionaries expanded by the folder: the states are those of folding the records.
func TestFoldDictsAsInts(t *testing.T) {
	p := classifyPlan(t)
	big := make([]core.Value, 300)
	for i := range big {
		big[i] = core.Value{Kind: core.Int, Int: int64(i % 3)}
	}
	d := &DictColumn{Values: big, Codes: []int32{0, 299, 4, 5}}
	small := &DictColumn{Values: intDict(2, 1), Codes: []int32{1, 1, 0, 1}}
	cases := []struct {
		name string
		cols *Columns
	}{
		{"300x300 cells", &Columns{N: 4, Ints: make([][]int64, 2), Dicts: []*DictColumn{d, d}}},
		{"one field as integers", &Columns{N: 4, Ints: [][]int64{nil, {0, 1, 2, 2}}, Dicts: []*DictColumn{small, nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, acc := NewFolder(p), NewAccumulator(p)
			require.True(t, f.FoldColumns(acc, c.cols))
			// The same records, one by one.
			wantF, want := NewFolder(p), NewAccumulator(p)
			for i := 0; i < c.cols.N; i++ {
				rec := Record{Values: make([]core.Value, 2)}
				for fi := range rec.Values {
					if dc := c.cols.Dicts[fi]; dc != nil {
						rec.Values[fi] = dc.Values[dc.Codes[i]]
					} else {
						rec.Values[fi] = core.Value{Kind: core.Int, Int: c.cols.Ints[fi][i]}
					}
				}
				require.Nil(t, wantF.Check(&rec))
				wantF.Add(want, &rec, 1)
			}
			require.Equal(t, want.Records, acc.Records)
			for i := range p.Metrics {
				require.Equal(t, want.States[i].Result(), acc.States[i].Result(), p.Metrics[i].Name)
			}
		})
	}
}

// TestFoldDictsDeferred folds batches of dictionary columns of string classes with their
// adds deferred (as Run does): after FlushDicts the states are those of folding the records
// one by one, though each batch's strings are overwritten once it is folded (the deferred
// combinations own theirs) and the batches' dictionaries differ.
func TestFoldDictsDeferred(t *testing.T) {
	var ms []*metrics.Metric
	for _, e := range []map[string]any{
		{"type": "accuracy", "classes": []any{"a", "b", "c"}},
		{"type": "f1", "average": "macro", "classes": []any{"a", "b", "c"}},
		{"type": "confusion_matrix", "classes": []any{"a", "b", "c"}},
	} {
		m, err := metrics.New(e)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	p := NewPlan(ms, nil)
	require.True(t, p.Columnar())
	f, acc := NewFolder(p), NewAccumulator(p)
	f.DeferDictAdds()
	wantF, want := NewFolder(p), NewAccumulator(p)
	for batch, order := range []string{"abc", "cab", "bca", "abc"} {
		buf := []byte(order)
		dict := make([]core.Value, 3)
		for i := range dict {
			dict[i] = core.Value{Kind: core.String, Str: unsafe.String(&buf[i], 1)}
		}
		pred := &DictColumn{Values: dict, Codes: []int32{0, 1, 2, 0, int32(batch % 3), 1}}
		label := &DictColumn{Values: dict, Codes: []int32{0, 2, 2, 1, 0, 1}}
		cols := &Columns{N: 6, Ints: make([][]int64, 2), Dicts: []*DictColumn{pred, label}}
		for i := 0; i < cols.N; i++ {
			rec := Record{Values: []core.Value{
				{Kind: core.String, Str: strings.Clone(pred.Values[pred.Codes[i]].Str)},
				{Kind: core.String, Str: strings.Clone(label.Values[label.Codes[i]].Str)}}}
			require.Nil(t, wantF.Check(&rec))
			wantF.Add(want, &rec, 1)
		}
		require.True(t, f.FoldColumns(acc, cols))
		copy(buf, "zzz") // the batch's buffers are reused once it is folded
	}
	f.FlushDicts(acc)
	require.Equal(t, want.Records, acc.Records)
	for i := range p.Metrics {
		require.Equal(t, want.States[i].Result(), acc.States[i].Result(), p.Metrics[i].Name)
	}
}
