package rouge

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

// ctor dispatches a metric type to this package's constructors.
func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "rouge_n":
		return NewRougeN(o)
	case "rouge_l":
		return NewRougeL(o)
	case "rouge_lsum":
		return NewRougeLsum(o)
	case "rouge_l_dureader":
		return NewRougeLDuReader(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

// build constructs a metric like the registry does (options, role overrides, Err).
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

// rec is one record: the values of the metric's roles, in order (missing when absent).
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

// run checks, adds and reports the result of recs.
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

func toks(s string) []string { return strings.Fields(s) }

var (
	seed3Cand = []string{"The", "cat", "The", "cat", "on", "the", "mat"}
	seed3Ref1 = []string{"The", "cat", "is", "on", "the", "mat"}
	seed3Ref2 = []string{"There", "is", "a", "cat", "on", "the", "mat"}
	seed3Refs = [][]string{seed3Ref1, seed3Ref2}
	seed5Cand = toks("the cat was found under the bed")
	seed5Refs = [][]string{toks("the cat was under the bed")}
	igCand    = toks("the cat is not there")
	igRefs    = [][]string{toks("the cat is on the mat"), toks("there is a cat on the mat")}
)

// f1 is 2PR/(P+R) as rouge-score computes it.
func f1(p, r float64) float64 { return 2 * p * r / (p + r) }

// fbeta is the MindNLP/Paddle formula.
func fbeta(p, r, b2 float64) float64 { return (1 + b2) * p * r / (r + b2*p) }

func TestSeedsAndSpecVectors(t *testing.T) {
	alphaGamma := 1 / (1 + 1.2*1.2)
	cases := []struct {
		name    string
		typ     string
		opts    map[string]any
		recs    []rec
		want    float64
		details map[string]float64
	}{
		// §3.3 MindNLP/Paddle RougeL.
		{"mindnlp-rougeL-seed3", "rouge_l", nil, []rec{{seed3Cand, seed3Refs}}, 0.7800511508951408, nil},
		{"mindnlp-rougeL-beta0.5", "rouge_l", map[string]any{"beta": 0.5}, []rec{{seed3Cand, seed3Refs}}, 0.7352941176470589, nil},
		{"mindnlp-rougeL-ref2", "rouge_l", nil, []rec{{seed3Cand, [][]string{seed3Ref2}}}, 0.5714285714285714, nil},
		{"mindnlp-rougeL-two-updates", "rouge_l", nil,
			[]rec{{seed3Cand, [][]string{seed3Ref1}}, {seed3Cand, [][]string{seed3Ref2}}}, 0.6757398611618561, nil},
		{"mindnlp-rougeL-seed5", "rouge_l", nil, []rec{{seed5Cand, seed5Refs}}, 0.9360613810741688, nil},
		{"paddle-rougeL-string-input", "rouge_l", nil,
			[]rec{{"The cat The cat on the mat", []string{"The cat is on the mat", "There is a cat on the mat"}}}, 0.7800511508951408, nil},
		// §3.2 MindNLP RougeN.
		{"mindnlp-rougeN2-seed5", "rouge_n", map[string]any{"compat": "mindnlp", "n": 2}, []rec{{seed5Cand, seed5Refs}}, 0.8, nil},
		{"mindnlp-rougeN2-table", "rouge_n", map[string]any{"compat": "mindnlp", "n": 2},
			[]rec{{toks("a cat is on the table"), [][]string{toks("there is a cat on the table")}}}, 0.5, nil},
		{"mindnlp-rougeN2-seed3", "rouge_n", map[string]any{"compat": "mindnlp", "n": 2}, []rec{{seed3Cand, seed3Refs}}, 0.5454545454545454, nil},
		{"mindnlp-rougeN2-two-updates", "rouge_n", map[string]any{"compat": "mindnlp", "n": 2},
			[]rec{{seed5Cand, seed5Refs}, {toks("a cat is on the table"), [][]string{toks("there is a cat on the table")}}}, 0.6363636363636364, nil},
		{"mindnlp-rougeN1-repeated", "rouge_n", map[string]any{"compat": "mindnlp"}, []rec{{toks("a a a"), [][]string{toks("a a b")}}}, 0.5, nil},
		// §3.1 ignite docstrings.
		{"ignite-rouge2-best-docstring", "rouge_n", map[string]any{"compat": "ignite", "n": 2, "multiref": "best_recall"},
			[]rec{{igCand, igRefs}}, 0.4, map[string]float64{"precision": 0.5, "recall": 0.4}},
		{"ignite-rougeL-best-docstring", "rouge_l", map[string]any{"compat": "ignite", "multiref": "best_recall"},
			[]rec{{igCand, igRefs}}, 0.5, map[string]float64{"precision": 0.6, "recall": 0.5}},
		// §3.5 table.
		{"ignite-rougeL-seed3-best", "rouge_l", map[string]any{"compat": "ignite", "multiref": "best_recall"},
			[]rec{{seed3Cand, seed3Refs}}, 5.0 / 6, map[string]float64{"precision": 5.0 / 7, "recall": 5.0 / 6}},
		{"ignite-rougeL-seed3-best-alpha", "rouge_l", map[string]any{"compat": "ignite", "multiref": "best_recall", "alpha": alphaGamma},
			[]rec{{seed3Cand, seed3Refs}}, 0.7800511508951405, nil},
		{"ignite-rougeL-seed3-average", "rouge_l", map[string]any{"compat": "ignite"},
			[]rec{{seed3Cand, seed3Refs}}, 9.0 / 13, map[string]float64{"precision": 9.0 / 14, "recall": 9.0 / 13}},
		{"rouge-score-rougeL-seed3", "rouge_l", map[string]any{"compat": "rouge-score"},
			[]rec{{seed3Cand, seed3Refs}}, f1(5.0/7, 5.0/6), map[string]float64{"precision": 5.0 / 7, "recall": 5.0 / 6}},
		{"rouge-score-rougeL-seed3-text", "rouge_l", map[string]any{"compat": "rouge-score"},
			[]rec{{"The cat The cat on the mat", []string{"The cat is on the mat", "There is a cat on the mat"}}}, 10.0 / 13, nil},
		{"ignite-rouge2-seed5-alpha.5", "rouge_n", map[string]any{"compat": "ignite", "n": 2, "alpha": 0.5},
			[]rec{{seed5Cand, seed5Refs}}, f1(4.0/6, 0.8), map[string]float64{"precision": 4.0 / 6, "recall": 0.8}},
		{"rouge-score-rouge2-seed5", "rouge_n", map[string]any{"n": 2},
			[]rec{{"the cat was found under the bed", "the cat was under the bed"}}, f1(4.0/6, 0.8), map[string]float64{"precision": 4.0 / 6, "recall": 0.8}},
		{"ignite-rougeL-seed5", "rouge_l", map[string]any{"compat": "ignite"}, []rec{{seed5Cand, seed5Refs}}, 1.0, nil},
		{"rouge-score-rougeL-seed5", "rouge_l", map[string]any{"compat": "rouge-score"}, []rec{{seed5Cand, seed5Refs}}, f1(6.0/7, 1), nil},
		{"ignite-rouge1-repeated", "rouge_n", map[string]any{"compat": "ignite", "alpha": 0.5},
			[]rec{{toks("a a a"), [][]string{toks("a a b")}}}, 2.0 / 3, map[string]float64{"precision": 2.0 / 3, "recall": 2.0 / 3}},
		{"rouge-score-rouge1-repeated", "rouge_n", nil, []rec{{"a a a", "a a b"}}, 2.0 / 3, nil},
		{"ignite-rouge2-seed3-best", "rouge_n", map[string]any{"compat": "ignite", "n": 2, "multiref": "best_recall", "alpha": 0.5},
			[]rec{{seed3Cand, seed3Refs}}, f1(0.5, 0.6), map[string]float64{"precision": 0.5, "recall": 0.6}},
		{"ignite-rouge2-seed3-average", "rouge_n", map[string]any{"compat": "ignite", "n": 2},
			[]rec{{seed3Cand, seed3Refs}}, 6.0 / 11, map[string]float64{"recall": 6.0 / 11}},
		{"rouge-score-rouge2-seed3-multi", "rouge_n", map[string]any{"n": 2, "tokenize": "whitespace", "lowercase": true},
			[]rec{{seed3Cand, seed3Refs}}, f1(0.5, 0.6), nil},
		// §3.4 rougeLsum.
		{"rouge-score-rougeLsum-test", "rouge_lsum", nil,
			[]rec{{"w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5", "w1 w2 w3 w4 w5"}}, f1(0.4, 0.8), map[string]float64{"precision": 0.4, "recall": 0.8}},
		// §3.3 RougeLForDuReader without bonus = Paddle RougeL.
		{"paddle-dureader-no-bonus", "rouge_l_dureader", nil, []rec{{seed3Cand, seed3Refs}}, 0.7800511508951408, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, c.typ, c.opts)
			res := run(t, m, c.recs)
			require.NotNil(t, res.Value, res.Reason)
			requireRel(t, c.want, res.Value.(float64), 1e-15)
			for k, v := range c.details {
				requireRel(t, v, res.Details[k].(float64), 1e-15)
			}
		})
	}
}

