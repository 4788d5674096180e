// Command gen writes the example corpora under testdata/examples/data: synthetic model
// outputs for translation, summarization, classification and regression, generated from a
// fixed seed so every run produces the same files.
//
//	go run ./testdata/examples/gen
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalstream/evalstream/sinks/corpus"
)

var words = strings.Fields(`the a model system translation output score metric data corpus sentence
word token reference hypothesis evaluation quality result test night job batch stream worker state
merge value number table river city house garden market school train station bridge mountain
road window door light music story letter paper picture morning evening summer winter friend
family teacher doctor student child people government company market report president minister
year week day time world country state water fire earth air is was are were has had will would
can could should may might must new old big small good bad first last long short high low
runs ran running walked walks walking quickly slowly carefully generously happily`)

var names = []string{"Berlin", "Paris", "U.S.A.", "Dr. Smith", "NASA", "Müller", "Zoë", "Ōsaka", "O'Neil"}

func sentence(rng *rand.Rand, n int) []string {
	s := make([]string, n)
	for i := range s {
		switch r := rng.Float64(); {
		case r < 0.05:
			s[i] = names[rng.Intn(len(names))]
		case r < 0.08:
			s[i] = fmt.Sprintf("%d.%d", rng.Intn(100), rng.Intn(10))
		case r < 0.1:
			s[i] = fmt.Sprintf("%d-%d", rng.Intn(10), rng.Intn(10))
		default:
			s[i] = words[rng.Intn(len(words))]
		}
	}
	if len(s) > 0 {
		r := []rune(s[0])
		s[0] = strings.ToUpper(string(r[:1])) + string(r[1:])
	}
	return s
}

func render(rng *rand.Rand, toks []string) string {
	out := strings.Join(toks, " ")
	switch rng.Intn(4) {
	case 0:
		out += "."
	case 1:
		out += "!"
	case 2:
		out += " ?"
	default:
		out += ", \"indeed\"."
	}
	return out
}

// perturb imitates a system's errors: substitutions, deletions, insertions and swaps.
func perturb(rng *rand.Rand, ref []string, noise float64) []string {
	var out []string
	for _, w := range ref {
		switch r := rng.Float64(); {
		case r < noise*0.4:
			out = append(out, words[rng.Intn(len(words))])
		case r < noise*0.6:
		case r < noise*0.8:
			out = append(out, w, words[rng.Intn(len(words))])
		default:
			out = append(out, w)
		}
	}
	if len(out) > 2 && rng.Float64() < noise {
		i := rng.Intn(len(out) - 1)
		out[i], out[i+1] = out[i+1], out[i]
	}
	return out
}

func translation(rng *rand.Rand, n int) []map[string]any {
	var recs []map[string]any
	systems := map[string]float64{"baseline": 0.45, "candidate": 0.25}
	for i := 0; i < n; i++ {
		ref := sentence(rng, 4+rng.Intn(20))
		refs := []any{render(rng, ref)}
		if rng.Float64() < 0.3 {
			refs = append(refs, render(rng, perturb(rng, ref, 0.2)))
		}
		for _, sys := range []string{"baseline", "candidate"} {
			pred := render(rng, perturb(rng, ref, systems[sys]))
			if rng.Float64() < 0.01 {
				pred = ""
			}
			recs = append(recs, map[string]any{
				"id": fmt.Sprintf("s%05d", i), "system": sys, "lang": []string{"de", "fr"}[i%2],
				"prediction": pred, "references": refs,
			})
		}
	}
	return recs
}

func summarization(rng *rand.Rand, n int) []map[string]any {
	var recs []map[string]any
	for i := 0; i < n; i++ {
		var ref, pred []string
		for k := 0; k < 2+rng.Intn(3); k++ {
			s := sentence(rng, 5+rng.Intn(12))
			ref = append(ref, render(rng, s))
			if rng.Float64() < 0.8 {
				pred = append(pred, render(rng, perturb(rng, s, 0.35)))
			}
		}
		recs = append(recs, map[string]any{
			"id": fmt.Sprintf("d%05d", i), "prediction": strings.Join(pred, "\n"),
			"references": []any{strings.Join(ref, "\n")},
		})
	}
	return recs
}

func softmax(x []float64) []any {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	var z float64
	for _, v := range x {
		z += math.Exp(v - m)
	}
	out := make([]any, len(x))
	for i, v := range x {
		out[i] = math.Round(math.Exp(v-m)/z*1e6) / 1e6
	}
	return out
}

func classification(rng *rand.Rand, n int) []map[string]any {
	var recs []map[string]any
	for i := 0; i < n; i++ {
		label := rng.Intn(3)
		logits := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		logits[label] += 1.2
		recs = append(recs, map[string]any{
			"id": fmt.Sprintf("c%05d", i), "domain": []string{"news", "forum", "legal"}[rng.Intn(3)],
			"prediction": softmax(logits), "label": int64(label),
		})
	}
	return recs
}

func regression(rng *rand.Rand, n int) []map[string]any {
	var recs []map[string]any
	for i := 0; i < n; i++ {
		y := math.Round(rng.Float64()*50) / 10 // 0.0..5.0 in steps of 0.1 (ties for Spearman)
		pred := math.Round((y+rng.NormFloat64()*0.8)*1000) / 1000
		recs = append(recs, map[string]any{"id": fmt.Sprintf("r%05d", i), "prediction": pred, "label": y})
	}
	return recs
}

func main() {
	out := flag.String("o", "testdata/examples/data", "output directory")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	files := []struct {
		name string
		recs []map[string]any
	}{
		{"translation.jsonl", translation(rand.New(rand.NewSource(1)), 1500)},
		{"summarization.parquet", summarization(rand.New(rand.NewSource(2)), 800)},
		{"classification.arrow", classification(rand.New(rand.NewSource(3)), 5000)},
		{"regression.jsonl", regression(rand.New(rand.NewSource(4)), 2000)},
	}
	for _, f := range files {
		p := filepath.Join(*out, f.name)
		if err := corpus.Write(p, f.recs); err != nil {
			fmt.Fprintf(os.Stderr, "gen: %s: %v\n", p, err)
			os.Exit(1)
		}
		fmt.Printf("wrote %s (%d records)\n", p, len(f.recs))
	}
}
