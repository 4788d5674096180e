package tokenize

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// randomText mixes words, capitals, punctuation, digits, hyphens, entities, whitespace of
// every kind, non-ASCII letters and the characters with special lowercase rules.
func randomText(r *rand.Rand) string {
	parts := []string{"the", "The", "THE", "running", "Connections", "relational", "U.S.", "e.g.",
		"don't", "3.5", "1,000", "10-20", "$5", "(see)", "\"quoted\"", "well-known", "&amp;", "&quot;",
		"<skipped>", "-\n", "Straße", "café", "İstanbul", "\u212aelvin", "ΟΔΟΣ", "中文", "，", "…",
		"\u00a0", "\u2028", "\x1c", "\t", "  ", "\xff", "a\xc2", ".,", "...", "5.", ".5", "-", "é"}
	var b strings.Builder
	for n := r.Intn(30); n > 0; n-- {
		b.WriteString(parts[r.Intn(len(parts))])
		if r.Intn(3) > 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func TestNewAppendMatchesNew(t *testing.T) {
	g := loadGolden(t)
	r := rand.New(rand.NewSource(1))
	inputs := append([]string{}, g.Inputs...)
	for i := 0; i < 3000; i++ {
		inputs = append(inputs, randomText(r))
	}
	for _, name := range Names() {
		fn, err := New(name)
		require.NoError(t, err)
		afn, err := NewAppend(name)
		require.NoError(t, err)
		var dst []string
		for i, in := range inputs {
			want := fn(in)
			prefix := []string{"x"}[:i%2]
			dst = afn(append(dst[:0], prefix...), in)
			require.Equal(t, orEmpty(want), orEmpty(dst[len(prefix):]), "%s input %q", name, in)
		}
	}
	_, err := NewAppend("nope")
	require.ErrorIs(t, err, ErrUnknown)
}

func TestRougeTokenizerMatchesRouge(t *testing.T) {
	g := loadGolden(t)
	r := rand.New(rand.NewSource(2))
	inputs := append([]string{}, g.Inputs...)
	for i := 0; i < 3000; i++ {
		inputs = append(inputs, randomText(r))
	}
	// Enough distinct words to evict cache slots many times over.
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, fmt.Sprintf("Word%dings relatedness%d connections", i, i%97))
	}
	for _, stem := range []bool{false, true} {
		rt := NewRougeTokenizer(stem)
		var held [][]string // tokens of the texts since the last Reset, with their copies
		var want [][]string
		var dst []string
		for i, in := range inputs {
			if i%7 == 0 {
				// Tokens handed out since the last Reset must still be intact.
				for k := range held {
					require.Equal(t, want[k], held[k])
				}
				rt.Reset()
				held, want = held[:0], want[:0]
			}
			exp := Rouge(in, stem)
			dst = rt.Append(dst[:0], in)
			require.Equal(t, orEmpty(exp), orEmpty(dst), "stem %v input %q", stem, in)
			held = append(held, append([]string(nil), dst...))
			want = append(want, append([]string(nil), exp...))
		}
	}
	g2 := loadGolden(t)
	rt := NewRougeTokenizer(true)
	for i, in := range g2.Inputs {
		require.Equal(t, g2.RougeStem[i], orEmpty(rt.Append(nil, in)), "golden input %d", i)
	}
}

func TestHashString(t *testing.T) {
	seen := map[uint64]string{}
	for i := 0; i < 100000; i++ {
		s := fmt.Sprint(i)
		if i%3 == 0 {
			s = strings.Repeat(s, 1+i%7)
		}
		h := HashString(s)
		if o, ok := seen[h]; ok && o != s {
			t.Fatalf("collision %q %q", o, s)
		}
		seen[h] = s
	}
	require.Equal(t, HashString("abc"), HashString(strings.Clone("abc")))
	require.NotEqual(t, HashString(""), HashString("\x00"))
}