func requireRel(t testing.TB, want, got, rtol float64) {
	t.Helper()
	require.False(t, math.IsNaN(got) || math.IsInf(got, 0), "got %v", got)
	if want == got {
		return
	}
	require.LessOrEqual(t, math.Abs(got-want)/math.Max(math.Abs(want), 1e-300), rtol, "want %.17g got %.17g", want, got)
}

func TestDuReaderBonus(t *testing.T) {
	// Yes/no bonus: B = alpha·LCS on the references whose label matches.
	m := build(t, "rouge_l_dureader", map[string]any{"alpha": 0.5})
	cand := toks("a b c d")
	refs := [][]string{toks("a b x"), toks("a c d e f")}
	res := run(t, m, []rec{{cand, refs, "Yes", []string{"No", "Yes"}}})
	// ref1: LCS 2, no bonus: P 2/4, R 2/3. ref2: LCS 3, B = 1.5: P 4.5/5.5, R 4.5/6.5.
	p, r := 4.5/5.5, 4.5/6.5
	requireRel(t, fbeta(p, r, 1.44), res.Value.(float64), 1e-15)

	// Entity bonus with a string prediction (characters, substring test).
	m = build(t, "rouge_l_dureader", nil)
	res = run(t, m, []rec{{"北京大学", []string{"北京"}, nil, nil, []string{"北京", "上海", "大学"}}})
	// LCS 2, B = 4: P (2+4)/(4+4), R (2+4)/(2+4).
	requireRel(t, fbeta(6.0/8, 1, 1.44), res.Value.(float64), 1e-15)
}

