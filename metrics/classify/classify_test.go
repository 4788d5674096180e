package classify

import (
	"errors"
	"math"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// ex builds an example from Go literals (JSON-like values).
func ex(pred, label any) *core.Example {
	return &core.Example{Values: []core.Value{core.FromJSON(pred), core.FromJSON(label)}}
}

func build(t testing.TB, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	return m
}

func run(t testing.TB, m core.Metric, preds, labels []any) core.Result {
	t.Helper()
	s := m.NewState()
	for i := range preds {
		e := ex(preds[i], labels[i])
		require.NoError(t, m.Check(e), "record %d", i)
		s.Add(e, 1)
	}
	return s.Result()
}

func rows(xs ...[]float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func ints(xs ...int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

var (
	seed9P = rows([]float64{0.2, 0.5}, []float64{0.3, 0.1}, []float64{0.9, 0.6})
	seed9L = ints(1, 0, 1)
	seed6P = rows([]float64{0.8, 0.2}, []float64{-0.5, 0.5}, []float64{0.1, 0.4}, []float64{0.6, 0.3}, []float64{0.6, 0.3})
	seed6L = ints(0, 1, 0, 1, 0)
	e63P   = rows([]float64{0.9, 0.1, 0}, []float64{0.8, 0.1, 0.1}, []float64{0.1, 0.8, 0.1})
	e63L   = ints(0, 1, 1)
)

// TestSeeds checks the MindNLP seed values (spec §6, seeds 6, 9, 11) to the last digit.
func TestSeeds(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		opts   map[string]any
		preds  []any
		labels []any
		want   any
	}{
		{"accuracy seed 9", "accuracy", nil, seed9P, seed9L, 0.6666666666666666},
		{"precision seed 9", "precision", nil, seed9P, seed9L, []float64{0.5, 1.0}},
		{"recall seed 9", "recall", nil, seed9P, seed9L, []float64{1.0, 0.5}},
		{"f1 seed 9", "f1", nil, seed9P, seed9L, []float64{0.6666666666666666, 0.6666666666666666}},
		{"mcc seed 6 mindnlp", "mcc", map[string]any{"compat": "mindnlp"}, seed6P, seed6L, 0.16666666666666666},
		{"mcc seed 6 sklearn", "mcc", nil, seed6P, seed6L, 0.16666666666666666},
		{"confusion seed 11", "confusion_matrix", nil, ints(1, 0, 1, 0), ints(1, 0, 0, 1), [][]float64{{1, 1}, {1, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, build(t, tc.typ, tc.opts), tc.preds, tc.labels)
			require.Equal(t, tc.want, res.Value)
		})
	}
}

// TestSection63 checks the §6.3 table: argmax [0,0,1] vs labels [0,1,1] with C = 3.
func TestSection63(t *testing.T) {
	r4 := func(x float64) float64 { return math.Round(x*1e4) / 1e4 }
	tests := []struct {
		typ  string
		opts map[string]any
		want any
	}{
		{"precision", nil, []float64{0.5, 1, 0}},
		{"recall", nil, []float64{1, 0.5, 0}},
		{"f1", nil, []float64{0.6667, 0.6667, 0}},
		{"precision", map[string]any{"compat": "sklearn"}, []float64{0.5, 1}},
		{"precision", map[string]any{"compat": "sklearn", "average": "micro"}, 0.6667},
		{"recall", map[string]any{"compat": "sklearn", "average": "micro"}, 0.6667},
		{"f1", map[string]any{"compat": "sklearn", "average": "micro"}, 0.6667},
		{"precision", map[string]any{"compat": "sklearn", "average": "macro"}, 0.75},
		{"recall", map[string]any{"compat": "sklearn", "average": "macro"}, 0.75},
		{"f1", map[string]any{"compat": "sklearn", "average": "macro"}, 0.6667},
		{"precision", map[string]any{"compat": "sklearn", "average": "weighted"}, 0.8333},
		{"recall", map[string]any{"compat": "sklearn", "average": "weighted"}, 0.6667},
		{"f1", map[string]any{"compat": "sklearn", "average": "weighted"}, 0.6667},
		{"precision", map[string]any{"compat": "sklearn", "num_classes": 3, "zero_division": 1}, []float64{0.5, 1, 1}},
		{"recall", map[string]any{"compat": "sklearn", "num_classes": 3, "zero_division": 1}, []float64{1, 0.5, 1}},
		{"f1", map[string]any{"compat": "sklearn", "num_classes": 3, "zero_division": 1}, []float64{0.6667, 0.6667, 1}},
	}
	for _, tc := range tests {
		res := run(t, build(t, tc.typ, tc.opts), e63P, e63L)
		switch v := res.Value.(type) {
		case float64:
			require.Equal(t, tc.want, r4(v), "%s %v", tc.typ, tc.opts)
		case []float64:
			got := make([]float64, len(v))
			for i := range v {
				got[i] = r4(v[i])
			}
			require.Equal(t, tc.want, got, "%s %v", tc.typ, tc.opts)
		}
	}
	res := run(t, build(t, "precision", map[string]any{"compat": "sklearn"}), e63P, e63L)
	require.Equal(t, []int64{0, 1}, res.Details["classes"])
	require.Equal(t, []int64{1, 2}, res.Details["support"])
}

// TestMCCQuirks: MindNLP gives 0.0 whenever TP, FP, TN or FN is 0; sklearn gives ±1.
func TestMCCQuirks(t *testing.T) {
	mn := build(t, "mcc", map[string]any{"compat": "mindnlp"})
	sk := build(t, "mcc", nil)
	perfectP, perfectL := ints(1, 0, 1, 0), ints(1, 0, 1, 0)
	wrongP := ints(0, 1, 0, 1)
	require.Equal(t, 0.0, run(t, mn, perfectP, perfectL).Value)
	require.Equal(t, 1.0, run(t, sk, perfectP, perfectL).Value)
	require.Equal(t, 0.0, run(t, mn, wrongP, perfectL).Value)
	require.Equal(t, -1.0, run(t, sk, wrongP, perfectL).Value)
	// sklearn's zero-denominator case is a defined 0.0.
	require.Equal(t, 0.0, run(t, sk, ints(1, 1, 1), ints(1, 1, 1)).Value)
	// 3 classes: MindNLP TN counts any correct non-1 prediction.
	res := run(t, mn, ints(0, 2, 1, 2, 1), ints(0, 2, 1, 0, 2))
	require.Equal(t, map[string]any{"tp": int64(1), "fp": int64(1), "tn": int64(2), "fn": int64(1), "records": int64(5)}, res.Details)
	require.Equal(t, 0.16666666666666666, res.Value)
}

// TestAccuracyQuirks: a single score predicts round-half-even(p); ties go to the lower index;
// top_k counts the label among the k best scores.
func TestAccuracyQuirks(t *testing.T) {
	acc := build(t, "accuracy", nil)
	// 0.5→0 ✓, 2.5→2 ✓, 1.5→2 ✓, 0.49→0 ✗ (label 1), -0.5→-0 ✓ (label 0)
	res := run(t, acc, rows([]float64{0.5}, []float64{2.5}, []float64{1.5}, []float64{0.49}, []float64{-0.5}), ints(0, 2, 2, 1, 0))
	require.Equal(t, 0.8, res.Value)
	require.Equal(t, 1.0, run(t, acc, rows([]float64{0.5, 0.5}), ints(0)).Value)
	require.Equal(t, 0.0, run(t, acc, rows([]float64{0.5, 0.5}), ints(1)).Value)
	// label beyond the score list: incorrect, not rejected (MindNLP compares and misses)
	require.Equal(t, 0.0, run(t, acc, rows([]float64{0.1, 0.9}), ints(5)).Value)
	// one-hot label
	require.Equal(t, 1.0, run(t, acc, rows([]float64{0.1, 0.9}), []any{[]any{0, 1}}).Value)

	top2 := build(t, "accuracy", map[string]any{"top_k": 2})
	scores := rows([]float64{0.1, 0.5, 0.4}, []float64{0.3, 0.3, 0.3}, []float64{0.3, 0.3, 0.3}, []float64{0.7, 0.2, 0.1})
	// rec 0: label 2 is second ✓; rec 1: label 1 ties, rank 1 ✓; rec 2: label 2 ties, rank 2 ✗; rec 3: label 2 third ✗
	require.Equal(t, 0.5, run(t, top2, scores, ints(2, 1, 2, 2)).Value)
	// ±Inf scores are ordinary values
	require.Equal(t, 1.0, run(t, acc, rows([]float64{math.Inf(-1), math.Inf(1)}), ints(1)).Value)
}

// TestGrowAndPad: the class count grows with the data; merging pads to the larger matrix.
func TestGrowAndPad(t *testing.T) {
	m := build(t, "precision", nil)
	a, b := m.NewState(), m.NewState()
	a.Add(ex(0, 0), 1)
	a.Add(ex(1, 0), 2)
	b.Add(ex(4, 4), 1)
	require.Equal(t, []float64{1.0 / 1, 0}, a.Result().Value)
	require.NoError(t, a.Merge(b))
	require.Equal(t, []float64{1, 0, 0, 0, 1}, a.Result().Value)
	// score width counts as classes (MindNLP C = preds.shape[1])
	c := m.NewState()
	c.Add(ex([]any{0.9, 0.1, 0.0, 0.0}, 0), 1)
	require.Equal(t, []float64{1, 0, 0, 0}, c.Result().Value)
	// large class ids switch the matrix to its sparse form; results are unchanged
	big := m.NewState()
	big.Add(ex(1000, 1000), 3)
	big.Add(ex(0, 1000), 1)
	v := big.Result().Value.([]float64)
	require.Len(t, v, 1001)
	require.Equal(t, 0.0, v[0])
	require.Equal(t, 1.0, v[1000])
	bs, err := big.MarshalBinary()
	require.NoError(t, err)
	back, err := m.DecodeState(bs)
	require.NoError(t, err)
	require.Equal(t, big.Result(), back.Result())
	small := m.NewState()
	small.Add(ex(1, 1), 1)
	require.NoError(t, small.Merge(big))
	require.NoError(t, big.Merge(m.NewState()))
	big.Add(ex(1, 1), 1)
	require.Equal(t, big.Result(), small.Result())
}

func TestRejections(t *testing.T) {
	tests := []struct {
		typ    string
		opts   map[string]any
		pred   any
		label  any
		reason string
		field  string
	}{
		{"precision", nil, []any{0.1, math.NaN()}, 0, "non-finite value", "prediction"},
		{"accuracy", nil, []any{math.NaN(), 0.1}, 0, "non-finite value", "prediction"},
		{"mcc", nil, math.NaN(), 0, "non-finite value", "prediction"},
		{"mcc", nil, 1.5, 0, "wrong type", "prediction"},
		{"mcc", nil, 1, -2, "label out of range", "label"},
		{"mcc", nil, -1, 0, "label out of range", "prediction"},
		{"mcc", nil, 1, MaxClasses, "label out of range", "label"},
		{"f1", map[string]any{"num_classes": 3}, 3, 0, "label out of range", "prediction"},
		{"f1", map[string]any{"num_classes": 3}, []any{0.1, 0.2}, 0, "ragged scores", "prediction"},
		{"f1", map[string]any{"num_classes": 3}, 1, []any{0, 1}, "wrong length", "label"},
		{"confusion_matrix", nil, 0, 1024, "label out of range", "label"},
		{"confusion_matrix", map[string]any{"num_classes": 2}, 0, 2, "label out of range", "label"},
		{"confusion_matrix", map[string]any{"num_classes": 2}, []any{0.1, 0.2, 0.3}, 0, "ragged scores", "prediction"},
		{"recall", nil, 1, []any{0.2, 0.8}, "wrong type", "label"},
		{"recall", nil, 1, []any{1, 0, 1}, "wrong type", "label"},
		{"recall", nil, 1, []any{0, 0}, "wrong type", "label"},
		{"recall", nil, true, []string{"a"}, "wrong type", "label"},
		{"recall", nil, nil, 1, "missing field", "prediction"},
		{"accuracy", map[string]any{"top_k": 3}, 1, 1, "wrong type", "prediction"},
		{"accuracy", nil, []any{}, 1, "wrong length", "prediction"},
	}
	for _, tc := range tests {
		m := build(t, tc.typ, tc.opts)
		e := ex(tc.pred, tc.label)
		err := m.Check(e)
		var re *core.RecordError
		require.True(t, errors.As(err, &re), "%s %v %v: %v", tc.typ, tc.pred, tc.label, err)
		require.Equal(t, tc.reason, re.Reason, "%s %v %v: %v", tc.typ, tc.pred, tc.label, err)
		require.Equal(t, tc.field, re.Field)
		// Add ignores what Check rejects.
		s := m.NewState()
		s.Add(e, 1)
		s.Add(&core.Example{}, 1)
		if tc.typ != "confusion_matrix" {
			require.Nil(t, s.Result().Value)
			require.Equal(t, "no records", s.Result().Reason)
		}
	}
	// missing label values slice entirely
	require.Error(t, build(t, "mcc", nil).Check(&core.Example{}))
	// float ids that are integral are accepted
	require.NoError(t, build(t, "mcc", nil).Check(ex(1.0, 0)))
}

func TestOptions(t *testing.T) {
	bad := []struct {
		typ  string
		opts map[string]any
	}{
		{"precision", map[string]any{"zero_division": 1}},                      // mindnlp: forbidden
		{"precision", map[string]any{"compat": "sklearn", "zero_division": 2}}, // 0|1
		{"precision", map[string]any{"beta": 2}},                               // f1 only
		{"f1", map[string]any{"beta": -1}},
		{"f1", map[string]any{"average": "samples"}},
		{"f1", map[string]any{"num_classes": 0}},
		{"accuracy", map[string]any{"top_k": 0}},
		{"accuracy", map[string]any{"compat": "sklearn"}},
		{"mcc", map[string]any{"num_classes": 2}},
		{"confusion_matrix", map[string]any{"num_classes": 5000}},
	}
	for _, tc := range bad {
		o := core.NewOptions(tc.opts)
		_, err := ctor(tc.typ, o)
		require.NoError(t, err)
		require.Error(t, o.Err(), "%s %v", tc.typ, tc.opts)
	}
	m := build(t, "f1", map[string]any{"compat": "sklearn", "beta": 2, "average": "macro", "zero_division": 1})
	require.Equal(t, "type:f1|compat:sklearn|average:macro|num_classes:data|beta:2|zero_division:1|version:"+buildinfo.Version, m.Signature())
	require.Equal(t, "type:mcc|compat:sklearn|version:"+buildinfo.Version, build(t, "mcc", nil).Signature())
	// beta = inf is recall, beta = 0 precision
	inf := run(t, build(t, "f1", map[string]any{"beta": "inf"}), e63P, e63L)
	rec := run(t, build(t, "recall", nil), e63P, e63L)
	require.Equal(t, rec.Value, inf.Value)
	zero := run(t, build(t, "f1", map[string]any{"beta": 0}), e63P, e63L)
	prec := run(t, build(t, "precision", nil), e63P, e63L)
	require.Equal(t, prec.Value, zero.Value)
}

func TestMergeIncompatible(t *testing.T) {
	a := build(t, "precision", nil).NewState()
	b := build(t, "precision", map[string]any{"compat": "sklearn"}).NewState()
	require.ErrorIs(t, a.Merge(b), core.ErrIncompatible)
	bs, err := b.MarshalBinary()
	require.NoError(t, err)
	_, err = build(t, "precision", nil).DecodeState(bs)
	require.ErrorIs(t, err, core.ErrIncompatible)
}

func TestWeights(t *testing.T) {
	m := build(t, "confusion_matrix", map[string]any{"num_classes": 3})
	s := m.NewState()
	s.Add(ex(2, 1), 5)
	s.Add(ex([]any{0.0, 0.0, 1.0}, []any{0, 0, 1}), 2)
	require.Equal(t, [][]float64{{0, 0, 0}, {0, 0, 5}, {0, 0, 2}}, s.Result().Value)
	require.Equal(t, int64(7), s.Result().Details["records"])
}

func TestEmpty(t *testing.T) {
	for _, typ := range []string{"accuracy", "precision", "recall", "f1", "mcc"} {
		res := build(t, typ, nil).NewState().Result()
		require.Nil(t, res.Value, typ)
		require.Equal(t, "no records", res.Reason)
	}
	res := build(t, "confusion_matrix", nil).NewState().Result()
	require.Equal(t, [][]float64{}, res.Value)
	res = build(t, "confusion_matrix", map[string]any{"num_classes": 2}).NewState().Result()
	require.Equal(t, [][]float64{{0, 0}, {0, 0}}, res.Value)
}

func TestDecodeCorrupt(t *testing.T) {
	m := build(t, "precision", nil)
	s := m.NewState()
	s.Add(ex(1, 0), 1)
	s.Add(ex(2, 2), 3)
	good, err := s.MarshalBinary()
	require.NoError(t, err)
	for i := range good {
		for _, b := range []byte{0, 0xff, good[i] + 1} {
			bad := append([]byte(nil), good...)
			bad[i] = b
			st, err := m.DecodeState(bad)
			if err == nil {
				st.Result() // a state that decodes must be usable
			}
		}
	}
	_, err = m.DecodeState(append(good, 0))
	require.ErrorIs(t, err, core.ErrCorruptState)
}

func TestDocs(t *testing.T) {
	docs := Docs()
	require.Len(t, docs, 9)
	for _, d := range docs {
		require.NotEmpty(t, d.Presets)
		require.NotEmpty(t, d.Value)
		require.NotEmpty(t, d.Invalid)
		require.NotEmpty(t, d.Memory)
		o := core.NewOptions(nil)
		m, err := ctor(d.Type, o)
		require.NoError(t, err)
		require.NoError(t, o.Err())
		require.Contains(t, m.Signature(), "compat:"+d.Presets[0])
		for _, opt := range d.Options {
			require.NotEmpty(t, opt.Help, "%s.%s", d.Type, opt.Name)
		}
	}
}

// TestReportOptions: classification_report takes sklearn's preset and zero_division 0 or 1
// only, and its signature carries zero_division.
func TestReportOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    map[string]any
		wantErr string
		wantSig string
	}{
		{"defaults", nil, "", "type:classification_report|compat:sklearn|zero_division:0|version:" + buildinfo.Version},
		{"zero_division 1", map[string]any{"zero_division": 1}, "", "type:classification_report|compat:sklearn|zero_division:1|version:" + buildinfo.Version},
		{"zero_division 2", map[string]any{"zero_division": 2}, "zero_division", ""},
		{"mindnlp", map[string]any{"compat": "mindnlp"}, "compat", ""},
		{"average is not an option", map[string]any{"average": "macro"}, "average", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := core.NewOptions(tt.opts)
			m, err := NewClassificationReport(o)
			if err == nil {
				err = o.Err()
			}
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantSig, m.Signature())
		})
	}
}

