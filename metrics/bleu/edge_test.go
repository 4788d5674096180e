package bleu

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

// variant is one column of the metrics.md §2.7 table.
type variant struct {
	name string
	opts map[string]any
}

var edgeVariants = []variant{
	{"ignite/no_smooth", map[string]any{"compat": "ignite", "smooth": "no_smooth"}},
	{"ignite/smooth1", map[string]any{"compat": "ignite", "smooth": "smooth1"}},
	{"ignite/nltk_smooth2", map[string]any{"compat": "ignite", "smooth": "nltk_smooth2"}},
	{"ignite/smooth2", map[string]any{"compat": "ignite", "smooth": "smooth2"}},
	{"nltk/m0", map[string]any{"compat": "nltk"}},
	{"nltk/m1", map[string]any{"compat": "nltk", "smooth": "method1"}},
	{"sacre/exp", map[string]any{"scale": 100}},
	{"sacre/none", map[string]any{"smooth": "none", "scale": 100}},
	{"sacre/exp+eff", map[string]any{"effective_order": true, "scale": 100}},
	{"mindnlp", map[string]any{"compat": "mindnlp"}},
	{"paddle", map[string]any{"compat": "paddle"}},
}

// TestEdgeCases is the table of metrics.md §2.7 ("null" = no value: Paddle divides by zero).
func TestEdgeCases(t *testing.T) {
	rows := []struct {
		name string
		hyp  string
		refs []string
		want []string // one per edgeVariants column
	}{
		{"empty hypothesis", "", []string{"a b c"},
			[]string{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "null"}},
		{"empty reference", "a b c", []string{""},
			[]string{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "2.2e-308"}},
		{"a b vs a b c d", "a b", []string{"a b c d"},
			[]string{"0", "0.11633", "0.26013", "0.36788", "5.49e-155", "0.11633", "0", "0", "36.788", "0", "5.49e-155"}},
		{"hyp = ref = a b c", "a b c", []string{"a b c"},
			[]string{"0", "0.56234", "0.84090", "1.0", "1.22e-77", "0.56234", "0", "0", "100.0", "0", "1.22e-77"}},
		{"no unigram match", "x y z", []string{"a b c"},
			[]string{"0", "0", "0", "0", "0", "0", "0", "0", "0", "0", "2.2e-308"}},
		{"only unigrams match", "d c b a", []string{"a b c d"},
			[]string{"0", "0.11362", "0", "0", "1.82e-231", "0.11362", "22.59", "0", "22.59", "0", "1.82e-231"}},
	}
	for _, r := range rows {
		for i, v := range edgeVariants {
			want := r.want[i]
			if v.name == "ignite/nltk_smooth2" || v.name == "ignite/smooth2" {
				if r.name == "only unigrams match" {
					continue // not in the table
				}
			}
			t.Run(r.name+"/"+v.name, func(t *testing.T) {
				for _, avg := range []string{"micro", "macro"} {
					opts := map[string]any{"average": avg}
					for k, x := range v.opts {
						opts[k] = x
					}
					// Tokens for the token-based libraries, strings for sacrebleu.
					rc := rec{r.hyp, r.refs}
					if !strings.HasPrefix(v.name, "sacre") {
						rc = rec{toks(r.hyp), refLists(r.refs...)}
					}
					res := score(t, build(t, "bleu", opts), rc)
					if want == "null" {
						require.Nil(t, res.Value)
						require.NotEmpty(t, res.Reason)
						continue
					}
					requirePrinted(t, want, value(t, res))
				}
			})
		}
	}
	// No references: every library fails; evalstream rejects the record.
	for _, v := range edgeVariants {
		m := build(t, "bleu", v.opts)
		ex := example(rec{"a b", []string{}}, 0)
		var re *core.RecordError
		require.ErrorAs(t, m.Check(&ex), &re)
		require.Equal(t, "empty references", re.Reason)
		require.Equal(t, "references", re.Field)
	}
}