func TestRejects(t *testing.T) {
	m := build(t, "rouge_n", nil)
	for _, c := range []struct {
		r      rec
		reason string
	}{
		{rec{nil, "x"}, "missing field"},
		{rec{"x", nil}, "missing field"},
		{rec{"x", []string{}}, "empty references"},
		{rec{"x", [][]string{}}, "empty references"},
		{rec{int64(3), "x"}, "wrong type"},
		{rec{"x", 1.5}, "wrong type"},
		{rec{"\xff", "x"}, "invalid utf-8"},
		{rec{"x", []string{"ok", "\xfe"}}, "invalid utf-8"},
	} {
		ex := examples(m, []rec{c.r})[0]
		err := m.Check(&ex)
		var re *core.RecordError
		require.ErrorAs(t, err, &re, "%v", c.r)
		require.Equal(t, c.reason, re.Reason)
	}
	d := build(t, "rouge_l_dureader", nil)
	ex := examples(d, []rec{{"ab", []string{"a", "b"}, "Yes", []string{"Yes"}}})[0]
	var re *core.RecordError
	require.ErrorAs(t, d.Check(&ex), &re)
	require.Equal(t, "wrong length", re.Reason)
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		typ  string
		opts map[string]any
		key  string
	}{
		{"rouge_n", map[string]any{"alpha": 0.5}, "alpha"},
		{"rouge_n", map[string]any{"compat": "mindnlp", "multiref": "best_f"}, "multiref"},
		{"rouge_n", map[string]any{"multiref": "sum"}, "multiref"},
		{"rouge_n", map[string]any{"tokenize": "whitespace", "stem": true}, "stem"},
		{"rouge_n", map[string]any{"n": 0}, "n"},
		{"rouge_n", map[string]any{"compat": "ignite", "alpha": 2}, "alpha"},
		{"rouge_l", map[string]any{"compat": "rouge-score", "beta": 2}, "beta"},
		{"rouge_l", map[string]any{"compat": "ignite", "beta": 2}, "beta"},
		{"rouge_l", map[string]any{"alpha": 0.5}, "alpha"},
		{"rouge_l", map[string]any{"compat": "paddle"}, "compat"},
		{"rouge_lsum", map[string]any{"split": "nltk"}, "split"},
		{"rouge_lsum", map[string]any{"lowercase": true}, "lowercase"},
		{"rouge_l_dureader", map[string]any{"gamma": 2}, "gamma"},
		{"rouge_l", map[string]any{"tokenize": "spacy"}, "tokenize"},
	} {
		o := core.NewOptions(c.opts)
		_, err := ctor(c.typ, o)
		require.NoError(t, err)
		err = o.Err()
		require.Error(t, err, "%s %v", c.typ, c.opts)
		require.Contains(t, err.Error(), c.key+":")
	}
}

