package asr

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
	"github.com/stretchr/testify/require"
)

// jiwerWordsSlow is jiwer's wer_default spelled out step by step, as its Python does it:
// re.sub(r"\s\s+", " ", s), s.strip(), then [w for w in s.split(" ") if w].
func jiwerWordsSlow(s string) []string {
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && tokenize.PyIsSpace(rs[j]) {
			j++
		}
		switch {
		case j-i >= 2:
			b.WriteByte(' ')
			i = j
		default:
			b.WriteRune(rs[i])
			i++
		}
	}
	stripped := strings.TrimFunc(b.String(), tokenize.PyIsSpace)
	var out []string
	for _, w := range strings.Split(stripped, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func FuzzJiwerWords(f *testing.F) {
	for _, s := range []string{"", " a  b ", "a\tb", "a\u00a0\u00a0b", "\x1c\x1da", "a \u3000b\u2028", "x\u200by"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		require.Equal(t, jiwerWordsSlow(s), jiwerWords(nil, s), "%q", s)
	})
}

// FuzzMetrics checks that no input makes a metric panic, that a checked record scores a
// finite value or a null with a reason, and that the counts stay consistent.
func FuzzMetrics(f *testing.F) {
	f.Add("the cat", "the hat", false, false)
	f.Add("", "", true, true)
	f.Add("A, b", "\ta  b", true, false)
	f.Fuzz(func(t *testing.T, pred, ref string, lower, punct bool) {
		for _, typ := range []string{"wer", "cer", "mer", "wil", "wip"} {
			for _, opts := range []map[string]any{
				{"lowercase": lower, "remove_punctuation": punct},
				{"compat": "torchmetrics"},
			} {
				m := build(t, typ, opts)
				e := ex(pred, []any{ref})
				if m.Check(&e) != nil {
					continue
				}
				s := m.NewState()
				s.Add(&e, 2)
				r := s.Result()
				if r.Value == nil {
					require.NotEmpty(t, r.Reason)
				} else {
					v := r.Value.(float64)
					require.False(t, v != v, "NaN")
				}
				st := s.(*State)
				require.LessOrEqual(t, max(st.hits+st.subs+st.dels, st.hits+st.subs+st.in), st.longer)
			}
		}
	})
}