// TestDisagreements is metrics.md §2.8: a corpus with a short sentence.
func TestDisagreements(t *testing.T) {
	recs := []rec{{toks("a b c d e f"), refLists("a b c d x f")}, {toks("a b"), refLists("a b")}}
	strs := []rec{{"a b c d e f", []string{"a b c d x f"}}, {"a b", []string{"a b"}}}
	for _, c := range []struct {
		name   string
		opts   map[string]any
		recs   []rec
		want   string
		totals []int64
	}{
		{"ignite-micro", map[string]any{"compat": "ignite", "average": "micro"}, recs, "0.5583948264724179", []int64{8, 6, 4, 3}},
		// sacrebleu prints 55.83948264724184 and MindNLP 0.558394826472418 (a plain sum of logs).
		{"sacrebleu", map[string]any{"scale": 100}, strs, "55.83948264724184", []int64{8, 6, 4, 3}},
		{"mindnlp", map[string]any{"compat": "mindnlp"}, recs, "0.558394826472418", []int64{8, 6, 4, 3}},
		{"paddle", map[string]any{"compat": "paddle"}, recs, "0.5583948264724179", []int64{8, 6, 4, 3}},
		{"nltk", map[string]any{"compat": "nltk"}, recs, "0.49144984054308527", []int64{8, 6, 5, 4}},
		{"ignite-macro-smooth1", map[string]any{"compat": "ignite", "smooth": "smooth1"}, recs, "0.4268", []int64{8, 6, 4, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := score(t, build(t, "bleu", c.opts), c.recs...)
			requirePrinted(t, c.want, value(t, res))
			require.Equal(t, []int64{7, 4, 2, 1}, res.Details["counts"])
			require.Equal(t, c.totals, res.Details["totals"])
			require.Equal(t, int64(8), res.Details["sys_len"])
			require.Equal(t, int64(8), res.Details["ref_len"])
		})
	}
	// sacreBLEU's own precisions (×100 with scale 100) and BP.
	res := score(t, build(t, "bleu", map[string]any{"scale": 100}), rec{"The cat The cat on the mat", []string{"The cat is on the mat", "There is a cat on the mat"}})
	prec := res.Details["precisions"].([]float64)
	for i, want := range []string{"71.4", "66.7", "40.0", "25.0"} {
		require.Equal(t, want, fmt.Sprintf("%.1f", prec[i]))
	}
	require.Equal(t, 1.0, res.Details["bp"])
}

func TestOptions(t *testing.T) {
	bad := []struct {
		typ  string
		opts map[string]any
		key  string
	}{
		{"bleu", map[string]any{"compat": "bleurt"}, "compat"},
		{"bleu", map[string]any{"compat": "mindnlp", "smooth": "exp"}, "smooth"},
		{"bleu", map[string]any{"compat": "paddle", "smooth": "method1"}, "smooth"},
		{"bleu", map[string]any{"compat": "mindnlp", "ngram": 5}, "ngram"},
		{"bleu", map[string]any{"compat": "mindnlp", "weights": []any{0.2, 0.2, 0.2, 0.2, 0.2}}, "weights"},
		{"bleu", map[string]any{"compat": "nltk", "ngram": 3, "weights": []any{0.5, 0.5}}, "weights"},
		{"bleu", map[string]any{"compat": "nltk", "weights": []any{0.5, "x"}}, "weights"},
		{"bleu", map[string]any{"weights": []any{0.25, 0.25, 0.25, 0.25}}, "weights"},
		{"bleu", map[string]any{"compat": "ignite", "weights": []any{0.5, 0.5}}, "weights"},
		{"bleu", map[string]any{"compat": "ignite", "effective_order": true}, "effective_order"},
		{"bleu", map[string]any{"compat": "ignite", "smooth": "exp"}, "smooth"},
		{"bleu", map[string]any{"compat": "ignite", "smooth_value": 0.1}, "smooth_value"},
		{"bleu", map[string]any{"smooth": "exp", "smooth_value": 0.1}, "smooth_value"},
		{"bleu", map[string]any{"smooth": "floor", "smooth_value": -1}, "smooth_value"},
		{"bleu", map[string]any{"smooth": "method1"}, "smooth"},
		{"bleu", map[string]any{"auto_reweigh": true}, "auto_reweigh"},
		{"bleu", map[string]any{"compat": "nltk", "smooth": "method8"}, "smooth"},
		{"bleu", map[string]any{"compat": "nltk", "smooth": "method6", "ngram": 2}, "smooth"},
		{"bleu", map[string]any{"compat": "nltk", "effective_order": false}, "effective_order"},
		{"bleu", map[string]any{"scale": 10}, "scale"},
		{"bleu", map[string]any{"average": "weighted"}, "average"},
		{"bleu", map[string]any{"tokenize": "rouge"}, "tokenize"},
		{"bleu", map[string]any{"ngram": 0}, "ngram"},
		{"bleu", map[string]any{"lowercas": true}, "lowercas"},
		{"chrf", map[string]any{"char_order": 0, "word_order": 0}, "char_order"},
		{"chrf", map[string]any{"beta": -1}, "beta"},
		{"chrf", map[string]any{"compat": "nltk"}, "compat"},
		{"chrf", map[string]any{"tokenize": "13a"}, "tokenize"},
		{"chrf", map[string]any{"scale": 1000}, "scale"},
	}
	for _, c := range bad {
		t.Run(fmt.Sprint(c.typ, c.opts), func(t *testing.T) {
			o := core.NewOptions(c.opts)
			_, err := ctor(c.typ, o)
			require.NoError(t, err, "option problems are reported through o.Err")
			err = o.Err()
			require.Error(t, err)
			require.Contains(t, err.Error(), c.key+":")
		})
	}
	// Every preset builds with its defaults and documents itself.
	for _, p := range presetNames {
		build(t, "bleu", map[string]any{"compat": p})
	}
	docs := Docs()
	require.Len(t, docs, 2)
	require.Equal(t, []string{"sacrebleu", "ignite", "mindnlp", "paddle", "nltk"}, docs[0].Presets)
}

