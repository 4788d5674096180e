package bleu

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// recurringCorpus returns records whose reference sets recur, as when many systems are scored
// on one test set: hypotheses are random, references come from a small pool of sets (one
// string, or lists of 1-3 strings including empty ones, duplicates and punctuation for 13a).
func recurringCorpus(r *rand.Rand, n int) []core.Example {
	words := []string{"the", "The", "cat", "sat", "on", "mat", "a", "dog", "is", "there", "1,000", "U.S.", "end.", "&amp;", "\"x\"", "(y)", "ÄÖ", "-", "3-4", "…"}
	sentence := func() string {
		w := make([]string, r.Intn(30))
		for i := range w {
			w[i] = words[r.Intn(len(words))]
		}
		return strings.Join(w, " ")
	}
	pool := make([]core.Value, 40)
	for i := range pool {
		switch i % 4 {
		case 0:
			pool[i] = core.Value{Kind: core.String, Str: sentence()}
		default:
			refs := make([]string, 1+r.Intn(3))
			for j := range refs {
				refs[j] = sentence()
			}
			if i%8 == 3 {
				refs[0] = "" // an empty reference
			}
			pool[i] = core.Value{Kind: core.StringList, Strs: refs}
		}
	}
	pool = append(pool, pool[1]) // the same set twice in the pool
	exs := make([]core.Example, n)
	for i := range exs {
		exs[i] = core.Example{Seq: uint64(i), Values: []core.Value{{Kind: core.String, Str: sentence()}, pool[r.Intn(len(pool))]}}
		if i%10 == 0 {
			exs[i].Values[0] = core.Value{Kind: core.StringList, Strs: strings.Fields(sentence())} // pre-tokenized
		}
	}
	return exs
}

// Records that hit the reference cache must give exactly the statistics of the per-record
// path: the states' bytes, results and sentence scores are compared with the cache off.
func TestRefCacheGivesTheSameResults(t *testing.T) {
	optionSets := []map[string]any{
		nil,
		{"lowercase": true},
		{"tokenize": "none"},
		{"tokenize": "intl", "ngram": 2},
		{"ngram": 1},
		{"compat": "mindnlp", "tokenize": "13a"},
		{"compat": "nltk", "smooth": "method3", "tokenize": "13a"},
		{"compat": "nltk", "smooth": "method5", "tokenize": "13a"}, // 5-grams: no cache
		{"compat": "ignite", "tokenize": "13a", "smooth": "smooth2"},
		{"average": "macro", "effective_order": true},
	}
	defer func(b int) { refCacheMaxBytes = b }(refCacheMaxBytes)
	for i, opts := range optionSets {
		for _, capBytes := range []int{16 << 20, 4096} { // 4096: the cache starts over often
			t.Run(fmt.Sprintf("%d/%v/cap%d", i, opts, capBytes), func(t *testing.T) {
				refCacheMaxBytes = capBytes
				exs := recurringCorpus(rand.New(rand.NewSource(int64(i))), 3000)
				run := func(off bool) ([]byte, core.Result, []float64) {
					refCacheOff = off
					defer func() { refCacheOff = false }()
					m := build(t, "bleu", opts)
					st := m.NewState()
					var sent []float64
					for j := range exs {
						require.NoError(t, m.Check(&exs[j]))
						st.Add(&exs[j], 1)
						if j%7 == 0 {
							v, _ := m.(core.SentenceScorer).SentenceScore(&exs[j])
							sent = append(sent, v)
						}
					}
					b, err := st.MarshalBinary()
					require.NoError(t, err)
					return b, st.Result(), sent
				}
				wantB, wantR, wantS := run(true)
				gotB, gotR, gotS := run(false)
				require.Equal(t, wantB, gotB)
				require.Equal(t, wantR, gotR)
				require.Equal(t, wantS, gotS)
			})
		}
	}
}

// The cache is keyed by the reference strings: a different set with a known hash, or a set
// that differs in one reference, is never taken for a cached one.
func TestRefCacheKeysAreExact(t *testing.T) {
	m := build(t, "bleu", nil).(*Metric)
	var c refCache
	a := core.Value{Kind: core.StringList, Strs: []string{"a b c", "d e"}}
	b := core.Value{Kind: core.StringList, Strs: []string{"a b c", "d f"}}
	require.Nil(t, c.entryFor(m, a), "first sighting: not cached")
	ea := c.entryFor(m, a)
	require.NotNil(t, ea)
	require.Same(t, ea, c.entryFor(m, a))
	require.Nil(t, c.entryFor(m, b))
	// A forged collision: b's entry stored under a's hash is not returned for a.
	eb := m.buildRefEntry(&c, b)
	c.entries[refKeyHash(a)] = eb
	require.NotSame(t, eb, c.entryFor(m, a))
	// The entry owns its strings: changing the caller's buffer does not change it.
	buf := []byte("x y z")
	v := core.Value{Kind: core.String, Str: unsafeString(buf)}
	c.entryFor(m, v)
	e := c.entryFor(m, v)
	require.NotNil(t, e)
	buf[0] = 'q'
	require.Equal(t, "x y z", e.refs[0])
	require.Equal(t, []string{"x", "y", "z"}, e.toks)
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// States of one metric share its caches across goroutines (run with -race).
func TestRefCacheConcurrentStates(t *testing.T) {
	m := build(t, "bleu", nil)
	exs := recurringCorpus(rand.New(rand.NewSource(9)), 2000)
	want := m.NewState()
	for i := range exs {
		want.Add(&exs[i], 1)
	}
	wantB, err := want.MarshalBinary()
	require.NoError(t, err)
	states := make([]core.State, 4)
	var wg sync.WaitGroup
	for g := range states {
		states[g] = m.NewState()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(exs); i += len(states) {
				states[g].Add(&exs[i], 1)
			}
		}()
	}
	wg.Wait()
	for _, s := range states[1:] {
		require.NoError(t, states[0].Merge(s))
	}
	gotB, err := states[0].MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, wantB, gotB)
}