// TestClassNames: the classes option's problems, and results that name the classes.
func TestClassNames(t *testing.T) {
	named := [][2]any{{"neg", "neg"}, {"pos", "neg"}, {"pos", "pos"}}
	problems := []struct {
		name string
		ctor func(*core.Options) (core.Metric, error)
		opts map[string]any
		want string
	}{
		{"duplicate", NewF1, map[string]any{"classes": []any{"a", "b", "a"}}, `"a" is listed twice`},
		{"empty name", NewF1, map[string]any{"classes": "a,,b"}, "name 1 is empty"},
		{"empty list", NewAccuracy, map[string]any{"classes": []any{}}, "at least one class name"},
		{"num_classes disagrees", NewPrecision, map[string]any{"classes": "[a, b]", "num_classes": 3}, "is 3 but classes names 2 classes"},
		{"not for mcc", NewMCC, map[string]any{"classes": "[a, b]"}, "classes"},
	}
	for _, tt := range problems {
		t.Run(tt.name, func(t *testing.T) {
			o := core.NewOptions(tt.opts)
			_, err := tt.ctor(o)
			if err == nil {
				err = o.Err()
			}
			require.ErrorContains(t, err, tt.want)
		})
	}

	results := []struct {
		name    string
		ctor    func(*core.Options) (core.Metric, error)
		opts    map[string]any
		recs    [][2]any // prediction, label
		classes any
	}{
		{"f1 names every class", NewF1, map[string]any{"classes": "[neg, neu, pos]", "compat": "sklearn"}, named, []string{"neg", "neu", "pos"}},
		{"confusion matrix", NewConfusionMatrix, map[string]any{"classes": []any{"neg", "neu", "pos"}}, named, []string{"neg", "neu", "pos"}},
		{"ids and names mixed", NewF1, map[string]any{"classes": "[neg, neu, pos]", "compat": "sklearn"}, [][2]any{{"neg", 0}, {2, "neg"}, {"pos", 2}}, []string{"neg", "neu", "pos"}},
		{"ids without names", NewF1, map[string]any{"compat": "sklearn"}, [][2]any{{0, 0}, {2, 0}, {2, 2}}, []int64{0, 2}},
	}
	for _, tt := range results {
		t.Run(tt.name, func(t *testing.T) {
			o := core.NewOptions(tt.opts)
			m, err := tt.ctor(o)
			require.NoError(t, err)
			require.NoError(t, o.Err())
			st := m.NewState()
			for _, r := range tt.recs {
				ex := ex(r[0], r[1])
				require.NoError(t, m.Check(ex))
				st.Add(ex, 1)
			}
			require.Equal(t, tt.classes, st.Result().Details["classes"])
		})
	}
}
