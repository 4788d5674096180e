package bleu

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// rec is a record: a prediction (string or tokens) and references.
type rec struct {
	pred any // string or []string
	refs any // string, []string (reference strings) or [][]string (token lists)
}

func toks(s string) []string { return strings.Fields(s) }

func refLists(refs ...string) [][]string {
	out := make([][]string, len(refs))
	for i, r := range refs {
		out[i] = toks(r)
	}
	return out
}

func build(t testing.TB, typ string, opts map[string]any) core.Metric {
	t.Helper()
	o := core.NewOptions(opts)
	var m core.Metric
	var err error
	switch typ {
	case "bleu":
		m, err = NewBLEU(o)
	case "chrf":
		m, err = NewCHRF(o)
	default:
		t.Fatalf("unknown type %q", typ)
	}
	require.NoError(t, err)
	require.NoError(t, o.Err())
	return m
}

func example(r rec, seq uint64) core.Example {
	return core.Example{Values: []core.Value{core.FromJSON(r.pred), core.FromJSON(r.refs)}, Seq: seq}
}

func score(t testing.TB, m core.Metric, recs ...rec) core.Result {
	t.Helper()
	st := m.NewState()
	for i, r := range recs {
		ex := example(r, uint64(i))
		require.NoError(t, m.Check(&ex))
		st.Add(&ex, 1)
	}
	return st.Result()
}

func value(t testing.TB, res core.Result) float64 {
	t.Helper()
	require.NotNil(t, res.Value, "reason: %s", res.Reason)
	return res.Value.(float64)
}

// seed2 is MindNLP's BleuScore docstring example (spec "seed 2").
var seed2 = rec{toks("The cat The cat on the mat"), refLists("The cat is on the mat", "There is a cat on the mat")}

// seed1 is ignite's Bleu docstring example (spec "seed 1").
var seed1 = rec{toks("the the the the the the the"), refLists("the cat is on the mat", "there is a cat on the mat")}

// requirePrinted checks got against a value printed by a reference library (or the spec) to
// its last printed digit.
func requirePrinted(t testing.TB, want string, got float64) {
	t.Helper()
	w, err := strconv.ParseFloat(want, 64)
	require.NoError(t, err)
	if w == 0 {
		require.Equal(t, 0.0, got, "want exactly 0")
		return
	}
	mant := strings.TrimLeft(strings.SplitN(strings.ToLower(want), "e", 2)[0], "-+")
	mant = strings.TrimLeft(strings.Replace(mant, ".", "", 1), "0")
	digits := max(len(mant), 1)
	require.Equal(t, strconv.FormatFloat(w, 'e', digits-1, 64), strconv.FormatFloat(got, 'e', digits-1, 64),
		"want %s got %.17g", want, got)
}

