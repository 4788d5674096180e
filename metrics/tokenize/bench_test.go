package tokenize

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// benchLines is a deterministic corpus of English-like lines of about 120
// bytes: capitalised sentences, commas, abbreviations, numbers and quotes.
var benchLines = func() []string {
	words := strings.Fields(`the of and to in is that for it as was with be by on not he this are
		or his from at which but have an they you were her she there been one all we their has
		would when if so no will more about can said them some could into than other time only
		running quickly generously connections organizations relational hopefulness universities
		model translation evaluation reference hypothesis sentence corpus metric scores tokens
		Paris Google U.S. e.g. i.e. don't it's 3.5 1,000 2024 10-20 km $5 (see) "quoted" well-known`)
	seed := uint32(2463534242)
	next := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed % uint32(n))
	}
	lines := make([]string, 1000)
	for i := range lines {
		var b strings.Builder
		for b.Len() < 110 {
			w := words[next(len(words))]
			if b.Len() == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(w)
			if next(8) == 0 {
				b.WriteByte(",.;:"[next(4)])
			}
		}
		b.WriteByte('.')
		lines[i] = b.String()
	}
	return lines
}()

func benchTokenizer(b *testing.B, fn Func) {
	total := 0
	for _, l := range benchLines {
		total += len(l)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range benchLines {
			fn(l)
		}
	}
	lines := float64(b.N) * float64(len(benchLines))
	b.ReportMetric(lines/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/lines, "ns/line")
}

func BenchmarkTokenize(b *testing.B) {
	for _, name := range Names() {
		fn, err := New(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) { benchTokenizer(b, fn) })
	}
	b.Run("rouge+stem", func(b *testing.B) {
		benchTokenizer(b, func(s string) []string { return Rouge(s, true) })
	})
}

func BenchmarkPyLower(b *testing.B) {
	benchTokenizer(b, func(s string) []string { _ = PyLower(s); return nil })
}

func BenchmarkPorterStem(b *testing.B) {
	var words []string
	for _, l := range benchLines[:100] {
		words = append(words, Rouge(l, false)...)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			PorterStem(w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(len(words))), "ns/word")
}

// BenchmarkStemASCII measures the stemming of the rouge tokenizer's new words: each distinct
// lowercased word of more than 3 bytes of benchLines, or of the corpus named by
// EVALSTREAM_ROUGE_CORPUS, once per pass.
func BenchmarkStemASCII(b *testing.B) {
	texts := benchLines
	if path := os.Getenv("EVALSTREAM_ROUGE_CORPUS"); path != "" {
		texts = corpusTexts(b, path)
	}
	seen := map[string]bool{}
	var words []string
	for _, s := range texts {
		for _, w := range Rouge(s, false) {
			if len(w) > 3 && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	arena := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			a := arena[:0]
			stemASCII(w, &a)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(len(words))), "ns/word")
}

// BenchmarkAppend measures the append tokenizers as the metrics use them (reusing dst).
func BenchmarkAppend(b *testing.B) {
	for _, name := range []string{"13a", "intl", "zh"} {
		fn, err := NewAppend(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var dst []string
			benchTokenizer(b, func(s string) []string { dst = fn(dst[:0], s); return dst })
		})
	}
}

// BenchmarkRougeAppendIDs measures the rouge tokenizer's id path with stemming: "warm" with
// a vocabulary that has seen the text, "cold" with a new tokenizer per pass (every word
// lowercased, stemmed and interned once). The text is benchLines, or the lines of the JSONL
// corpus named by EVALSTREAM_ROUGE_CORPUS (prediction and references) to measure real text.
func BenchmarkRougeAppendIDs(b *testing.B) {
	texts := benchLines
	if path := os.Getenv("EVALSTREAM_ROUGE_CORPUS"); path != "" {
		texts = corpusTexts(b, path)
	}
	total := 0
	for _, s := range texts {
		total += len(s)
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			var ids []int32
			t := NewRougeTokenizer(true)
			for _, s := range texts {
				ids = t.AppendIDs(ids[:0], s)
			}
			tokens := 0
			b.SetBytes(int64(total))
			b.ReportAllocs()
			for b.Loop() {
				if cold {
					t = NewRougeTokenizer(true)
				}
				tokens = 0
				for _, s := range texts {
					ids = t.AppendIDs(ids[:0], s)
					tokens += len(ids)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*float64(tokens)), "ns/token")
		})
	}
}

// corpusTexts returns the prediction and reference strings of a JSONL file.
func corpusTexts(b *testing.B, path string) []string {
	f, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
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
		texts = append(texts, r.Prediction)
		texts = append(texts, r.References...)
	}
	return texts
}
