package bleu

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func randTokens(r *rand.Rand, vocab, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", r.Intn(vocab))
		if r.Intn(20) == 0 {
			out[i] = strings.Repeat("x", 1+r.Intn(20)) // other hash lengths
		}
	}
	return out
}

// The packed counter must give the clipped counts of the general counter.
func TestPackedCounterMatchesCounter(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var c counter
	var pc packedCounter
	for trial := 0; trial < 3000; trial++ {
		vocab := []int{1, 2, 5, 50, 1000}[trial%5]
		hyp := randTokens(r, vocab, r.Intn(60))
		maxN := 1 + trial%4
		nrefs := 1 + r.Intn(4)
		refs := make([][]string, nrefs)
		for j := range refs {
			refs[j] = randTokens(r, vocab, r.Intn(60))
		}
		want, got := make([]int64, maxN), make([]int64, maxN)
		if len(hyp) > 0 {
			c.startHyp(hyp, maxN)
			require.True(t, pc.startHyp(hyp))
			for _, ref := range refs {
				if len(ref) == 0 {
					continue
				}
				c.addRefMax(c.refIDs(ref), maxN, want)
				pc.addRef(ref, got)
			}
			pc.finish(maxN, got)
		}
		require.Equal(t, want, got, "trial %d", trial)
	}
}

func TestPackedCounterFallsBackOnManyTokens(t *testing.T) {
	toks := make([]string, packedMaxIDs+1)
	for i := range toks {
		toks[i] = fmt.Sprint(i)
	}
	var pc packedCounter
	require.False(t, pc.startHyp(toks))
	require.True(t, pc.startHyp(toks[:packedMaxIDs]))
}

func randChars(r *rand.Rand, alphabet []rune, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(alphabet[r.Intn(len(alphabet))])
	}
	return b.String()
}

// chrF's packed character path must give the statistics of the general one, for fresh
// references and for references kept from the record before (several hypotheses in turn
// against the same references, as compare feeds a segment's systems).
func TestCharPackedMatchesCounter(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	many := []rune(" ")
	for r := rune('!'); r < '!'+90; r++ { // more than biMaxIDs characters: hashed bigrams
		many = append(many, r)
	}
	alphabets := [][]rune{[]rune("ab "), []rune("abcdefgh ,.\t"), []rune("aäöüß \u3000\u00a0xyz日本語"), []rune("abcdefghijklmnopqrstuvwxyz "), many}
	var cp charPacked
	var refs []string
	for trial := 0; trial < 3000; trial++ {
		alpha := alphabets[trial%len(alphabets)]
		maxN := 1 + trial/4%6 // changing every 4 records, so that references are kept
		ws := trial/4%7 == 0
		if trial%3 == 0 || maxN != cp.maxN || ws != cp.ws { // else the last record's references again
			refs = refs[:0]
			for range 1 + r.Intn(3) {
				refs = append(refs, randChars(r, alpha, r.Intn(200)))
			}
		}
		hyp := randChars(r, alpha, r.Intn(200))
		requirePackedIsCounter(t, &cp, refs, hyp, maxN, ws, trial%11 == 0)
	}
}

// requirePackedIsCounter requires cp's statistics of hyp against refs to be the general
// counter's. wrap makes this hypothesis wrap the hash path's 16-bit stamps.
func requirePackedIsCounter(t *testing.T, cp *charPacked, refs []string, hyp string, maxN int, ws, wrap bool) {
	t.Helper()
	m := &CHRF{whitespace: ws}
	ids := m.charIDs(nil, hyp)
	require.True(t, cp.useRefs(refs, maxN, ws))
	var c counter
	c.startGrams(len(ids) * maxN)
	c.countHyp(ids, maxN)
	for j, ref := range refs {
		want, got := make([]int64, maxN), make([]int64, maxN)
		c.newRef()
		rids := m.charIDs(nil, ref)
		c.refMatch(rids, maxN, want)
		if wrap {
			cp.refs[j].stamp = 1<<16 - 1
		}
		require.Equal(t, len(ids), cp.match(j, hyp, got))
		require.Equal(t, len(rids), cp.refChars(j))
		require.Equal(t, want, got, "refs %q hyp %q maxN %d ws %v: ref %d", refs, hyp, maxN, ws, j)
	}
}

// A record whose references do not fit packed keys takes the general path, also when the
// same references come again (the tables' verdict is kept with them).
func TestCharPackedFallsBack(t *testing.T) {
	var b strings.Builder
	for r := rune(0x4e00); r < 0x4e00+charMaxIDs+1; r++ {
		b.WriteRune(r)
	}
	var cp charPacked
	require.False(t, cp.useRefs([]string{"abc", b.String()}, 6, false), "more distinct characters than packed keys hold")
	require.False(t, cp.useRefs([]string{"abc", b.String()}, 6, false), "the same references again")
	require.True(t, cp.useRefs([]string{"abc"}, 6, false))
	require.False(t, cp.useRefs([]string{"abc"}, 7, false), "orders above 6")
	require.False(t, cp.useRefs([]string{strings.Repeat("a", 1<<16)}, 6, false), "16-bit counts")
	// And the metric still agrees with itself on such records through the general path.
	m := build(t, "chrf", nil)
	res := score(t, m, rec{b.String()[:300], []string{b.String()}})
	require.NotNil(t, res.Value)
}

// References around the bit-parallel path's limits (64 characters without whitespace for one
// word, bitChars in all) take one kernel or path or the other; all must give the general
// counter's statistics.
func TestCharPackedAtBitLimit(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	alpha := []rune("abcä日 ")
	var cp charPacked
	for _, n := range []int{63, 64, 65, 127, 128, 129, 191, 192, 193, bitChars - 1, bitChars, bitChars + 1} {
		for _, tail := range []string{"", "   ", "\u3000 ", "x", "ü"} {
			for _, ws := range []bool{false, true} {
				var b strings.Builder
				for b.Len() == 0 || len(new(CHRF).charIDs(nil, b.String())) < n {
					b.WriteRune(alpha[r.Intn(len(alpha)-1)]) // no space: exactly n characters
				}
				refs := []string{b.String() + tail, " " + b.String()}
				requirePackedIsCounter(t, &cp, refs, randChars(r, alpha, 150), charMaxN, ws, false)
				for j, ref := range refs {
					chars := len((&CHRF{whitespace: ws}).charIDs(nil, ref))
					require.Equal(t, chars <= bitChars, cp.refs[j].useBits, "n %d tail %q ws %v ref %d", n, tail, ws, j)
				}
			}
		}
	}
}

// FuzzCharPacked checks chrF's packed paths (bit-parallel and tables) against the general
// counter on arbitrary bytes, invalid UTF-8 included.
func FuzzCharPacked(f *testing.F) {
	f.Add("der Hund bellt", "Der  Hund bellte.", "ein Hund", uint8(6), false)
	f.Add("\xff\xfe a\x00b", "a\x00b \xff", "", uint8(3), true)
	f.Add(strings.Repeat("abc ", 40), strings.Repeat("ab c", 50), strings.Repeat("日本 ", 70), uint8(6), false)
	f.Fuzz(func(t *testing.T, hyp, ref1, ref2 string, n uint8, ws bool) {
		maxN := 1 + int(n)%charMaxN
		refs := []string{ref1, ref2}
		var cp charPacked
		if !cp.useRefs(refs, maxN, ws) {
			return // the general path's own tests cover such references
		}
		requirePackedIsCounter(t, &cp, refs, hyp, maxN, ws, false)
	})
}