func TestNoRecordsAndIncompatible(t *testing.T) {
	for _, typ := range []string{"rouge_n", "rouge_l", "rouge_lsum", "rouge_l_dureader"} {
		m := build(t, typ, nil)
		res := m.NewState().Result()
		require.Nil(t, res.Value)
		require.NotEmpty(t, res.Reason)
	}
	mn := build(t, "rouge_n", map[string]any{"compat": "mindnlp"})
	res := run(t, mn, []rec{{toks("a b"), [][]string{{}}}})
	require.Nil(t, res.Value)
	require.Equal(t, "no reference n-grams", res.Reason)

	a := build(t, "rouge_n", nil)
	b := build(t, "rouge_n", map[string]any{"n": 2})
	require.ErrorIs(t, a.NewState().Merge(b.NewState()), core.ErrIncompatible)
	bs, err := b.NewState().MarshalBinary()
	require.NoError(t, err)
	_, err = a.DecodeState(bs)
	require.ErrorIs(t, err, core.ErrIncompatible)
}

func TestSentenceScore(t *testing.T) {
	m := build(t, "rouge_l", nil).(core.SentenceScorer)
	ex := examples(m.(core.Metric), []rec{{seed3Cand, seed3Refs}})[0]
	s, ok := m.SentenceScore(&ex)
	require.True(t, ok)
	require.Equal(t, 0.7800511508951408, s)
	n := build(t, "rouge_n", map[string]any{"compat": "mindnlp", "n": 2}).(core.SentenceScorer)
	ex = examples(n.(core.Metric), []rec{{seed5Cand, seed5Refs}})[0]
	s, ok = n.SentenceScore(&ex)
	require.True(t, ok)
	require.Equal(t, 0.8, s)
}

