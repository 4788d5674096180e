package rouge

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScratchSizedByPrediction: the LCS masks have a row per distinct prediction token (and
// one spare), not per distinct token of the example. A prediction of one repeated word and a
// reference of 50,000 distinct words: masks of a row per reference word would take 50,001 ×
// ⌈32,000/64⌉ words (200 MB) for one record; of a row per prediction word, 8 KB. The bound
// leaves room for the tokens, the ids and the rouge tokenizer's vocabulary.
func TestScratchSizedByPrediction(t *testing.T) {
	words := func(n int, sep func(i int) string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString("w" + strconv.Itoa(i) + sep(i))
		}
		return b.String()
	}
	space := func(int) string { return " " }
	oneWord := strings.TrimSpace(strings.Repeat("a ", 32000))
	for _, c := range []struct {
		name string
		typ  string
		opts map[string]any
		pred string
		ref  string
	}{
		{"rouge_l", "rouge_l", nil, oneWord, words(50000, space)},
		{"rouge_l rouge-score", "rouge_l", map[string]any{"compat": "rouge-score"}, oneWord, words(50000, space)},
		{"rouge_lsum whitespace, one sentence each", "rouge_lsum", map[string]any{"tokenize": "whitespace"}, oneWord, words(50000, space)},
		{
			// Packs of one-word prediction sentences (≈ 6000/32 packs): a row per token id
			// of the example in each would take 190 × 50,001 words (76 MB).
			"rouge_lsum packs", "rouge_lsum", nil,
			strings.TrimSpace(strings.Repeat("a\n", 6000)),
			words(50000, func(i int) string { return map[bool]string{true: "\n", false: " "}[i%10 == 9] }),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, c.typ, c.opts)
			st := m.NewState()
			warm := examples(m, []rec{{"a", []string{"a"}}})
			st.Add(&warm[0], 1)
			exs := examples(m, []rec{{c.pred, []string{c.ref}}})
			require.NoError(t, m.Check(&exs[0]))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			st.Add(&exs[0], 1)
			runtime.ReadMemStats(&after)
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "bytes allocated by one record")
		})
	}
}