func BenchmarkTokenizeAppend(b *testing.B) {
	for _, name := range Names() {
		fn, err := NewAppend(name)
		if err != nil {
			b.Fatal(err)
		}
		var dst []string
		b.Run(name, func(b *testing.B) { benchTokenizer(b, func(s string) []string { dst = fn(dst[:0], s); return dst }) })
	}
	for _, stem := range []bool{false, true} {
		rt := NewRougeTokenizer(stem)
		var dst []string
		b.Run(fmt.Sprintf("RougeTokenizer/stem=%v", stem), func(b *testing.B) {
			benchTokenizer(b, func(s string) []string { rt.Reset(); dst = rt.Append(dst[:0], s); return dst })
		})
	}
}

// The fast path of appendTokens must give the tokens of the general rules.
func TestFastPathMatchesGeneralRules(t *testing.T) {
	g := loadGolden(t)
	r := rand.New(rand.NewSource(3))
	inputs := append([]string{}, g.Inputs...)
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, randomText(r))
	}
	punct := "abc.,-5 \"()!?:;'`~"
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.Intn(20); n > 0; n-- {
			b.WriteByte(punct[r.Intn(len(punct))])
		}
		inputs = append(inputs, b.String())
	}
	for _, sc := range []scheme{scheme13a, schemeIntl, schemeZh} {
		for _, padded := range []bool{false, true} {
			for _, in := range inputs {
				fast := sc.appendTokens(nil, in, padded)
				generalOnly = true
				slow := sc.appendTokens(nil, in, padded)
				generalOnly = false
				require.Equal(t, slow, fast, "scheme %d padded %v input %q", sc, padded, in)
			}
		}
	}
}

// otherRun must stop where a byte-at-a-time scan of the class table stops.
func TestOtherRunMatchesByteScan(t *testing.T) {
	naive := func(tab *[256]class, s string, j int) int {
		for j < len(s) && tab[s[j]] == clsOther {
			j++
		}
		return j
	}
	tabs := []*[256]class{&byteClasses13a, &byteClassesIntl, &byteClassesZh}
	// Every byte value at every position of a run of letters, and random mixes.
	var inputs []string
	for c := 0; c < 256; c++ {
		for k := 0; k < 18; k++ {
			b := []byte("abcdefghijklmnopqrstuvwXYZ")
			b[k] = byte(c)
			inputs = append(inputs, string(b))
		}
	}
	r := rand.New(rand.NewSource(4))
	alphabet := "aZq'-.,5 \t\xc3\xa4\xc2\xa0\xe2\x80\x99@[`{\x7f\x00"
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.Intn(40))
		for k := range b {
			if r.Intn(3) == 0 {
				b[k] = alphabet[r.Intn(len(alphabet))]
			} else {
				b[k] = byte('a' + r.Intn(26) - 32*r.Intn(2))
			}
		}
		inputs = append(inputs, string(b))
	}
	for _, tab := range tabs {
		for _, s := range inputs {
			for j := 0; j <= len(s); j++ {
				require.Equal(t, naive(tab, s, j), otherRun(tab, s, j), "input %q from %d", s, j)
			}
		}
	}
}

// append13a tokenizes a line as it is unless it meets a byte pre13a may rewrite: it must give
// the tokens of the line after pre13a, with those bytes anywhere (also after a fast-path
// word, inside runs of [.,], after digits and hyphens), and leave dst's earlier tokens alone.
func TestAppend13aMatchesPre13a(t *testing.T) {
	g := loadGolden(t)
	r := rand.New(rand.NewSource(5))
	inputs := append([]string{}, g.Inputs...)
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, randomText(r))
	}
	pieces := []string{"a", "word", "5", "-", ".", ",", " ", "  ", "(", "'", "ä", "<", "&", "\n", "&lt;", "&amp;lt;", "<skipped>", "-\n", "&quot;", "&gt;"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.Intn(16); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		want := scheme13a.appendTokens([]string{"kept"}, pre13a(in), true)
		got := append13a([]string{"kept"}, in)
		require.Equal(t, want, got, "input %q", in)
	}
}