// TestBitLCS compares the bit-parallel LCS with the plain DP on random sequences of every
// length class (one word, several words, partial words), with b's symbols absent from a few
// (masks of a row per symbol) and many (a's rows and one zero row that the others read).
func TestBitLCS(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var b bitLCS
	for trial := 0; trial < 3000; trial++ {
		la, lb := rng.Intn(200), rng.Intn(200)
		if trial%10 == 0 {
			la = rng.Intn(700)
		}
		k := 1 + rng.Intn(8)
		a := make([]int32, la)
		for i := range a {
			a[i] = int32(rng.Intn(k))
		}
		// Remap a's symbols to 0..ka-1 (as the interner does) and give b extra symbols.
		ids := map[int32]int32{}
		for i, s := range a {
			if _, ok := ids[s]; !ok {
				ids[s] = int32(len(ids))
			}
			a[i] = ids[s]
		}
		ka := len(ids)
		step := int32(1 + 100*(trial%2)) // spreads the symbols absent from a past 2ka+64
		bs := make([]int32, lb)
		for i := range bs {
			s := int32(rng.Intn(k + 2))
			if id, ok := ids[s]; ok {
				bs[i] = id
			} else {
				bs[i] = int32(ka) + s*step
			}
		}
		b.load(a, ka, ka+int(k+2)*int(step))
		require.Equal(t, trial%2 == 0, b.full)
		var tab lcsTable
		tab.fill(a, bs)
		require.Equal(t, int(tab.at(len(a), len(bs))), b.length(bs), "a=%v b=%v", a, bs)
	}
}

// TestLsumTokensIsRougeL: pre-tokenized input has no sentence boundaries, so rouge_lsum on it
// is rouge-score's rougeL.
func TestLsumTokensIsRougeL(t *testing.T) {
	recs := []rec{{seed3Cand, seed3Refs}, {seed5Cand, seed5Refs}, {[]string{}, [][]string{{"a"}}}, {igCand, igRefs}}
	a := run(t, build(t, "rouge_lsum", nil), recs)
	b := run(t, build(t, "rouge_l", map[string]any{"compat": "rouge-score"}), recs)
	require.Equal(t, goldentest.Fingerprint(b), goldentest.Fingerprint(a))
}