func TestSignatures(t *testing.T) {
	require.Equal(t, "type:bleu|compat:sacrebleu|case:mixed|eff:no|tok:13a|smooth:exp|ngram:4|average:micro|scale:1|version:"+buildinfo.Version,
		build(t, "bleu", nil).Signature())
	require.Equal(t, "type:bleu|compat:sacrebleu|case:lc|eff:yes|tok:intl|smooth:floor[0.30]|ngram:4|average:macro|scale:100|version:"+buildinfo.Version,
		build(t, "bleu", map[string]any{"lowercase": true, "effective_order": true, "tokenize": "intl", "smooth": "floor",
			"smooth_value": 0.3, "average": "macro", "scale": 100}).Signature())
	require.Equal(t, "type:bleu|compat:nltk|ngram:3|weights:0.5,0.3,0.2|smooth:method5|reweigh:no|tok:whitespace|case:mixed|average:micro|scale:1|version:"+buildinfo.Version,
		build(t, "bleu", map[string]any{"compat": "nltk", "smooth": "method5", "weights": "0.5,0.3,0.2"}).Signature())
	require.Equal(t, "type:bleu|compat:ignite|ngram:4|smooth:no_smooth|tok:whitespace|case:mixed|average:macro|scale:1|version:"+buildinfo.Version,
		build(t, "bleu", map[string]any{"compat": "ignite"}).Signature())
	require.Equal(t, "type:chrf|compat:sacrebleu|case:mixed|eff:yes|nc:6|nw:2|space:no|beta:2|scale:1|version:"+buildinfo.Version,
		build(t, "chrf", map[string]any{"word_order": 2}).Signature())

	// The result's signature is type and compat, then sacrebleu's (with nrefs) up to its
	// version, then our keys; the results show it as the metric's signature with nrefs.
	f := goldentest.Load(t, goldenPath)
	sigs := goldenSignatures(t)
	checked := 0
	for _, c := range f.Cases {
		if c.Reject != "" {
			continue
		}
		m, fields, err := goldentest.Build(c, ctor)
		require.NoError(t, err)
		exs := goldentest.Examples(fields, c.Records)
		st := m.NewState()
		for i := range exs {
			st.Add(&exs[i], 1)
		}
		res := st.Result()
		sig := res.Details["signature"].(string)
		require.Regexp(t, `^type:(bleu|chrf)\|compat:[a-z]+\|nrefs:([0-9]+|var)\|`, sig)
		require.Equal(t, sig, core.SigWithData(m.Signature(), res.SigData))
		want, ok := sigs[c.Name]
		if !ok {
			continue
		}
		want = strings.TrimSuffix(want, "|version:2.6.0")
		head := fmt.Sprintf("type:%v|compat:sacrebleu|", c.Metric["type"])
		require.True(t, strings.HasPrefix(sig, head+want+"|"), "%s: %q does not continue with sacrebleu's %q", c.Name, sig, want)
		checked++
	}
	require.Greater(t, checked, 50)
}