// TestRougeTokenizerAppendIDs: between two Resets, AppendIDs gives Rouge's tokens as ids that
// are equal exactly when the tokens are (a bijection), TokenID agrees with it, and the ids
// are below NumIDs; across enough distinct words to clear the vocabulary several times.
func TestRougeTokenizerAppendIDs(t *testing.T) {
	g := loadGolden(t)
	r := rand.New(rand.NewSource(4))
	inputs := append([]string{}, g.Inputs...)
	for i := 0; i < 3000; i++ {
		inputs = append(inputs, randomText(r))
	}
	for i := 0; i < 3*vocabMaxWords/2; i++ {
		inputs = append(inputs, fmt.Sprintf("Word%dings RELATEDNESS%d connections", i, i%97))
	}
	// Words of 7, 8, 9, 15, 16, 17 and more bytes (kept in the slot up to 16), in the middle
	// and at the end of the text (where they cannot be loaded eight bytes at a time).
	for _, w := range []string{"Abcdefg", "abcdefgh", "ABCDEFGHI", "abcdefghijklmno", "abcdefghijklmnop",
		"abcdefghijklmnopq", "Internationalization", "antidisestablishmentarianisms", "x1234567890123456y"} {
		for _, f := range []string{"%s", "%s.", "a %s b c d e f g h i j k l m n o p q r", "%s%s", "%s %s! 12"} {
			if strings.Count(f, "%s") == 2 {
				inputs = append(inputs, fmt.Sprintf(f, w, strings.ToLower(w)))
			} else {
				inputs = append(inputs, fmt.Sprintf(f, w))
			}
		}
	}
	// Capitalised words after their lowercase form (whose id they take without stemming), of
	// every length class, with digits and with the byte after the word a capital.
	for n := 1; n <= 18; n++ {
		low := "runningrelational1"[:n]
		for _, w := range []string{strings.ToUpper(low[:1]) + low[1:], strings.ToUpper(low), "X" + low[1:]} {
			inputs = append(inputs, fmt.Sprintf("%s %s %s,%sZ %s", low, w, w, w, low))
		}
	}
	for _, stem := range []bool{false, true} {
		rt := NewRougeTokenizer(stem)
		idOf := map[string]int32{}
		tokOf := map[int32]string{}
		var ids []int32
		clears := 0
		for i, in := range inputs {
			if i%7 == 0 {
				before := rt.NumIDs()
				rt.Reset()
				if rt.NumIDs() < before {
					clears++
					clear(idOf)
					clear(tokOf)
				}
			}
			want := Rouge(in, stem)
			prefix := []int32{-5}[:i%2]
			ids = rt.AppendIDs(append(ids[:0], prefix...), in)
			require.Len(t, ids, len(prefix)+len(want), "stem %v input %q", stem, in)
			for k, tok := range want {
				id := ids[len(prefix)+k]
				require.Less(t, int(id), rt.NumIDs())
				if prev, ok := idOf[tok]; ok {
					require.Equal(t, prev, id, "token %q", tok)
				} else {
					idOf[tok] = id
				}
				if prev, ok := tokOf[id]; ok {
					require.Equal(t, prev, tok, "id %d", id)
				} else {
					tokOf[id] = tok
				}
				require.Equal(t, id, rt.TokenID(tok))
			}
		}
		require.Positive(t, clears, "the vocabulary was never cleared")
	}
}

// alnum8 must mark exactly the bytes of [A-Za-z0-9], whatever their neighbours.
func TestAlnum8MatchesByteTable(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for c := 0; c < 256; c++ {
		for k := 0; k < 8; k++ {
			for rep := 0; rep < 8; rep++ {
				var b [8]byte
				for x := range b {
					b[x] = byte(r.Intn(256))
				}
				b[k] = byte(c)
				w := binary.LittleEndian.Uint64(b[:])
				got := alnum8(w)
				for x, v := range b {
					want := rougeByte[v] == 1 || rougeByte[v] == 2
					require.Equal(t, want, got>>(8*x+7)&1 == 1, "byte %#x at %d of %x", v, x, b)
				}
				require.Zero(t, got&^hi8, "bits other than the high ones")
			}
		}
	}
}