// TestSentenceScoreConcurrent: a Metric is safe for concurrent use (run with -race).
func TestSentenceScoreConcurrent(t *testing.T) {
	for _, typ := range []string{"rouge_n", "rouge_l", "rouge_lsum", "rouge_l_dureader"} {
		m := build(t, typ, nil)
		exs := examples(m, []rec{{seed3Cand, seed3Refs}, {"a b c\nd", []string{"a c d", "b"}}})
		want := make([]float64, len(exs))
		for i := range exs {
			want[i], _ = m.(core.SentenceScorer).SentenceScore(&exs[i])
		}
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 200; k++ {
					i := k % len(exs)
					got, ok := m.(core.SentenceScorer).SentenceScore(&exs[i])
					if !ok || got != want[i] {
						t.Errorf("%s: got %v, want %v", typ, got, want[i])
						return
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestDocs: every metric type is documented with its constructor's default preset.
func TestDocs(t *testing.T) {
	for _, d := range Docs() {
		m := build(t, d.Type, nil)
		require.Contains(t, m.Signature(), "compat:"+d.Presets[0]+"|", d.Type)
		for _, p := range d.Presets {
			build(t, d.Type, map[string]any{"compat": p})
		}
		require.NotEmpty(t, d.Memory)
		require.NotEmpty(t, d.Invalid)
	}
}

// Metrics that share a core.Memo reuse each other's token ids only for the same values of
// the same record with the same text options, and give exactly the results of unshared runs.
func TestSharedLoad(t *testing.T) {
	specs := []struct {
		typ  string
		opts map[string]any
	}{
		{"rouge_n", map[string]any{"n": 1, "stem": true}},
		{"rouge_n", map[string]any{"n": 2, "stem": true}},
		{"rouge_l", map[string]any{"compat": "rouge-score", "stem": true}},
		{"rouge_n", map[string]any{"n": 1}}, // no stemming: must not take the stemmed ids
		{"rouge_l", map[string]any{"compat": "rouge-score", "stem": true, "lowercase": true}},
		{"rouge_l", map[string]any{}}, // whitespace tokens
		{"rouge_lsum", map[string]any{"stem": true}},
		{"rouge_lsum", map[string]any{"tokenize": "whitespace"}},
	}
	recs := []rec{
		{"The cats were running home", []any{"the cat runs home", "Cats were running"}},
		{"Cats ran.\nThe dogs ran home\n\n...\nhome", []any{"the cat runs home\ndogs", "\n", "Cats\nwere running"}},
		{"a b c d", []any{"a b d c"}},
		{"Running dogs ran", "dogs run"},
		{"", []any{"x"}},
		{"The cats were running home", []any{"the cat runs home", "Cats were running"}},
	}
	ms := make([]core.Metric, len(specs))
	for i, s := range specs {
		ms[i] = build(t, s.typ, s.opts)
	}
	// Unshared: each metric alone.
	var want []core.Result
	for _, m := range ms {
		want = append(want, run(t, m, recs))
	}
	// Shared: one memo, and after each metric's record a record with the same references but
	// another prediction (other memory, other content), folded into other states.
	var memo core.Memo
	states := make([]core.State, len(ms))
	other := make([]core.State, len(ms))
	for i, m := range ms {
		states[i], other[i] = m.NewState(), m.NewState()
	}
	exs := examples(ms[0], recs)
	alts := make([]core.Example, len(exs))
	for k := range exs {
		alts[k] = core.Example{Values: []core.Value{{Kind: core.String, Str: "Cats ran home"}, exs[k].Values[1]}}
	}
	for k := range exs {
		memo.Next()
		for i := range ms {
			ex, alt := exs[k], alts[k]
			ex.Memo, alt.Memo = &memo, &memo
			states[i].Add(&ex, 1)
			other[i].Add(&alt, 1)
		}
	}
	for i, m := range ms {
		require.Equal(t, want[i], states[i].Result(), "%s %v", specs[i].typ, specs[i].opts)
		alone := m.NewState()
		for k := range alts {
			alone.Add(&alts[k], 1)
		}
		require.Equal(t, alone.Result(), other[i].Result(), "%s %v (other values)", specs[i].typ, specs[i].opts)
	}

	// Buffers are recycled: the next record's values may occupy the memory of the last
	// one's. After Next, the entry stored for the last record is not reused.
	m := ms[0]
	var memo2 core.Memo
	buf := []byte("alpha beta")
	vals := []core.Value{{Kind: core.String, Str: unsafe.String(&buf[0], len(buf))}, {Kind: core.StringList, Strs: []string{"alpha beta"}}}
	st := m.NewState()
	memo2.Next()
	st.Add(&core.Example{Values: vals, Memo: &memo2}, 1)
	memo2.Next()
	copy(buf, "gamma delt")
	st.Add(&core.Example{Values: vals, Memo: &memo2}, 1)
	fresh := m.NewState()
	fresh.Add(&core.Example{Values: []core.Value{{Kind: core.String, Str: "alpha beta"}, {Kind: core.StringList, Strs: []string{"alpha beta"}}}}, 1)
	fresh.Add(&core.Example{Values: []core.Value{{Kind: core.String, Str: "gamma delt"}, {Kind: core.StringList, Strs: []string{"alpha beta"}}}}, 1)
	require.Equal(t, fresh.Result(), st.Result())
}

// The rouge tokenizer never joins characters across a newline, so tokenizing a text line by
// line (what load does, for rougeLsum's sentences) gives the tokens of the whole text.
func TestRougeTokensByLine(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	pieces := []string{"The", "cats", "RUNNING", "ran", "a", "b1", "42", "Σ", "ΑΣ", "İstanbul", "K", "ﬁne", "naïve", "--", "'", ".", " ", "  ", "\n", "\n\n", "\r\n", "\t", "é", "Ⅻ"}
	for _, stem := range []bool{false, true} {
		for _, lower := range []bool{false, true} {
			opts := textOpts{name: "rouge", stem: stem, lower: lower}
			var sc scratch
			for n := 0; n < 3000; n++ {
				var b strings.Builder
				for k := rng.Intn(12); k >= 0; k-- {
					b.WriteString(pieces[rng.Intn(len(pieces))])
					if rng.Intn(2) == 0 {
						b.WriteByte(' ')
					}
				}
				text := b.String()
				whole := append([]string(nil), opts.text(&sc, text)...)
				var byLine []string
				for _, line := range strings.Split(text, "\n") {
					if line != "" {
						byLine = append(byLine, opts.text(&sc, line)...)
					}
				}
				require.Equal(t, whole, byLine, "%q stem %v lower %v", text, stem, lower)
			}
		}
	}
}

// The fixed-point part of meanState's sums holds its values exactly: a sum through addUnit
// (and merged halves) is the exact sum, as core.Sum gives it, also with values it refuses
// (below 2^-76, subnormal, weighted).
func TestUnitAccExact(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	cases := []struct {
		name string
		vals []float64
	}{
		{"ones", []float64{1, 1, 1}},
		{"thirds", []float64{1.0 / 3, 2.0 / 3, 1.0 / 7, 0.1, 0.2, 0.3}},
		{"edges", []float64{0, 1, math.Ldexp(1, -76), math.Ldexp(1.5, -76), math.Ldexp(1, -77), math.SmallestNonzeroFloat64, math.Nextafter(1, 0), 0.5}},
		{"random", nil},
		{"tiny", nil},
	}
	for i := 0; i < 5000; i++ {
		cases[3].vals = append(cases[3].vals, r.Float64())
		cases[4].vals = append(cases[4].vals, math.Ldexp(r.Float64(), -r.Intn(90)))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want, s1, s2 core.Sum
			var a1, a2 unitAcc
			for i, v := range c.vals {
				w := int64(1 + i%3/2) // weights 1, 1, 2, ...
				want.AddWeighted(v, w)
				if i%2 == 0 {
					addUnit(&s1, &a1, v, w)
				} else {
					addUnit(&s2, &a2, v, w)
				}
			}
			s1.Merge(&s2)
			a1.merge(&a2)
			got := a1.total(&s1)
			require.Equal(t, want.Float(), got.Float())
			// Exact, not only rounded alike: the difference is zero.
			for _, p := range want.Partials() {
				got.Add(-p)
			}
			require.Zero(t, got.Float())
		})
	}
}

// TestStatesConcurrent: the states of one metric share its rouge tokenizer's vocabulary, so
// states folding on several goroutines at once (as the pipeline's workers do) must give,
// merged, exactly the result of one state folding every record; with stemming and without,
// for every rouge-score type.
func TestStatesConcurrent(t *testing.T) {
	recs := benchRecords(true, 40, 1, 600)
	for i, r := range recs {
		if i%3 == 0 {
			r[0] = strings.Replace(r[0].(string), " w1 ", "\nw1\n", -1) // several lines
		}
		// Words of more than 8 and more than 16 bytes, new ones throughout.
		long := fmt.Sprintf(" Relatedness%d internationalizations%d", i%40, i%70)
		r[0] = r[0].(string) + long
		r[1].([]string)[0] += long
	}
	for _, spec := range []struct {
		typ  string
		opts map[string]any
	}{
		{"rouge_n", map[string]any{"n": 1, "stem": true}},
		{"rouge_n", map[string]any{"n": 2}},
		{"rouge_l", map[string]any{"compat": "rouge-score", "stem": true}},
		{"rouge_lsum", map[string]any{"stem": true}},
	} {
		want := run(t, build(t, spec.typ, spec.opts), recs)
		m := build(t, spec.typ, spec.opts) // a cold vocabulary
		const workers = 4
		states := make([]core.State, workers)
		var wg sync.WaitGroup
		for w := range states {
			states[w] = m.NewState()
			wg.Add(1)
			go func() {
				defer wg.Done()
				exs := examples(m, recs[w*len(recs)/workers:(w+1)*len(recs)/workers])
				for i := range exs {
					if err := m.Check(&exs[i]); err != nil {
						t.Error(err)
						return
					}
					states[w].Add(&exs[i], 1)
				}
			}()
		}
		wg.Wait()
		for _, st := range states[1:] {
			require.NoError(t, states[0].Merge(st))
		}
		require.Equal(t, want, states[0].Result(), "%s %v", spec.typ, spec.opts)
	}
}
