package text

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

// ctor dispatches a metric type to this package's constructors.
func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "distinct":
		return NewDistinct(o)
	case "exact_match":
		return NewExactMatch(o)
	case "token_f1":
		return NewTokenF1(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

func build(t testing.TB, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	require.NoError(t, err)
	for _, r := range m.Roles() {
		o.String(r.Name, r.Field)
	}
	require.NoError(t, o.Err())
	return m
}

type rec []any

func examples(m core.Metric, recs []rec) []core.Example {
	exs := make([]core.Example, len(recs))
	for i, r := range recs {
		vals := make([]core.Value, len(m.Roles()))
		for j := range vals {
			if j < len(r) && r[j] != nil {
				vals[j] = core.FromJSON(r[j])
			}
		}
		exs[i] = core.Example{Values: vals, Seq: uint64(i)}
	}
	return exs
}

func run(t testing.TB, m core.Metric, recs []rec) core.Result {
	t.Helper()
	exs := examples(m, recs)
	st := m.NewState()
	for i := range exs {
		require.NoError(t, m.Check(&exs[i]))
		st.Add(&exs[i], 1)
	}
	goldentest.CheckLaws(t, m, exs)
	return st.Result()
}

var seed4 = []string{"The", "cat", "The", "cat", "on", "the", "mat"}

func TestSeedsAndSpecVectors(t *testing.T) {
	cases := []struct {
		name string
		typ  string
		opts map[string]any
		recs []rec
		want float64
	}{
		{"distinct-seed4", "distinct", nil, []rec{{seed4}}, 0.8333333333333334},
		{"distinct-corpus", "distinct", nil, []rec{{seed4}, {[]string{"The", "cat", "on", "the", "mat"}}}, 0.5},
		{"distinct-corpus-string", "distinct", nil, []rec{{seed4}, {"The cat on the mat"}}, 0.5},
		{"distinct-space-join-quirk", "distinct", nil, []rec{{[]string{"a b", "c"}}, {[]string{"a", "b c"}}}, 0.5},
		{"em-seed10", "exact_match", nil, []rec{{"this is the best span", []string{"this is a good span", "something irrelevant"}}}, 0.0},
		{"em-case-punct", "exact_match", nil, []rec{{"The  Cat!", []string{"the cat"}}}, 1},
		{"em-articles-only", "exact_match", nil, []rec{{"a", []string{"the"}}}, 1},
		{"em-unicode-dash-kept", "exact_match", nil, []rec{{"hello—world", []string{"hello world"}}}, 0},
		{"em-unicode-word-boundary", "exact_match", nil, []rec{{"éthe théa", "éthe théa"}, {"éthe théa", "éthe thé"}}, 0.5},
		{"em-final-sigma", "exact_match", nil, []rec{{"ΟΔΟΣ", "οδος"}}, 1},
		{"em-plain-string-is-one-gold", "exact_match", nil, []rec{{"c", "cat"}}, 0},
		{"em-none", "exact_match", map[string]any{"normalize": "none"}, []rec{{"The cat", []string{"the cat", "The cat"}}, {"a", "the"}}, 0.5},
		{"f1-partial", "token_f1", nil, []rec{{"the cat sat", []string{"a cat sat down", "dog"}}}, 0.8},
		{"f1-empty-vs-empty", "token_f1", nil, []rec{{"the", "a"}}, 0},
		{"f1-repeats", "token_f1", nil, []rec{{"cat cat cat", "cat cat dog"}}, 2.0 / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, build(t, c.typ, c.opts), c.recs)
			require.NotNil(t, res.Value, res.Reason)
			require.InDelta(t, c.want, res.Value.(float64), 1e-15*max(1, c.want))
		})
	}
}

