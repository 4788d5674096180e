package bleu

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// naiveCharMatches is Σ_g min(hyp(g), ref(g)) per order 1..maxN over rune n-grams, computed
// from the definition with maps: an oracle independent of counter and charPacked.
func naiveCharMatches(hyp, ref string, maxN int, ws bool) (match []int64, nh, nr int) {
	chars := func(s string) []rune {
		var out []rune
		for _, r := range s {
			if !ws && tokenize.PyIsSpace(r) {
				continue
			}
			out = append(out, r)
		}
		return out
	}
	h, rf := chars(hyp), chars(ref)
	match = make([]int64, maxN)
	for n := 1; n <= maxN; n++ {
		cnt := map[string]int{}
		for i := 0; i+n <= len(rf); i++ {
			cnt[string(rf[i:i+n])]++
		}
		for i := 0; i+n <= len(h); i++ {
			g := string(h[i : i+n])
			if cnt[g] > 0 {
				cnt[g]--
				match[n-1]++
			}
		}
	}
	return match, len(h), len(rf)
}

var reviewSpaces = []string{" ", "\t", "\n", "\v", "\f", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "\u0085", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u200b", "\u180e"}

func reviewRef(r *rand.Rand) string {
	var b strings.Builder
	small := []string{"a", "b", "c", "ä", "日", "\x00", "\xff", "\xe6\x97", "\ufffd", "A", "0"}
	piece := func() string {
		switch r.Intn(6) {
		case 0:
			return reviewSpaces[r.Intn(len(reviewSpaces))]
		case 1:
			return string(rune(0x4e00 + r.Intn(2000))) // many distinct non-ASCII
		case 2:
			return string(rune(r.Intn(128)))
		default:
			return small[r.Intn(len(small))]
		}
	}
	switch r.Intn(7) {
	case 0: // exactly bitChars-ish characters (+-2), then whitespace tail
		n := bitChars - 2 + r.Intn(5)
		for c := 0; c < n; {
			p := piece()
			if tokenize.PyIsSpace([]rune(p + "x")[0]) && p != "" {
				b.WriteString(p)
				continue
			}
			b.WriteString(p)
			c += utf8.RuneCountInString(p)
		}
		for k := r.Intn(4); k > 0; k-- {
			b.WriteString(reviewSpaces[r.Intn(len(reviewSpaces))])
		}
	case 1: // 128..256 characters
		for b.Len() < 128+r.Intn(300) {
			b.WriteString(piece())
		}
	case 2: // long, many distinct non-ASCII (around the 1023 ids of packed keys)
		d := 900 + r.Intn(140) // distinct non-ASCII characters
		for _, i := range r.Perm(d) {
			b.WriteRune(rune(0x4e00 + i))
			if r.Intn(8) == 0 {
				b.WriteString(string(rune('!' + r.Intn(90))))
			}
			if r.Intn(8) == 0 {
				b.WriteString(reviewSpaces[r.Intn(len(reviewSpaces))])
			}
		}
	case 3:
		for i := r.Intn(4); i > 0; i-- {
			b.WriteString(piece())
		}
	default:
		for i := r.Intn(140); i > 0; i-- {
			b.WriteString(piece())
		}
	}
	return b.String()
}

func reviewHyp(r *rand.Rand, refs []string) string {
	var b strings.Builder
	for k := r.Intn(6); k > 0; k-- {
		if len(refs) > 0 && r.Intn(2) == 0 {
			s := refs[r.Intn(len(refs))]
			if len(s) > 0 {
				i := r.Intn(len(s))
				j := i + r.Intn(len(s)-i+1)
				b.WriteString(s[i:j])
				continue
			}
		}
		b.WriteString(reviewRef(r)[:0] + strings.Repeat("ab", r.Intn(3)) + reviewSpaces[r.Intn(len(reviewSpaces))])
	}
	return b.String()
}

// Packed chrF against a map-based oracle, with one charPacked kept across records: refs
// reused with the same or other options, refs of both paths in one record.
func TestReviewCharPackedOracle(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	var cp charPacked
	var prev []string
	fallbacks := 0
	for trial := 0; trial < 6000; trial++ {
		maxN := 1 + r.Intn(charMaxN)
		if r.Intn(2) == 0 {
			maxN = charMaxN
		}
		ws := r.Intn(3) == 0
		var refs []string
		if prev != nil && r.Intn(3) == 0 {
			refs = prev
		} else {
			for k := 1 + r.Intn(3); k > 0; k-- {
				refs = append(refs, reviewRef(r))
			}
		}
		prev = refs
		// The source may reuse its buffer: hand useRefs copies.
		cpRefs := make([]string, len(refs))
		for j := range refs {
			cpRefs[j] = string([]byte(refs[j]))
		}
		if !cp.useRefs(cpRefs, maxN, ws) {
			// Only a reference with more distinct characters than packed keys hold may
			// fall back.
			over := false
			for _, ref := range refs {
				distinct := map[rune]bool{}
				for _, c := range ref {
					if ws || !tokenize.PyIsSpace(c) || c < utf8.RuneSelf {
						distinct[c] = true
					}
				}
				over = over || len(distinct) > charMaxIDs || len(ref) >= 1<<16
			}
			require.True(t, over, "trial %d: useRefs false for refs of few characters", trial)
			fallbacks++
			continue
		}
		for h := 1 + r.Intn(3); h > 0; h-- {
			hyp := reviewHyp(r, refs)
			for j, ref := range refs {
				want, nh, nr := naiveCharMatches(hyp, ref, maxN, ws)
				got := make([]int64, maxN)
				require.Equal(t, nh, cp.match(j, hyp, got), "trial %d", trial)
				require.Equal(t, nr, cp.refChars(j), "trial %d", trial)
				require.Equal(t, want, got, "trial %d ref %d maxN %d ws %v bits %v\nhyp %q\nref %q", trial, j, maxN, ws, cp.refs[j].useBits, hyp, ref)
			}
		}
	}
	t.Logf("fallbacks %d", fallbacks)
}

// The 16-bit hypothesis stamp of the tables wraps after 65535 hypotheses against the same
// references: the counts of the hypotheses before must not leak into the ones after.
func TestReviewCharPackedStampWrap(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	// Both references longer than the bit-parallel path takes: the tables have the stamps.
	refs := []string{randChars(r, []rune("abcdä日"), bitChars+44), randChars(r, []rune("ab"), bitChars+1)}
	m := &CHRF{}
	var c counter
	var cp charPacked
	for i := 0; i < 140000; i++ {
		require.True(t, cp.useRefs(refs, charMaxN, false))
		// The n-grams of "dddd" are taken by hypotheses 65536 apart and by none in between: a
		// stamp that comes round again must not find their old counts.
		hyp := randChars(r, []rune("ab c"), 1+r.Intn(12))
		if i%65536 == 0 {
			hyp = "dddd"
		}
		ids := m.charIDs(nil, hyp)
		c.startGrams(len(ids) * charMaxN)
		c.countHyp(ids, charMaxN)
		for j, ref := range refs {
			want, got := make([]int64, charMaxN), make([]int64, charMaxN)
			c.newRef()
			c.refMatch(m.charIDs(nil, ref), charMaxN, want)
			cp.match(j, hyp, got)
			if !slicesEqual(want, got) {
				require.Equal(t, want, got, "hyp %d %q ref %d", i, hyp, j)
			}
		}
	}
	require.False(t, cp.refs[0].useBits)
	require.False(t, cp.refs[1].useBits)
}

func slicesEqual(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
