package bleu

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

// wmtExamples returns the real WMT17 records embedded in the golden file, as text or as
// whitespace tokens.
func wmtExamples(tb testing.TB, tokenized bool) []core.Example {
	tb.Helper()
	f := goldentest.Load(tb, goldenPath)
	var exs []core.Example
	for _, c := range f.Cases {
		if c.Name != "wmt17-online-B-bleu-13a" {
			continue
		}
		for i, r := range c.Records {
			ex := core.Example{Seq: uint64(i), Values: []core.Value{core.FromJSON(r["prediction"]), core.FromJSON(r["references"])}}
			if tokenized {
				ex.Values[0] = core.Value{Kind: core.StringList, Strs: toks(ex.Values[0].Str)}
				ex.Values[1] = core.Value{Kind: core.StringLists, Lists: refLists(ex.Values[1].Strs...)}
			}
			exs = append(exs, ex)
		}
	}
	require.NotEmpty(tb, exs)
	return exs
}

func benchAdd(b *testing.B, typ string, opts map[string]any, tokenized bool) {
	m := build(b, typ, opts)
	exs := wmtExamples(b, tokenized)
	st := m.NewState()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st.Add(&exs[i%len(exs)], 1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkAddSacreBLEU13a(b *testing.B) { benchAdd(b, "bleu", nil, false) }
func BenchmarkAddSacreBLEUNone(b *testing.B) {
	benchAdd(b, "bleu", map[string]any{"tokenize": "none"}, false)
}
func BenchmarkAddNLTKTokens(b *testing.B) {
	benchAdd(b, "bleu", map[string]any{"compat": "nltk"}, true)
}
func BenchmarkAddIgniteMacro(b *testing.B) {
	benchAdd(b, "bleu", map[string]any{"compat": "ignite"}, true)
}
func BenchmarkAddCHRF(b *testing.B)   { benchAdd(b, "chrf", nil, false) }
func BenchmarkAddCHRFpp(b *testing.B) { benchAdd(b, "chrf", map[string]any{"word_order": 2}, false) }

func BenchmarkResultNLTKMethod5(b *testing.B) {
	m := build(b, "bleu", map[string]any{"compat": "nltk", "smooth": "method5"})
	exs := wmtExamples(b, true)
	st := m.NewState()
	for i := range exs {
		st.Add(&exs[i], 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st.Result()
	}
}

func BenchmarkAddNLTKMacroMethod5(b *testing.B) {
	benchAdd(b, "bleu", map[string]any{"compat": "nltk", "smooth": "method5", "average": "macro"}, true)
}
func BenchmarkAddSacreBLEUMacroTokens(b *testing.B) {
	benchAdd(b, "bleu", map[string]any{"average": "macro"}, true)
}
func BenchmarkAddNLTKMacroMethod1(b *testing.B) {
	benchAdd(b, "bleu", map[string]any{"compat": "nltk", "smooth": "method1", "average": "macro"}, true)
}