// FuzzRougeAppendIDs: AppendIDs gives Rouge's tokens, as ids equal exactly when the tokens
// are, whatever bytes surround the words (the 8- and 16-byte loads near the end of the text).
func FuzzRougeAppendIDs(f *testing.F) {
	for _, s := range []string{"", "Abcdefgh abcdefgh ABCDEFGHIJKLMNOPQ x", "a İb \u212a \xc4\xb0x", "12345678901234567 running"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for _, stem := range []bool{false, true} {
			rt := NewRougeTokenizer(stem)
			want := Rouge(s, stem)
			for pass := 0; pass < 2; pass++ { // a cold and a warm vocabulary
				ids := rt.AppendIDs(nil, s)
				require.Len(t, ids, len(want))
				for i := range want {
					for j := range want {
						require.Equal(t, want[i] == want[j], ids[i] == ids[j], "tokens %q %q", want[i], want[j])
					}
					require.Equal(t, rt.TokenID(want[i]), ids[i])
				}
			}
			checkLineIDs(t, rt, s)
		}
	})
}

// checkLineIDs: AppendLineIDs gives what AppendIDs gives line by line (the non-empty pieces
// between newlines), after earlier ids and ends.
func checkLineIDs(t *testing.T, rt *RougeTokenizer, s string) {
	t.Helper()
	wantIDs, wantEnds := []int32{-7}, []int{-3}
	for _, line := range strings.Split(s, "\n") {
		if line != "" {
			wantIDs = rt.AppendIDs(wantIDs, line)
			wantEnds = append(wantEnds, len(wantIDs))
		}
	}
	ids, ends := rt.AppendLineIDs([]int32{-7}, []int{-3}, s)
	require.Equal(t, wantIDs, ids, "input %q", s)
	require.Equal(t, wantEnds, ends, "input %q", s)
}

// TestRougeAppendLineIDs: lines of every kind (empty, without tokens, ending in a word or a
// separator, with the general path's capitals) and newlines next to words of every length.
func TestRougeAppendLineIDs(t *testing.T) {
	inputs := []string{"", "\n", "\n\n", "a", "a\n", "\na", "a\nb", "a\n\nb\n", "...\n\n, ;\nx", "Running fast.\nThe dogs\n",
		"abcdefgh\nabcdefghi\nabcdefghijklmnopq\nz", "word \n word", "İstanbul\nKelvin \u212a\n\nrunning", "a\nİ", "x\u2028y\rz\n"}
	r := rand.New(rand.NewSource(8))
	pieces := []string{"a", "Word", "running", "ABCDEFGHIJ", "abcdefghijklmnopqrs", "5", " ", ".", "\n", "\n\n", "é", "İ", "\u212a"}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for n := r.Intn(20); n > 0; n-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, stem := range []bool{false, true} {
		rt := NewRougeTokenizer(stem)
		for _, in := range inputs {
			checkLineIDs(t, rt, in)
		}
	}
}

// TestLowerID: a capitalised word of up to 16 bytes finds the id of its lowercase form when
// the vocabulary has that form as a word (so it is not stemmed again), and only then.
func TestLowerID(t *testing.T) {
	const text = "runningrelational"
	for n := 1; n <= 16; n++ {
		low := text[:n]
		rt := NewRougeTokenizer(true)
		id := rt.AppendIDs(nil, low)
		require.Len(t, id, 1, low)
		for _, tc := range []struct {
			word string
			ok   bool
		}{
			{strings.ToUpper(low[:1]) + low[1:], true},
			{strings.ToUpper(low), true},
			{low, false},                        // no capitals: the caller's lookup missed it
			{"Q" + low[1:], low[0] == 'q'},      // another word
			{strings.ToUpper(low[:n-1]), false}, // a prefix (none when n == 1)
		} {
			if tc.word == "" {
				continue
			}
			k0, k1 := shortKeyTail(tc.word)
			got, ok := rt.ep.lowerID(k0, k1, len(tc.word))
			require.Equal(t, tc.ok, ok, "%q after %q", tc.word, low)
			if ok {
				require.Equal(t, id[0], got, "%q after %q", tc.word, low)
			}
		}
	}
}