func TestCheck(t *testing.T) {
	for _, typ := range []string{"bleu", "chrf"} {
		m := build(t, typ, nil)
		for _, c := range []struct {
			vals   []core.Value
			reason string
			field  string
		}{
			{[]core.Value{{Kind: core.String, Str: "a\xff"}, {Kind: core.String, Str: "a"}}, "invalid utf-8", "prediction"},
			{[]core.Value{{Kind: core.StringList, Strs: []string{"a", "\xc3"}}, {Kind: core.String, Str: "a"}}, "invalid utf-8", "prediction"},
			{[]core.Value{{Kind: core.String, Str: "a"}, {Kind: core.StringList, Strs: []string{"b", "\xff"}}}, "invalid utf-8", "references"},
			{[]core.Value{{Kind: core.String, Str: "a"}, {Kind: core.StringLists, Lists: [][]string{{"\xff"}}}}, "invalid utf-8", "references"},
			{[]core.Value{{Kind: core.String, Str: "a"}, {Kind: core.String, Str: "\xff"}}, "invalid utf-8", "references"},
			{[]core.Value{{Kind: core.Null}, {Kind: core.String, Str: "a"}}, "missing field", "prediction"},
			{[]core.Value{{Kind: core.String, Str: "a"}, {Kind: core.Missing}}, "missing field", "references"},
			{[]core.Value{{Kind: core.StringLists, Lists: [][]string{{"a"}}}, {Kind: core.String, Str: "a"}}, "wrong type", "prediction"},
			{[]core.Value{{Kind: core.FloatList, Floats: []float64{1}}, {Kind: core.String, Str: "a"}}, "wrong type", "prediction"},
			{[]core.Value{{Kind: core.String, Str: "a"}, {Kind: core.Int, Int: 3}}, "wrong type", "references"},
			{[]core.Value{{Kind: core.String, Str: "a"}, {Kind: core.StringLists}}, "empty references", "references"},
			{[]core.Value{{Kind: core.String, Str: "a"}}, "missing field", "references"},
		} {
			ex := core.Example{Values: c.vals}
			var re *core.RecordError
			require.ErrorAs(t, m.Check(&ex), &re, "%v", c.vals)
			require.Equal(t, c.reason, re.Reason, "%v", c.vals)
			require.Equal(t, c.field, re.Field, "%v", c.vals)
			// Add must not panic on what Check rejects, and must ignore what it cannot score.
			st := m.NewState()
			st.Add(&ex, 1)
			if f, ok := m.(core.SentenceScorer); ok {
				_, ok := f.SentenceScore(&ex)
				require.False(t, ok)
			}
		}
		// A single reference string, a list of strings and token lists are all accepted.
		for _, refs := range []any{"a b", []string{"a b", ""}, [][]string{{"a", "b"}, {}}} {
			ex := example(rec{"a b", refs}, 0)
			require.NoError(t, m.Check(&ex))
		}
	}
}

func TestSentenceScore(t *testing.T) {
	recs := []rec{seed1, seed2, {"", []string{"a"}}, {"a b c", []string{"a b c", "a b"}}, {toks("x y"), refLists("x y z")}}
	for _, c := range []struct {
		typ  string
		opts map[string]any
	}{
		{"bleu", nil}, {"bleu", map[string]any{"effective_order": true, "scale": 100}},
		{"bleu", map[string]any{"compat": "ignite"}}, {"bleu", map[string]any{"compat": "nltk", "smooth": "method7"}},
		{"bleu", map[string]any{"compat": "mindnlp"}}, {"bleu", map[string]any{"compat": "paddle"}},
		{"chrf", nil}, {"chrf", map[string]any{"word_order": 2, "scale": 100}},
	} {
		m := build(t, c.typ, c.opts)
		sc := m.(core.SentenceScorer)
		for i, r := range recs {
			ex := example(r, uint64(i))
			got, ok := sc.SentenceScore(&ex)
			res := score(t, m, r)
			if res.Value == nil {
				require.False(t, ok, "%v %d", c.opts, i)
				continue
			}
			require.True(t, ok)
			require.Equal(t, res.Value, got, "%s %v record %d", c.typ, c.opts, i)
		}
	}
}

func TestLowercaseTokens(t *testing.T) {
	m := build(t, "bleu", map[string]any{"compat": "nltk", "lowercase": true, "ngram": 2})
	requirePrinted(t, "1.0", value(t, score(t, m, rec{[]string{"The", "CAT", "İs"}, [][]string{{"the", "cat", "i̇s"}}})))
	m = build(t, "bleu", map[string]any{"compat": "nltk", "ngram": 2})
	require.Less(t, value(t, score(t, m, rec{[]string{"The", "CAT"}, [][]string{{"the", "cat"}}})), 1e-100)
	m = build(t, "chrf", map[string]any{"lowercase": true})
	requirePrinted(t, "1.0", value(t, score(t, m, rec{"ΟΔΟΣ Σ", []string{"οδος σ"}})))
}

