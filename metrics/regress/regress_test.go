package regress

import (
	"errors"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

func build(t testing.TB, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	require.NoError(t, err)
	require.NoError(t, o.Err())
	return m
}

func ex(vals ...any) *core.Example {
	e := &core.Example{}
	for _, v := range vals {
		e.Values = append(e.Values, core.FromJSON(v))
	}
	return e
}

// fold adds pairs (x[i], y[i]) with Seq = i.
func fold(t testing.TB, m core.Metric, xs, ys []any) core.Result {
	t.Helper()
	s := m.NewState()
	for i := range xs {
		e := ex(xs[i], ys[i])
		e.Seq = uint64(i)
		require.NoError(t, m.Check(e), "record %d", i)
		s.Add(e, 1)
	}
	return s.Result()
}

func anys[T any](xs ...T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// requirePrinted checks got against a printed reference value to its last printed digit
// (within half a unit of it).
func requirePrinted(t testing.TB, printed string, got any) {
	t.Helper()
	want, err := strconv.ParseFloat(printed, 64)
	require.NoError(t, err)
	decimals := 0
	if i := strings.IndexByte(printed, '.'); i >= 0 {
		decimals = len(printed) - i - 1
	}
	require.InDelta(t, want, got, 0.5*math.Pow(10, -float64(decimals)), "printed %s", printed)
}

var (
	seed7P = anys(0.1, 1.0, 2.4, 0.9)
	seed7L = anys(0.0, 1.0, 2.9, 1.0)
)

// TestSeeds checks the MindNLP seeds and the spec's reference values (§7–§9).
func TestSeeds(t *testing.T) {
	// Pearson seed 7 needs float32 inputs. MindNLP sums left to right and prints
	// 0.9985229081857804; our exact sums give 0.9985229081857803, one ulp (1.1e-16) below.
	r := fold(t, build(t, "pearson", map[string]any{"compat": "mindnlp", "dtype": "float32"}), seed7P, seed7L)
	require.InDelta(t, 0.9985229081857804, r.Value, 1.2e-16)
	require.Equal(t, 0.9985229081857803, r.Value)
	// float64 inputs: MindNLP 0.9985229080895216 (we give ...218: its one-pass formula cancels,
	// so the summation order shows in the last 2 ulps), scipy (1.10) 0.9985229080895217.
	r = fold(t, build(t, "pearson", map[string]any{"compat": "mindnlp"}), seed7P, seed7L)
	require.InDelta(t, 0.9985229080895216, r.Value, 2.3e-16)
	r = fold(t, build(t, "pearson", nil), seed7P, seed7L)
	require.InDelta(t, 0.9985229080895217, r.Value, 1.2e-16)

	require.Equal(t, 1.0, fold(t, build(t, "spearman", map[string]any{"compat": "mindnlp"}), seed7P, seed7L).Value)
	require.Equal(t, 0.9486832980505139, fold(t, build(t, "spearman", nil), seed7P, seed7L).Value)
	// swapping the preds 1.0 and 0.9: MindNLP 0.8, scipy unchanged
	swapped := anys(0.1, 0.9, 2.4, 1.0)
	require.Equal(t, 0.8, fold(t, build(t, "spearman", map[string]any{"compat": "mindnlp"}), swapped, seed7L).Value)
	require.Equal(t, 0.9486832980505139, fold(t, build(t, "spearman", nil), swapped, seed7L).Value)

	ppl := build(t, "perplexity", nil)
	s8P := anys([]any{0.2, 0.5}, []any{0.3, 0.1}, []any{0.9, 0.6})
	s8L := anys(1, 0, 1)
	require.Equal(t, 2.231443166940565, fold(t, ppl, s8P, s8L).Value)
	p3 := anys([]any{.6, .5, .1}, []any{.3, .6, .05}, []any{.1, .6, .2}, []any{.1, .2, .7})
	// MindNLP prints 5.37284965911771; Go's math.Exp is within 1 ulp, not correctly rounded,
	// and we get 5.372849659117708: equal to the last printed digit.
	requirePrinted(t, "5.37284965911771", fold(t, ppl, p3, anys(2, 1, 0, 1)).Value)
	two := append(append([]any{}, s8P...), []any{.6, .5}, []any{.3, .6}, []any{.1, .6})
	require.Equal(t, 2.599615782630921, fold(t, ppl, two, anys(1, 0, 1, 0, 1, 0)).Value)
	// ignite reads logits: 1.9521859884 (float32 accumulator), exact float64 1.95218603...
	r = fold(t, build(t, "perplexity", map[string]any{"compat": "ignite"}), s8P, s8L)
	require.InEpsilon(t, 1.9521859884, r.Value, 1e-6)
}

func TestPearsonLargeOffset(t *testing.T) {
	// x ≈ 1e9 + small: scipy keeps its precision, MindNLP's one-pass formula does not.
	rng := rand.New(rand.NewSource(3))
	var xs, ys []any
	var dx, dy []float64
	for i := 0; i < 100; i++ {
		a := rng.Float64()
		b := a + 0.1*rng.Float64()
		xs, ys = append(xs, 1e9+a), append(ys, b)
		dx, dy = append(dx, 1e9+a), append(dy, b)
	}
	// two-pass reference in float64 on the de-offset data
	var mx, my float64
	for i := range dx {
		mx += dx[i] - 1e9
		my += dy[i]
	}
	mx /= 100
	my /= 100
	var sxy, sxx, syy float64
	for i := range dx {
		a, b := dx[i]-1e9-mx, dy[i]-my
		sxy += a * b
		sxx += a * a
		syy += b * b
	}
	want := sxy / math.Sqrt(sxx*syy)
	got := fold(t, build(t, "pearson", nil), xs, ys)
	require.InEpsilon(t, want, got.Value, 1e-9)
	require.Greater(t, want, 0.99)
}

func TestUndefined(t *testing.T) {
	for _, c := range []struct {
		typ    string
		opts   map[string]any
		xs, ys []any
		reason string
	}{
		{"pearson", nil, nil, nil, "fewer than 2 records"},
		{"pearson", nil, anys(1), anys(2), "fewer than 2 records"},
		{"pearson", nil, anys(1, 2, 3), anys(0.7, 0.7, 0.7), "constant input"},
		{"pearson", nil, anys(5, 5), anys(1, 2), "constant input"},
		{"spearman", nil, anys(1, 2, 3), anys(4, 4, 4), "constant input"},
		{"spearman", map[string]any{"compat": "mindnlp"}, anys(1), anys(4), "fewer than 2 records"},
		{"pearson", nil, anys(1e200, 2e200, 3e200), anys(1, 2, 4), "overflow"},
	} {
		r := fold(t, build(t, c.typ, c.opts), c.xs, c.ys)
		require.Nil(t, r.Value, "%v", c)
		require.Equal(t, c.reason, r.Reason)
		require.Equal(t, c.reason, r.Details["reason"])
	}
	// MindNLP: constant input is 0.0 when the rounding is exact; all-tied y is -1.0 for x=[1,2,3].
	require.Equal(t, 0.0, fold(t, build(t, "pearson", map[string]any{"compat": "mindnlp"}), anys(1, 2, 3), anys(2, 2, 2)).Value)
	require.Equal(t, -1.0, fold(t, build(t, "spearman", map[string]any{"compat": "mindnlp"}), anys(1, 2, 3), anys(4, 4, 4)).Value)
	// n = 2 is exactly ±1 with scipy
	require.Equal(t, -1.0, fold(t, build(t, "pearson", nil), anys(0.1, 0.3), anys(5, -7)).Value)
	ppl := build(t, "perplexity", nil).NewState().Result()
	require.Nil(t, ppl.Value)
	require.Equal(t, "no records", ppl.Reason)
}

// TestMindNLPNegativeVariance: where MindNLP's formula takes the root of a negative number
// (it raises "math domain error"), we report null with a reason.
func TestMindNLPNegativeVariance(t *testing.T) {
	m := build(t, "pearson", map[string]any{"compat": "mindnlp"})
	found := false
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 2000 && !found; trial++ {
		c := float64(rng.Intn(1000)) / 1000
		n := 2 + rng.Intn(8)
		var xs, ys []any
		for i := 0; i < n; i++ {
			xs, ys = append(xs, float64(i)), append(ys, c)
		}
		r := fold(t, m, xs, ys)
		if r.Value == nil {
			require.Equal(t, "negative variance from rounding", r.Reason)
			found = true
		} else {
			require.False(t, math.IsNaN(r.Value.(float64)))
		}
	}
	require.True(t, found, "expected some constant inputs to round to a negative variance")
}

// TestSpearmanTies: MindNLP ordinal ranks break ties by record order (Seq), whatever order the
// records were added or merged in.
func TestSpearmanTies(t *testing.T) {
	m := build(t, "spearman", map[string]any{"compat": "mindnlp"})
	xs := []float64{3, 1, 1, 2, 1, 3}
	ys := []float64{1, 1, 2, 3, 1, 1}
	want := fold(t, m, anys(xs...), anys(ys...)).Value
	// reference: stable descending ranks
	rank := func(v []float64) []int {
		r := make([]int, len(v))
		for i := range v {
			r[i] = 1
			for j := range v {
				if v[j] > v[i] || (v[j] == v[i] && j < i) {
					r[i]++
				}
			}
		}
		return r
	}
	rx, ry := rank(xs), rank(ys)
	d2 := 0
	for i := range rx {
		d2 += (rx[i] - ry[i]) * (rx[i] - ry[i])
	}
	n := float64(len(xs))
	require.Equal(t, 1-float64(6*d2)/(n*(n*n-1)), want)
	// reversed insertion order, Seq kept
	s := m.NewState()
	for i := len(xs) - 1; i >= 0; i-- {
		e := ex(xs[i], ys[i])
		e.Seq = uint64(i)
		s.Add(e, 1)
	}
	require.Equal(t, want, s.Result().Value)
}

func TestPerplexityInputs(t *testing.T) {
	// logprobs: every token counts, no label role
	m := build(t, "perplexity", map[string]any{"input": "logprobs"})
	require.Len(t, m.Roles(), 1)
	s := m.NewState()
	s.Add(ex([]any{math.Log(0.5), math.Log(0.25)}), 1)
	s.Add(ex([]any{}), 1)
	s.Add(ex([]any{math.Log(0.125)}), 2)
	r := s.Result()
	require.InEpsilon(t, math.Exp((math.Log(2)+math.Log(4)+2*math.Log(8))/4), r.Value, 1e-15)
	require.Equal(t, int64(4), r.Details["tokens"])
	// ignore_label skips records; p = 0 is floored at 1e-10
	m = build(t, "perplexity", map[string]any{"ignore_label": 0})
	s = m.NewState()
	s.Add(ex([]any{0.0, 1.0}, 0), 1)
	s.Add(ex([]any{0.0, 1.0}, 1), 1)
	require.Equal(t, 1.0, s.Result().Value)
	s.Add(ex([]any{0.0, 1.0, 0.0}, 2), 1)
	require.InEpsilon(t, math.Sqrt(1e10), s.Result().Value, 1e-12)
	// one-hot labels
	m = build(t, "perplexity", nil)
	require.Equal(t, 2.0, fold(t, m, anys([]any{0.5, 0.5}), anys([]any{0, 1})).Value)
	// ignite ignores -100 by default; mindnlp rejects it
	ig := build(t, "perplexity", map[string]any{"compat": "ignite"})
	require.NoError(t, ig.Check(ex([]any{0.1, 0.2}, -100)))
	require.Error(t, build(t, "perplexity", nil).Check(ex([]any{0.1, 0.2}, -100)))
	require.NoError(t, build(t, "perplexity", map[string]any{"compat": "ignite", "ignore_label": "none", "input": "probs"}).Check(ex([]any{0.1, 0.2}, 1)))
	// logits are shift-invariant and stable for large values
	lg := build(t, "perplexity", map[string]any{"input": "logits"})
	a := fold(t, lg, anys([]any{1000.0, 1001.0, 999.0}), anys(0)).Value.(float64)
	b := fold(t, lg, anys([]any{1.0, 2.0, 0.0}), anys(0)).Value.(float64)
	require.InEpsilon(t, b, a, 1e-13)
}

func TestRejections(t *testing.T) {
	for _, c := range []struct {
		typ    string
		opts   map[string]any
		vals   []any
		reason string
		field  string
	}{
		{"pearson", nil, []any{math.NaN(), 1.0}, "non-finite value", "prediction"},
		{"pearson", nil, []any{1.0, math.Inf(1)}, "non-finite value", "label"},
		{"pearson", map[string]any{"dtype": "float32"}, []any{1.0, 1e39}, "non-finite value", "label"},
		{"spearman", nil, []any{"x", 1.0}, "wrong type", "prediction"},
		{"spearman", nil, []any{true, 1.0}, "wrong type", "prediction"},
		{"spearman", nil, []any{1.0}, "missing field", "label"},
		{"perplexity", nil, []any{[]any{0.5, math.NaN()}, 0}, "non-finite value", "prediction"},
		{"perplexity", nil, []any{[]any{0.5, 1.5}, 0}, "probability out of range", "prediction"},
		{"perplexity", nil, []any{[]any{0.5, 0.5}, 2}, "label out of range", "label"},
		{"perplexity", nil, []any{[]any{0.5, 0.5}, 0.5}, "wrong type", "label"},
		{"perplexity", nil, []any{[]any{0.5, 0.5}, []any{0.5, 0.5}}, "wrong type", "label"},
		{"perplexity", nil, []any{[]any{0.5, 0.5}, nil}, "missing field", "label"},
		{"perplexity", nil, []any{0.5, 0}, "wrong type", "prediction"},
		{"perplexity", map[string]any{"input": "logits"}, []any{[]any{}, 0}, "wrong length", "prediction"},
		{"perplexity", map[string]any{"input": "logits"}, []any{[]any{1.0, math.Inf(-1)}, 0}, "non-finite value", "prediction"},
		{"perplexity", map[string]any{"input": "logprobs"}, []any{[]any{-1.0, 0.5}}, "probability out of range", "prediction"},
	} {
		m := build(t, c.typ, c.opts)
		e := ex(c.vals...)
		err := m.Check(e)
		var re *core.RecordError
		require.True(t, errors.As(err, &re), "%v: %v", c, err)
		require.Equal(t, c.reason, re.Reason, "%v: %v", c, err)
		require.Equal(t, c.field, re.Field, "%v", c)
		s := m.NewState()
		s.Add(e, 1) // ignored, never panics
		require.Nil(t, s.Result().Value)
	}
}

func TestOptions(t *testing.T) {
	for _, c := range []struct {
		typ  string
		opts map[string]any
	}{
		{"pearson", map[string]any{"compat": "sklearn"}},
		{"pearson", map[string]any{"dtype": "float16"}},
		{"spearman", map[string]any{"dtype": "float32"}},
		{"perplexity", map[string]any{"input": "scores"}},
		{"perplexity", map[string]any{"ignore_label": "x"}},
		{"perplexity", map[string]any{"input": "logprobs", "ignore_label": 0}},
	} {
		o := core.NewOptions(c.opts)
		_, err := ctor(c.typ, o)
		require.NoError(t, err)
		require.Error(t, o.Err(), "%v", c)
	}
	require.Equal(t, "type:perplexity|compat:ignite|input:logits|ignore_label:-100|version:"+buildinfo.Version, build(t, "perplexity", map[string]any{"compat": "ignite"}).Signature())
	require.Equal(t, "type:perplexity|compat:mindnlp|input:probs|ignore_label:none|version:"+buildinfo.Version, build(t, "perplexity", nil).Signature())
	require.Equal(t, "type:pearson|compat:scipy|dtype:float64|version:"+buildinfo.Version, build(t, "pearson", nil).Signature())
	require.Equal(t, "type:spearman|compat:mindnlp|version:"+buildinfo.Version, build(t, "spearman", map[string]any{"compat": "mindnlp"}).Signature())
}

func TestMergeIncompatible(t *testing.T) {
	for _, typ := range []string{"pearson", "spearman", "perplexity"} {
		a := build(t, typ, nil)
		var o map[string]any
		if typ == "perplexity" {
			o = map[string]any{"compat": "ignite"}
		} else {
			o = map[string]any{"compat": "mindnlp"}
		}
		b := build(t, typ, o)
		require.ErrorIs(t, a.NewState().Merge(b.NewState()), core.ErrIncompatible)
		bs, err := b.NewState().MarshalBinary()
		require.NoError(t, err)
		_, err = a.DecodeState(bs)
		require.ErrorIs(t, err, core.ErrIncompatible)
	}
	require.ErrorIs(t, build(t, "pearson", nil).NewState().Merge(build(t, "spearman", nil).NewState()), core.ErrIncompatible)
}

// TestSplitInvariance: exact sums make any split bit-identical, including large offsets.
func TestSplitInvariance(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	exs := make([]*core.Example, 500)
	for i := range exs {
		x := 1e9 + rng.Float64()
		exs[i] = ex(x, x*3+rng.NormFloat64())
		exs[i].Seq = uint64(i)
	}
	for _, typ := range []string{"pearson", "spearman"} {
		for _, compat := range []string{"scipy", "mindnlp"} {
			m := build(t, typ, map[string]any{"compat": compat})
			whole := m.NewState()
			for _, e := range exs {
				whole.Add(e, 1)
			}
			want := whole.Result()
			parts := []core.State{m.NewState(), m.NewState(), m.NewState()}
			for _, i := range rng.Perm(len(exs)) {
				parts[rng.Intn(3)].Add(exs[i], 1)
			}
			require.NoError(t, parts[2].Merge(parts[0]))
			require.NoError(t, parts[1].Merge(parts[2]))
			require.Equal(t, want, parts[1].Result(), "%s/%s", typ, compat)
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	for _, typ := range []string{"pearson", "spearman", "perplexity", "mse", "r2", "explained_variance"} {
		m := build(t, typ, nil)
		s := m.NewState()
		if typ == "perplexity" {
			s.Add(ex([]any{0.2, 0.8}, 1), 2)
		} else {
			s.Add(ex(1.0, 2.0), 2)
			s.Add(ex(3.0, 1.0), 1)
		}
		good, err := s.MarshalBinary()
		require.NoError(t, err)
		for i := range good {
			for _, b := range []byte{0, 0x80, 0xff} {
				bad := append([]byte(nil), good...)
				bad[i] = b
				if st, err := m.DecodeState(bad); err == nil {
					st.Result()
				}
			}
		}
		_, err = m.DecodeState(append(good, 1))
		require.ErrorIs(t, err, core.ErrCorruptState)
	}
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
	}
}
