package tokenize

import (
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRougeVocabShared: tokenizers on several goroutines share one RougeVocab, each taking the
// inputs in its own order, while the vocabulary fills, gives local ids and is renewed. Within
// one epoch every tokenizer gives each token the same shared id (checked across goroutines)
// and shared ids are a bijection with tokens; every id is below NumIDs and agrees with TokenID
// (local ids included, within the tokenizer's Reset cycle: TestRougeVocabHeavyTail checks
// them against each other); the tokens are Rouge's. Run with -race it also checks the
// lock-free lookups' publication of slots and tables.
func TestRougeVocabShared(t *testing.T) {
	g := loadGolden(t)
	r := rand.New(rand.NewSource(11))
	inputs := append([]string{}, g.Inputs...)
	for i := 0; i < 2000; i++ {
		inputs = append(inputs, randomText(r))
	}
	// Words of every length class (short, up to 16 bytes, longer), two new ones per input,
	// so the epochs turn over while the tokenizers run.
	for i := 0; i < 3*vocabMaxWords/4; i++ {
		inputs = append(inputs, fmt.Sprintf("W%d ab%dcdefgh Internationalization%d x", i, i, i%50))
	}
	for _, stem := range []bool{false, true} {
		t.Run(fmt.Sprintf("stem=%v", stem), func(t *testing.T) {
			v := NewRougeVocab(stem)
			type key struct {
				ep  *vocabEpoch
				tok string
			}
			var agreed sync.Map // key -> id, the first tokenizer's
			epochs := sync.Map{}
			var locals atomic.Int64
			const workers = 3
			var wg sync.WaitGroup
			errs := make([]error, workers)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rt := NewRougeTokenizerWith(v)
					var ids []int32
					for k := range inputs {
						in := inputs[(k*(2*w+1)+w*len(inputs)/workers)%len(inputs)]
						if k%5 == 0 {
							rt.Reset()
						}
						epochs.Store(rt.ep, true)
						want := Rouge(in, stem)
						ids = rt.AppendIDs(ids[:0], in)
						if len(ids) != len(want) {
							errs[w] = fmt.Errorf("input %q: %d ids, want %d", in, len(ids), len(want))
							return
						}
						for i, tok := range want {
							id := ids[i]
							if int(id) >= rt.NumIDs() {
								errs[w] = fmt.Errorf("token %q: id %d >= NumIDs %d", tok, id, rt.NumIDs())
								return
							}
							if rt.isLocal(id) {
								// The tokenizer's own until its next Reset: TokenID agrees below.
								locals.Add(1)
							} else if prev, loaded := agreed.LoadOrStore(key{rt.ep, tok}, id); loaded && prev.(int32) != id {
								errs[w] = fmt.Errorf("token %q: id %d, another tokenizer's %d", tok, id, prev)
								return
							}
							if got := rt.TokenID(tok); got != id {
								errs[w] = fmt.Errorf("token %q: AppendIDs %d, TokenID %d", tok, id, got)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			for _, err := range errs {
				require.NoError(t, err)
			}
			// Ids are a bijection with tokens within each epoch.
			tokOf := map[key]string{}
			agreed.Range(func(k, id any) bool {
				kk := key{k.(key).ep, fmt.Sprint(id)}
				if prev, ok := tokOf[kk]; ok {
					require.Equal(t, prev, k.(key).tok, "id %v", id)
				}
				tokOf[kk] = k.(key).tok
				return true
			})
			n := 0
			epochs.Range(func(any, any) bool { n++; return true })
			require.Greater(t, n, 1, "the vocabulary was never renewed")
			require.Positive(t, locals.Load(), "no token took a local id")
		})
	}
}

// TestRougeVocabTokenBound: tokens added by TokenID alone (pre-tokenized input) count against
// the vocabulary's bounds as words do, so short distinct tokens fill it at vocabMaxWords
// tokens instead of growing it until their bytes reach vocabMaxBytes. A full vocabulary takes
// no more tokens: the others get local ids, the same for the same token until Reset, which
// forgets them and keeps the vocabulary while it serves most tokens.
func TestRougeVocabTokenBound(t *testing.T) {
	rt := NewRougeTokenizerWith(NewRougeVocab(false))
	rt.Reset()
	first := rt.ep
	for i := 0; i <= vocabMaxWords; i++ {
		rt.TokenID(fmt.Sprintf("%x", i)) // at most 5 bytes: far below vocabMaxBytes in all
	}
	require.Less(t, first.nBytes, vocabMaxBytes)
	require.True(t, first.full())
	base := int32(vocabMaxWords + 2) // the empty token's id and one per token
	require.Equal(t, int(base), rt.NumIDs())
	require.Equal(t, base, rt.TokenID("new1"))
	require.Equal(t, base+1, rt.TokenID("new2"))
	require.Equal(t, base, rt.TokenID("new1"))
	require.Equal(t, int32(1), rt.TokenID("0"), "a token of the vocabulary keeps its id")
	require.Equal(t, int(base)+2, rt.NumIDs())
	rt.Reset()
	require.Same(t, first, rt.ep, "a vocabulary that serves most tokens is kept")
	require.Equal(t, int(base), rt.NumIDs())
	require.Equal(t, base, rt.TokenID("new2"), "local ids start again after Reset")
}

// TestRougeVocabRetired: a full vocabulary that no longer serves a tokenizer's tokens (more
// than one in retireShare of retireWindow tokens took local ids) is replaced by a new, empty
// one at the tokenizer's next Reset, which then takes the new tokens; one that serves them
// is kept.
func TestRougeVocabRetired(t *testing.T) {
	for _, moved := range []bool{false, true} {
		rt := NewRougeTokenizerWith(NewRougeVocab(true))
		for i := 0; !rt.ep.full(); i++ {
			rt.AppendIDs(nil, fmt.Sprintf("w%d", i))
		}
		first := rt.ep
		ids := []int32{}
		for i := 0; i < 2*retireWindow; i++ {
			if i%64 == 0 {
				rt.Reset()
				if rt.ep != first {
					break
				}
			}
			text := "w1 w2 w3 w4 w5 w6 w7 w8" // in the vocabulary
			if moved {
				text = fmt.Sprintf("new%d x%d w1 w2", i, i) // half the tokens are new
			}
			ids = rt.AppendIDs(ids[:0], text)
		}
		rt.Reset()
		if !moved {
			require.Same(t, first, rt.ep)
			continue
		}
		require.NotSame(t, first, rt.ep, "the vocabulary was not replaced")
		require.False(t, rt.ep.full())
		require.Equal(t, []int32{1, 2}, rt.AppendIDs(nil, "new w1"), "the new vocabulary takes tokens")
	}
}

// isLocal reports whether id is one of the tokenizer's local ids (valid until its next Reset).
func (t *RougeTokenizer) isLocal(id int32) bool {
	return t.ep.full() && id >= t.ep.ids.Load()
}