func TestSeeds(t *testing.T) {
	type opts = map[string]any
	cases := []struct {
		name string
		typ  string
		opts opts
		recs []rec
		want string
	}{
		// Seeds 000 and 002 (ignite docs): Bleu(ngram=4, smooth="smooth1") prints tensor(0.0393); §2.9.
		{"ignite-seed1-smooth1-printed", "bleu", opts{"compat": "ignite", "smooth": "smooth1"}, []rec{seed1}, "0.0393"},
		{"ignite-seed1-smooth1", "bleu", opts{"compat": "ignite", "smooth": "smooth1"}, []rec{seed1}, "0.039281465090051315"},
		{"nltk-seed1-method1", "bleu", opts{"compat": "nltk", "smooth": "method1"}, []rec{seed1}, "0.039281465090051315"},
		{"ignite-seed1-nltk2", "bleu", opts{"compat": "ignite", "smooth": "nltk_smooth2"}, []rec{seed1}, "0.19205612637498934"},
		{"ignite-seed1-smooth2", "bleu", opts{"compat": "ignite", "smooth": "smooth2"}, []rec{seed1}, "0.19205612637498934"},
		{"nltk-seed1-method2", "bleu", opts{"compat": "nltk", "smooth": "method2"}, []rec{seed1}, "0.19205612637498934"},
		{"sacre-seed1-exp", "bleu", opts{"tokenize": "none", "scale": 100}, []rec{seed1}, "7.809849842300637"},
		{"sacre-seed1-floor", "bleu", opts{"tokenize": "none", "smooth": "floor", "scale": 100}, []rec{seed1}, "3.9281"},
		{"sacre-seed1-addk", "bleu", opts{"tokenize": "none", "smooth": "add-k", "scale": 100}, []rec{seed1}, "19.2056"},
		{"nltk-seed1-method3", "bleu", opts{"compat": "nltk", "smooth": "method3"}, []rec{seed1}, "0.0780985"},
		{"ignite-seed1-nosmooth", "bleu", opts{"compat": "ignite"}, []rec{seed1}, "0"},
		{"mindnlp-seed1", "bleu", opts{"compat": "mindnlp"}, []rec{seed1}, "0"},
		{"sacre-seed1-none", "bleu", opts{"tokenize": "none", "smooth": "none"}, []rec{seed1}, "0"},
		{"nltk-seed1-method0", "bleu", opts{"compat": "nltk"}, []rec{seed1}, "1.33196e-231"},
		{"paddle-seed1", "bleu", opts{"compat": "paddle"}, []rec{seed1}, "1.33e-231"},
		// NLTK seed-1 values of methods 4, 5 and 7 (§2.3); method6 raises AssertionError.
		{"nltk-seed1-method4", "bleu", opts{"compat": "nltk", "smooth": "method4"}, []rec{seed1}, "0.038482"},
		{"nltk-seed1-method5", "bleu", opts{"compat": "nltk", "smooth": "method5"}, []rec{seed1}, "0.100807"},
		{"nltk-seed1-method7", "bleu", opts{"compat": "nltk", "smooth": "method7"}, []rec{seed1}, "0.123386"},
		// Seed 003 (MindNLP BleuScore) and the PaddleNLP docstring; §2.5, §2.9.
		{"mindnlp-seed2", "bleu", opts{"compat": "mindnlp"}, []rec{seed2}, "0.46713797772820015"},
		{"paddle-seed2", "bleu", opts{"compat": "paddle"}, []rec{seed2}, "0.4671379777282001"},
		{"nltk-seed2", "bleu", opts{"compat": "nltk"}, []rec{seed2}, "0.4671379777282001"},
		// ignite no_smooth macro carries float32 rounding (§2.2 QUIRK).
		{"ignite-seed2-macro-f32", "bleu", opts{"compat": "ignite"}, []rec{seed2}, "0.4671379857332331"},
		{"ignite-seed2-micro", "bleu", opts{"compat": "ignite", "average": "micro"}, []rec{seed2}, "0.4671379777282001"},
		// MindNLP's extra vectors (§2.5).
		{"mindnlp-2gram-weights", "bleu", opts{"compat": "mindnlp", "ngram": 2, "weights": []any{0.5, 0.5}},
			[]rec{{toks("this is small cat"), refLists("this is a small cat")}}, "0.6358881766016378"},
		{"mindnlp-two-updates", "bleu", opts{"compat": "mindnlp"},
			[]rec{seed2, {toks("The cat is on the mat"), refLists("The cat is on the mat")}}, "0.7166258375282707"},
		{"mindnlp-single-ref", "bleu", opts{"compat": "mindnlp"},
			[]rec{{seed2.pred, refLists("The cat is on the mat")}}, "0"},
		// Closest-reference tie (§1.2): c=6, refs of lengths 7 and 5.
		{"mindnlp-tie-first", "bleu", opts{"compat": "mindnlp"},
			[]rec{{toks("a b c d e f"), refLists("a b c d e f g", "a b c d e")}}, "0.846481724890614"},
		{"nltk-tie-shorter", "bleu", opts{"compat": "nltk"},
			[]rec{{toks("a b c d e f"), refLists("a b c d e f g", "a b c d e")}}, "1.0"},
		{"ignite-tie-shorter", "bleu", opts{"compat": "ignite", "average": "micro"},
			[]rec{{toks("a b c d e f"), refLists("a b c d e f g", "a b c d e")}}, "1.0"},
		{"sacre-tie-shorter", "bleu", opts{}, []rec{{"a b c d e f", []string{"a b c d e f g", "a b c d e"}}}, "1.0"},
		{"paddle-tie-shorter", "bleu", opts{"compat": "paddle"},
			[]rec{{toks("a b c d e f"), refLists("a b c d e f g", "a b c d e")}}, "1.0"},
		// chrF and chrF++ seed values (§5).
		{"chrf-seed2", "chrf", opts{"scale": 100}, []rec{{"The cat The cat on the mat", []string{"The cat is on the mat", "There is a cat on the mat"}}}, "60.94088689385663"},
		{"chrf++-seed2", "chrf", opts{"scale": 100, "word_order": 2}, []rec{{"The cat The cat on the mat", []string{"The cat is on the mat", "There is a cat on the mat"}}}, "63.016353794137395"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			requirePrinted(t, c.want, value(t, score(t, build(t, c.typ, c.opts), c.recs...)))
		})
	}
}