// TestLastSentence: NLTK methods 5-7 read the last record by input position (Seq), not by
// the order in which a worker happened to add it.
func TestLastSentence(t *testing.T) {
	m := build(t, "bleu", map[string]any{"compat": "nltk", "smooth": "method5"})
	a := rec{toks("a b c d e f g h"), refLists("a b c d e f g x")}
	b := rec{toks("a b"), refLists("a b c")}
	fwd := score(t, m, a, b)
	st := m.NewState()
	exB, exA := example(b, 1), example(a, 0)
	st.Add(&exB, 1)
	st.Add(&exA, 1)
	require.Equal(t, goldentest.Fingerprint(fwd), goldentest.Fingerprint(st.Result()))
	rev := score(t, m, b, a) // now a is last
	require.NotEqual(t, value(t, fwd), value(t, rev))
}

func TestMergeIncompatible(t *testing.T) {
	a := build(t, "bleu", nil)
	b := build(t, "bleu", map[string]any{"tokenize": "intl"})
	c := build(t, "chrf", nil)
	require.True(t, errors.Is(a.NewState().Merge(b.NewState()), core.ErrIncompatible))
	require.True(t, errors.Is(a.NewState().Merge(c.NewState()), core.ErrIncompatible))
	require.True(t, errors.Is(c.NewState().Merge(a.NewState()), core.ErrIncompatible))
	bs, err := b.NewState().MarshalBinary()
	require.NoError(t, err)
	_, err = a.DecodeState(bs)
	require.True(t, errors.Is(err, core.ErrIncompatible), "%v", err)
	// Same options built twice: compatible.
	require.NoError(t, a.NewState().Merge(build(t, "bleu", nil).NewState()))
	// Merging a state into itself doubles it, like merging an equal copy.
	for _, m := range []core.Metric{a, c, build(t, "bleu", map[string]any{"average": "macro"})} {
		self, other, twice := m.NewState(), m.NewState(), m.NewState()
		for i, r := range []rec{seed1, seed2} {
			ex := example(r, uint64(i))
			self.Add(&ex, 1)
			other.Add(&ex, 1)
			twice.Add(&ex, 2)
		}
		require.NoError(t, self.Merge(self))
		require.NoError(t, other.Merge(other))
		require.Equal(t, goldentest.Fingerprint(twice.Result()), goldentest.Fingerprint(self.Result()))
		// Weights below 1 are ignored.
		ex := example(seed1, 9)
		self.Add(&ex, 0)
		self.Add(&ex, -3)
		require.Equal(t, goldentest.Fingerprint(twice.Result()), goldentest.Fingerprint(self.Result()))
	}
	// An empty state has no value.
	for _, m := range []core.Metric{a, c} {
		res := m.NewState().Result()
		require.Nil(t, res.Value)
		require.Equal(t, "no records", res.Reason)
	}
}

func FuzzDecodeState(f *testing.F) {
	metrics := []core.Metric{
		build(f, "bleu", nil),
		build(f, "bleu", map[string]any{"compat": "nltk", "smooth": "method7"}),
		build(f, "bleu", map[string]any{"compat": "ignite"}),
		build(f, "bleu", map[string]any{"compat": "paddle", "average": "macro"}),
		build(f, "chrf", map[string]any{"word_order": 2}),
	}
	for _, m := range metrics {
		st := m.NewState()
		b, _ := st.MarshalBinary()
		f.Add(b)
		for i, r := range []rec{seed1, seed2, {"", []string{""}}} {
			ex := example(r, uint64(i))
			st.Add(&ex, 2)
		}
		b, _ = st.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range metrics {
			st, err := m.DecodeState(b)
			if err != nil {
				require.True(t, errors.Is(err, core.ErrCorruptState) || errors.Is(err, core.ErrIncompatible), "%v", err)
				continue
			}
			res := st.Result()
			if v, ok := res.Value.(float64); ok {
				require.False(t, v != v || v > 1e308 || v < -1e308, "non-finite value %v", v)
			}
			b2, err := st.MarshalBinary()
			require.NoError(t, err)
			st2, err := m.DecodeState(b2)
			require.NoError(t, err)
			require.Equal(t, goldentest.Fingerprint(res), goldentest.Fingerprint(st2.Result()))
			require.NoError(t, st2.Merge(st))
		}
	})
}
