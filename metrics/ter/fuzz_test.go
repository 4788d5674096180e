package ter

import (
	"strings"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

// FuzzTER: any text is scored without a panic, sentence scores are finite and the state
// obeys the merge laws.
func FuzzTER(f *testing.F) {
	f.Add("the cat sat on the mat", "the mat sat on the cat|a cat", uint8(0))
	f.Add("", "", uint8(1))
	f.Add("東京は。&amp; it's 3-4", "東京 は|", uint8(15))
	f.Add(strings.Repeat("a b ", 40), strings.Repeat("b a ", 50), uint8(2))
	f.Fuzz(func(t *testing.T, hyp, refs string, flags uint8) {
		m := build(t, map[string]any{
			"normalized": flags&1 != 0, "no_punct": flags&2 != 0,
			"asian_support": flags&4 != 0, "case_sensitive": flags&8 != 0,
		})
		rs := strings.Split(refs, "|")
		exs := []core.Example{*text(hyp, rs...), *text(refs, hyp), *text(hyp+" "+refs, rs[0])}
		for i := range exs {
			if m.Check(&exs[i]) != nil {
				return
			}
			v, ok := m.SentenceScore(&exs[i])
			if !ok || v != v || v < 0 {
				t.Fatalf("sentence score %v %v", v, ok)
			}
		}
		goldentest.CheckLaws(t, m, exs)
	})
}

// FuzzDecodeState: decoding arbitrary bytes never panics; a state that decodes is usable.
func FuzzDecodeState(f *testing.F) {
	m := build(f, nil)
	s := m.NewState()
	s.Add(text("the cat sat", "a cat sat", "the mat"), 2)
	s.Add(text("x", ""), 1)
	b, _ := s.MarshalBinary()
	f.Add(b)
	b, _ = m.NewState().MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := m.DecodeState(b)
		if err != nil {
			return
		}
		_ = d.Result()
		d.Add(text("a b", "b a"), 1)
		if err := d.Merge(m.NewState()); err != nil {
			t.Fatal(err)
		}
		if _, err := d.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
	})
}