func TestNormalize(t *testing.T) {
	nz := normalizer{squad: true}
	for in, want := range map[string]string{
		"this is the best span":         "this is best span",
		"éthe théa":                     "éthe théa",
		"The, an; A the.":               "",
		"İstanbul":                      "i̇stanbul",
		"a\u0301 b":                     "\u0301 b", // U+0301 is not a word character for Python
		"the北京 an١ a²":                  "the北京 an١ a²",
		"x\x1cy\u0085z\u3000the\u2028w": "x y z w",
		"don't o'clock U.S.":            "dont oclock us",
		"«the» ¿qué?":                   "« » ¿qué",
	} {
		got := ""
		for i, tk := range nz.tokens(in) {
			if i > 0 {
				got += " "
			}
			got += tk
		}
		require.Equal(t, want, got, "%q", in)
	}
}

func TestRejectsAndOptions(t *testing.T) {
	m := build(t, "exact_match", nil)
	for _, c := range []struct {
		r      rec
		reason string
	}{
		{rec{nil, "x"}, "missing field"},
		{rec{"x", []string{}}, "empty references"},
		{rec{"x", 1.0}, "wrong type"},
		{rec{"\xff", "x"}, "invalid utf-8"},
	} {
		ex := examples(m, []rec{c.r})[0]
		var re *core.RecordError
		require.ErrorAs(t, m.Check(&ex), &re)
		require.Equal(t, c.reason, re.Reason)
	}
	for _, c := range []struct {
		typ  string
		opts map[string]any
		key  string
	}{
		{"distinct", map[string]any{"n": 0}, "n"},
		{"distinct", map[string]any{"tokenize": "bogus"}, "tokenize"},
		{"distinct", map[string]any{"compat": "paddle"}, "compat"},
		{"exact_match", map[string]any{"normalize": "lower"}, "normalize"},
		{"token_f1", map[string]any{"tokenize": "13a"}, "tokenize"},
	} {
		o := core.NewOptions(c.opts)
		_, err := ctor(c.typ, o)
		require.NoError(t, err)
		require.ErrorContains(t, o.Err(), c.key+":")
	}
	for _, typ := range []string{"distinct", "exact_match", "token_f1"} {
		res := build(t, typ, nil).NewState().Result()
		require.Nil(t, res.Value)
		require.NotEmpty(t, res.Reason)
	}
	a, b := build(t, "exact_match", nil), build(t, "token_f1", nil)
	require.ErrorIs(t, a.NewState().Merge(b.NewState()), core.ErrIncompatible)
	bs, err := b.NewState().MarshalBinary()
	require.NoError(t, err)
	_, err = a.DecodeState(bs)
	require.ErrorIs(t, err, core.ErrIncompatible)
}

func TestSentenceScore(t *testing.T) {
	f := build(t, "token_f1", nil)
	ex := examples(f, []rec{{"the cat sat", []string{"a cat sat down", "dog"}}})[0]
	s, ok := f.(core.SentenceScorer).SentenceScore(&ex)
	require.True(t, ok)
	require.InDelta(t, 0.8, s, 1e-16)
	d := build(t, "distinct", nil)
	ex = examples(d, []rec{{seed4}})[0]
	s, ok = d.(core.SentenceScorer).SentenceScore(&ex)
	require.True(t, ok)
	require.Equal(t, 0.8333333333333334, s)
	ex = examples(d, []rec{{"one"}})[0]
	_, ok = d.(core.SentenceScorer).SentenceScore(&ex)
	require.False(t, ok)
}

// TestGoldens runs the goldens of testdata/goldens/gen_text.py.
func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/text.json", ctor)
}

// TestDocs: every metric type is documented with its constructor's default preset.
func TestDocs(t *testing.T) {
	for _, d := range Docs() {
		m := build(t, d.Type, nil)
		require.Contains(t, m.Signature(), "compat:"+d.Presets[0]+"|", d.Type)
		for _, o := range d.Options {
			opts := map[string]any{o.Name: o.Default}
			build(t, d.Type, opts)
		}
	}
}
