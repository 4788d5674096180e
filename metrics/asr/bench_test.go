package asr

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
)

// benchPairs returns n utterance pairs of 5 to 30 words from a Zipf-like vocabulary, the
// hypothesis with about 15% word errors (the shape of testdata in the WER speed report).
func benchPairs(n int) []core.Example {
	rng := rand.New(rand.NewSource(1))
	word := func() string { return fmt.Sprintf("w%d", int(rng.ExpFloat64()*300)) }
	exs := make([]core.Example, n)
	for i := range exs {
		ref := make([]string, 5+rng.Intn(26))
		var hyp []string
		for j := range ref {
			ref[j] = word()
			switch x := rng.Float64(); {
			case x < 0.05:
			case x < 0.12:
				hyp = append(hyp, word())
			case x > 0.97:
				hyp = append(hyp, ref[j], word())
			default:
				hyp = append(hyp, ref[j])
			}
		}
		exs[i] = core.Example{Values: []core.Value{
			{Kind: core.String, Str: strings.Join(hyp, " ")},
			{Kind: core.String, Str: strings.Join(ref, " ")},
		}, UTF8Checked: true}
	}
	return exs
}

func BenchmarkAdd(b *testing.B) {
	exs := benchPairs(1000)
	for _, bc := range []struct {
		typ  string
		opts map[string]any
	}{
		{"wer", nil},
		{"cer", nil},
		{"mer", map[string]any{"compat": "torchmetrics"}},
		{"wer", map[string]any{"lowercase": true, "remove_punctuation": true}},
	} {
		o := core.NewOptions(bc.opts)
		m, err := ctor(bc.typ, o)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s%v", bc.typ, bc.opts), func(b *testing.B) {
			s := m.NewState()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.Add(&exs[i%len(exs)], 1)
			}
		})
	}
}

// BenchmarkAlignLong is one pair of 3000 characters, which takes rapidfuzz's Hirschberg path.
func BenchmarkAlignLong(b *testing.B) {
	rng := rand.New(rand.NewSource(2))
	x := make([]int32, 3000)
	y := make([]int32, 3000)
	for i := range x {
		x[i], y[i] = int32(rng.Intn(30)), int32(rng.Intn(30))
	}
	var al aligner
	for i := 0; i < b.N; i++ {
		al.align(x, y)
	}
}
