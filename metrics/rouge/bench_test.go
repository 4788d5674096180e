package rouge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// benchWords is a synthetic vocabulary with a Zipf-like use, so n-grams repeat as in text.
func benchSentence(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		k := int(rng.ExpFloat64() * 150)
		out[i] = fmt.Sprintf("w%d", k)
		if rng.Intn(8) == 0 {
			out[i] = strings.ToUpper(out[i]) + ","
		}
	}
	return out
}

// benchRecords returns records of a prediction and refs references of about length tokens.
func benchRecords(strs bool, length, refs, n int) []rec {
	rng := rand.New(rand.NewSource(7))
	recs := make([]rec, n)
	for i := range recs {
		base := benchSentence(rng, length)
		pred := append([]string(nil), base...)
		for j := range pred {
			if rng.Intn(4) == 0 {
				pred[j] = benchSentence(rng, 1)[0]
			}
		}
		rs := make([][]string, refs)
		for j := range rs {
			rs[j] = benchSentence(rng, length)
			copy(rs[j][:length/2], base)
		}
		if strs {
			ss := make([]string, refs)
			for j := range rs {
				ss[j] = strings.Join(rs[j], " ")
			}
			recs[i] = rec{strings.Join(pred, " "), ss}
		} else {
			recs[i] = rec{pred, rs}
		}
	}
	return recs
}

func benchMetric(b *testing.B, m core.Metric, recs []rec) {
	exs := examples(m, recs)
	for i := range exs {
		if err := m.Check(&exs[i]); err != nil {
			b.Fatal(err)
		}
	}
	st := m.NewState()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st.Add(&exs[i%len(exs)], 1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	_ = st.Result()
}

func BenchmarkAdd(b *testing.B) {
	for _, c := range []struct {
		name  string
		typ   string
		opts  map[string]any
		strs  bool
		len   int
		refs  int
		lines bool
	}{
		{"rouge_n/rouge-score-n2-text", "rouge_n", map[string]any{"n": 2}, true, 25, 1, false},
		{"rouge_n/rouge-score-n1-stem-text", "rouge_n", map[string]any{"stem": true}, true, 25, 1, false},
		{"rouge_n/ignite-n4-tokens-4refs", "rouge_n", map[string]any{"compat": "ignite", "n": 4}, false, 25, 4, false},
		{"rouge_n/mindnlp-n2-tokens", "rouge_n", map[string]any{"compat": "mindnlp", "n": 2}, false, 25, 1, false},
		{"rouge_n/ignite-n1-whitespace-text", "rouge_n", map[string]any{"compat": "ignite"}, true, 25, 1, false},
		{"rouge_l/mindnlp-tokens", "rouge_l", nil, false, 25, 1, false},
		{"rouge_l/mindnlp-tokens-4refs", "rouge_l", nil, false, 25, 4, false},
		{"rouge_l/rouge-score-text", "rouge_l", map[string]any{"compat": "rouge-score"}, true, 25, 1, false},
		{"rouge_l/mindnlp-tokens-long-1000", "rouge_l", nil, false, 1000, 1, false},
		{"rouge_lsum/text-4-sentences", "rouge_lsum", nil, true, 100, 1, true},
		{"rouge_l_dureader/tokens", "rouge_l_dureader", nil, false, 25, 1, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			recs := benchRecords(c.strs, c.len, c.refs, 256)
			if c.lines {
				for _, r := range recs {
					r[0] = strings.Replace(r[0].(string), " w1 ", "\nw1\n", -1)
				}
			}
			benchMetric(b, build(b, c.typ, c.opts), recs)
		})
	}
}

