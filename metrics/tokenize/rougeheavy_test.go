package tokenize

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// heavyWord is the word of rank k as written: short words (at most 8 bytes), words of 9 to 16
// bytes, words of more than 16 (each tokenizer's long map), numbers, and a capitalised or
// upper-case form now and then (the lowerID path).
func heavyWord(k int, r *rand.Rand) string {
	var b strings.Builder
	for x := k; ; x /= 26 {
		b.WriteByte(byte('a' + x%26))
		if x < 26 {
			break
		}
	}
	w := b.String()
	switch k % 8 {
	case 5:
		w = "re" + w + "ational" // 9 to 16 bytes
	case 6:
		w = "interconnection" + w + "ing" // more than 16 bytes
	case 7:
		w = fmt.Sprint(k)
	}
	switch r.Intn(10) {
	case 0:
		w = strings.ToUpper(w[:1]) + w[1:]
	case 1:
		w = strings.ToUpper(w)
	}
	return w
}

// heavyText is a text of Zipf-distributed words of ranks from base on, with the characters
// that send AppendIDs to its general path (appendIDsSlow) in about one text in 30.
func heavyText(r *rand.Rand, z *rand.Zipf, base int) string {
	seps := []string{" ", " ", " ", ", ", ".\n", " - ", "\n\n"}
	var b strings.Builder
	for n := 5 + r.Intn(30); n > 0; n-- {
		b.WriteString(heavyWord(base+int(z.Uint64()), r))
		b.WriteString(seps[r.Intn(len(seps))])
	}
	switch r.Intn(60) {
	case 0:
		b.WriteString("İstanbul")
	case 1:
		b.WriteString("\u212aelvin")
	}
	return b.String()
}

// TestRougeVocabHeavyTail: tokenizers on several goroutines share a vocabulary through a
// corpus of heavy-tailed word frequencies whose distinct words outnumber vocabMaxWords (so the
// vocabulary fills and tokens take local ids), then move on to other words (so it is retired).
// Within each Reset cycle of each tokenizer, ids and Rouge's tokens are a bijection, for shared
// and local ids alike, through AppendIDs, AppendLineIDs and TokenID of pre-tokenized input, and
// every id is below NumIDs; shared ids are a bijection with tokens per epoch across tokenizers
// and cycles.
func TestRougeVocabHeavyTail(t *testing.T) {
	const (
		workers = 3
		records = 4000 // per worker and phase
	)
	for _, stem := range []bool{false, true} {
		t.Run(fmt.Sprintf("stem=%v", stem), func(t *testing.T) {
			v := NewRougeVocab(stem)
			type tokKey struct {
				ep  *vocabEpoch
				tok string
			}
			type idKey struct {
				ep *vocabEpoch
				id int32
			}
			var byTok, byID, epochs sync.Map
			var locals, fullSeen atomic.Int64
			errs := make([]error, workers)
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewSource(int64(100 + w)))
					z := rand.NewZipf(r, 1.05, 1, 1<<21)
					rt := NewRougeTokenizerWith(v)
					cyc := map[string]int32{}
					rev := map[int32]string{}
					check := func(what, tok string, id int32) error {
						if int(id) >= rt.NumIDs() {
							return fmt.Errorf("%s: token %q: id %d >= NumIDs %d", what, tok, id, rt.NumIDs())
						}
						if prev, ok := cyc[tok]; ok {
							if prev != id {
								return fmt.Errorf("%s: token %q: id %d, earlier in the cycle %d", what, tok, id, prev)
							}
							return nil
						}
						if other, ok := rev[id]; ok {
							return fmt.Errorf("%s: tokens %q and %q: both id %d", what, tok, other, id)
						}
						cyc[tok], rev[id] = id, tok
						if rt.isLocal(id) {
							locals.Add(1)
							return nil
						}
						if prev, ok := byTok.LoadOrStore(tokKey{rt.ep, tok}, id); ok && prev.(int32) != id {
							return fmt.Errorf("%s: token %q: shared id %d, elsewhere %d", what, tok, id, prev)
						}
						if prev, ok := byID.LoadOrStore(idKey{rt.ep, id}, tok); ok && prev.(string) != tok {
							return fmt.Errorf("%s: tokens %q and %q: both shared id %d", what, tok, prev, id)
						}
						return nil
					}
					var ids []int32
					var ends []int
					for phase := 0; phase < 2; phase++ {
						for k := 0; k < records; k++ {
							rt.Reset()
							clear(cyc)
							clear(rev)
							epochs.Store(rt.ep, true)
							if rt.ep.full() {
								fullSeen.Add(1)
							}
							for n := 1 + r.Intn(3); n > 0; n-- {
								text := heavyText(r, z, phase<<24)
								want := Rouge(text, stem)
								switch r.Intn(4) {
								case 0: // pre-tokenized: TokenID of Rouge's tokens and of others
									for _, tok := range append(want, "", heavyWord(int(z.Uint64()), r)) {
										if errs[w] = check("TokenID", tok, rt.TokenID(tok)); errs[w] != nil {
											return
										}
									}
									continue
								case 1:
									ids, ends = rt.AppendLineIDs(ids[:0], ends[:0], text)
								default:
									ids = rt.AppendIDs(ids[:0], text)
								}
								if len(ids) != len(want) {
									errs[w] = fmt.Errorf("text %q: %d ids, want %d", text, len(ids), len(want))
									return
								}
								for i, tok := range want {
									if errs[w] = check("AppendIDs", tok, ids[i]); errs[w] != nil {
										return
									}
								}
							}
						}
					}
				}()
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			n := 0
			epochs.Range(func(any, any) bool { n++; return true })
			require.Greater(t, n, 1, "the vocabulary was never retired")
			require.Positive(t, fullSeen.Load(), "the vocabulary never filled")
			require.Positive(t, locals.Load(), "no token took a local id")
		})
	}
}

// TestRougeVocabRetiredSlowPath: a text that AppendIDs hands to its general path (it has
// U+0130) counts its tokens once towards retiring the vocabulary, as any other text: the
// local ids the fast path gave before it met U+0130 are given again by the general path.
// Here one token in five needs a local id, under retireShare's one in four, so the full
// vocabulary is kept.
func TestRougeVocabRetiredSlowPath(t *testing.T) {
	rt := NewRougeTokenizerWith(NewRougeVocab(false))
	rt.AppendIDs(nil, "i stanbul")
	for i := 0; !rt.ep.full(); i++ {
		rt.AppendIDs(nil, fmt.Sprintf("w%d", i))
	}
	first := rt.ep
	var ids []int32
	for i := 0; i < 2*retireWindow; i += 5 {
		rt.Reset()
		require.True(t, rt.ep == first, "retired after %d tokens", i)
		ids = rt.AppendIDs(ids[:0], fmt.Sprintf("w1 w2 new%d İstanbul", i)) // w1 w2 new i stanbul
		require.Len(t, ids, 5)
		require.True(t, rt.isLocal(ids[2]))
	}
}
