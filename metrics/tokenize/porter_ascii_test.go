package tokenize

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// porterSuffixes are the suffixes the rules test, and their replacements: stacked on stems,
// they reach every rule and condition, including the ones NLTK added.
var porterSuffixes = strings.Fields(`sses ies ss s ied eed ed ing at bl iz ate ble ize y
	ational tional enci anci izer bli alli entli eli ousli ization ation ator alism iveness
	fulness ousness aliti iviti biliti fulli logi icate ative alize iciti ical ful ness al
	ance ence er ic able ible ant ement ment ent ion sion tion ou ism iti ous ive e ll l
	tion ence ance al ic ous ful log ies *d`)

// TestPorterASCIIMatchesSteps: porterASCII gives porterSteps' stem for every word of 3 and
// 4 letters of a-z and '*', for the golden words, and for random stems of vowels, consonants
// and y with up to three suffixes stacked, of every length up to 64.
func TestPorterASCIIMatchesSteps(t *testing.T) {
	check := func(w string) {
		want := string(porterSteps([]byte(w)))
		got := string(porterASCII([]byte(w)))
		if got != want {
			require.Equal(t, want, got, "word %q", w)
		}
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz*"
	var b [4]byte
	for _, n := range []int{3, 4} {
		total := 1
		for range n {
			total *= len(alphabet)
		}
		for k := range total {
			for i, r := 0, k; i < n; i, r = i+1, r/len(alphabet) {
				b[i] = alphabet[r%len(alphabet)]
			}
			check(string(b[:n]))
		}
	}
	g := loadGolden(t)
	words := 0
	for word := range g.Porter {
		low := strings.ToLower(word)
		if len(low) >= 3 && len(low) <= 64 && isASCII(low) {
			check(low)
			words++
		}
	}
	require.Greater(t, words, 5000)
	r := rand.New(rand.NewSource(5))
	const letters = "aeiouyybcdfglllmnrssttwxz"
	for range 200_000 {
		var sb strings.Builder
		for range 1 + r.Intn(6) {
			sb.WriteByte(letters[r.Intn(len(letters))])
		}
		for range r.Intn(4) {
			sb.WriteString(porterSuffixes[r.Intn(len(porterSuffixes))])
		}
		w := sb.String()
		if len(w) < 3 {
			continue
		}
		check(w[:min(len(w), 64)])
	}
	long := strings.Repeat("ab", 32) // 64 letters, every bit of the mask
	for _, suf := range porterSuffixes {
		check(long[:64-len(suf)] + suf)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