func BenchmarkMerge(b *testing.B) {
	m := build(b, "rouge_l", nil)
	exs := examples(m, benchRecords(false, 25, 1, 64))
	x, y := m.NewState(), m.NewState()
	for i := range exs {
		x.Add(&exs[i], 1)
		y.Add(&exs[i], 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := x.Merge(y); err != nil {
			b.Fatal(err)
		}
	}
}

// scoreSetCorpus is the corpus of BenchmarkRougeScoreSet.
func scoreSetCorpus(b *testing.B) []rec {
	var recs []rec
	if path := os.Getenv("EVALSTREAM_ROUGE_CORPUS"); path != "" {
		f, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range bytes.Split(f, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var r struct {
				Prediction string   `json:"prediction"`
				References []string `json:"references"`
			}
			if err := json.Unmarshal(line, &r); err != nil {
				b.Fatal(err)
			}
			recs = append(recs, rec{r.Prediction, r.References})
		}
		return recs
	}
	recs = benchRecords(true, 100, 1, 1500)
	for _, r := range recs {
		r[0] = strings.Replace(r[0].(string), " w1 ", "\nw1\n", -1)
		refs := r[1].([]string)
		refs[0] = strings.Replace(refs[0], " w2 ", "\nw2\n", -1)
	}
	return recs
}

// scoreSet is rouge-score's usual set: ROUGE-1/2/L/Lsum with stemming.
func scoreSet(b *testing.B) []core.Metric {
	return []core.Metric{
		build(b, "rouge_n", map[string]any{"compat": "rouge-score", "n": 1, "stem": true}),
		build(b, "rouge_n", map[string]any{"compat": "rouge-score", "n": 2, "stem": true}),
		build(b, "rouge_l", map[string]any{"compat": "rouge-score", "stem": true}),
		build(b, "rouge_lsum", map[string]any{"stem": true}),
	}
}

// BenchmarkRougeScoreSet is rouge-score's usual set, ROUGE-1/2/L/Lsum with stemming, folded
// together as the pipeline folds them (one core.Memo, so a record is tokenized once), with
// fresh states (a cold tokenizer vocabulary) per pass over the corpus. The corpus is
// synthetic summaries of four lines, or the JSONL file (prediction, references) named by
// EVALSTREAM_ROUGE_CORPUS, to profile on real text.
func BenchmarkRougeScoreSet(b *testing.B) {
	recs := scoreSetCorpus(b)
	ms := scoreSet(b)
	exs := examples(ms[0], recs)
	var memo core.Memo
	for i := range exs {
		exs[i].Memo = &memo
		for _, m := range ms {
			if err := m.Check(&exs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sts := make([]core.State, len(ms))
		for j, m := range ms {
			sts[j] = m.NewState()
		}
		for k := range exs {
			memo.Next()
			for _, st := range sts {
				st.Add(&exs[k], 1)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(exs))/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkRougeScoring is the scoring of each metric of BenchmarkRougeScoreSet alone, on
// examples tokenized beforehand: each example keeps a core.Memo of its own, whose token ids
// stay current, and whose LCS lengths (shared by rougeL and rougeLsum) are forgotten before
// each Add.
func BenchmarkRougeScoring(b *testing.B) {
	recs := scoreSetCorpus(b)
	ms := scoreSet(b)
	exs := examples(ms[0], recs)
	tok := ms[0].NewState()
	for i := range exs {
		exs[i].Memo = new(core.Memo)
		for _, m := range ms {
			if err := m.Check(&exs[i]); err != nil {
				b.Fatal(err)
			}
		}
		tok.Add(&exs[i], 1) // tokenizes into the memo
	}
	key := ms[0].(*RougeN).text.memoKey
	for j, name := range []string{"rouge1", "rouge2", "rougeL", "rougeLsum"} {
		b.Run(name, func(b *testing.B) {
			st := ms[j].NewState()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range exs {
					if v, _ := exs[k].Memo.Lookup(key); v != nil {
						v.(*loaded).lcsOK = false
					}
					st.Add(&exs[k], 1)
				}
			}
			b.ReportMetric(float64(b.N*len(exs))/b.Elapsed().Seconds(), "records/s")
		})
	}
}
