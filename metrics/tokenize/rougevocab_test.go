package tokenize

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRougeVocabShared: tokenizers on several goroutines share one RougeVocab, each taking the
// inputs in its own order, while the vocabulary is renewed several times. Within one epoch
// every tokenizer gives each token the same id (checked across goroutines), ids are a
// bijection with tokens, below NumIDs, and agree with TokenID; the tokens are Rouge's. Run with
// -race it also checks the lock-free lookups' publication of slots and tables.
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
							if prev, loaded := agreed.LoadOrStore(key{rt.ep, tok}, id); loaded && prev.(int32) != id {
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
		})
	}
}

// TestRougeVocabTokenBound: tokens added by TokenID alone (pre-tokenized input) count against
// the vocabulary's bounds as words do, so short distinct tokens renew it past vocabMaxWords
// tokens instead of growing it until their bytes reach vocabMaxBytes.
func TestRougeVocabTokenBound(t *testing.T) {
	rt := NewRougeTokenizerWith(NewRougeVocab(false))
	rt.Reset()
	first := rt.ep
	for i := 0; i <= vocabMaxWords; i++ {
		rt.TokenID(fmt.Sprintf("%x", i)) // at most 5 bytes: far below vocabMaxBytes in all
	}
	require.Less(t, first.nBytes, vocabMaxBytes)
	require.Equal(t, vocabMaxWords+2, rt.NumIDs()) // the empty token's id and one per token
	rt.Reset()
	require.NotSame(t, first, rt.ep, "a vocabulary of more than vocabMaxWords tokens is renewed")
	require.Equal(t, 1, rt.NumIDs())
	require.Equal(t, int32(1), rt.TokenID("a"))
}
