package rouge

import (
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

// scratch holds the reusable buffers of one example's computation. A State owns one (so Add
// does not allocate in the steady state); SentenceScore takes one from a pool. After done,
// nothing in it refers to the example's strings (which may alias the source's buffers).
type scratch struct {
	in   interner
	rt   *tokenize.RougeTokenizer // the rouge tokenizer (with its stem cache), when used
	toks []string                 // tokens of the text being loaded
	seq  []int32                  // token ids: the candidate's, then each reference's (or each sentence's)
	ends []int                    // ends[i] is the end offset in seq of sequence i
	kc   int                      // distinct candidate tokens: the candidate's ids are 0..kc-1

	lcs bitLCS
	tab lcsTable

	// n-grams
	levels    []u64Interner // levels[k] interns (id of a (k+1)-gram, next token) → id of a (k+2)-gram
	cur, next []int32
	gramN     int
	grams     []int32 // n-gram ids of every sequence, laid out like seq (n >= 2)
	gEnds     []int
	cnt, rcnt []int32 // per n-gram id: candidate count, current reference count

	triples []triple
	mark    []bool
	idx     []int32
	bounds  []int
}

// reset starts a new example.
func (sc *scratch) reset() {
	sc.in.reset()
	if sc.rt != nil {
		sc.rt.Reset()
	}
	sc.seq = sc.seq[:0]
	sc.ends = sc.ends[:0]
	sc.triples = sc.triples[:0]
}

// done drops the references to the example's strings.
func (sc *scratch) done() {
	sc.in.reset()
	clear(sc.toks)
}

// push appends one token sequence.
func (sc *scratch) push(toks []string) {
	sc.seq = sc.in.appendIDs(sc.seq, toks)
	sc.ends = append(sc.ends, len(sc.seq))
}

// at returns sequence i.
func (sc *scratch) at(i int) []int32 {
	start := 0
	if i > 0 {
		start = sc.ends[i-1]
	}
	return sc.seq[start:sc.ends[i]]
}

// load interns the candidate (sequence 0) and every reference (sequences 1..k) of a checked
// example.
func (sc *scratch) load(t textOpts, pred, refs core.Value) {
	sc.reset()
	sc.push(t.predTokens(sc, pred))
	sc.kc = sc.in.n()
	for i, n := 0, textinput.Count(refs); i < n; i++ {
		sc.push(t.refTokens(sc, refs, i))
	}
}

// ngrams computes the n-gram ids of every loaded sequence (exact: an id stands for one token
// n-tuple) and returns how many distinct n-grams there are. gram(i) then returns the n-gram
// ids of sequence i.
func (sc *scratch) ngrams(n int) int {
	sc.gramN = n
	if n == 1 {
		return sc.in.n()
	}
	for len(sc.levels) < n-1 {
		sc.levels = append(sc.levels, u64Interner{})
	}
	for k := range sc.levels[:n-1] {
		sc.levels[k].reset(len(sc.seq))
	}
	sc.grams = sc.grams[:0]
	sc.gEnds = sc.gEnds[:0]
	for i := range sc.ends {
		s := sc.at(i)
		if len(s) >= n {
			// a holds the (k-1)-gram ids at every position, b receives the k-gram ids.
			a, b := append(sc.cur[:0], s...), sc.next
			for k := 2; k <= n; k++ {
				lv := &sc.levels[k-2]
				b = b[:0]
				for j := 0; j+k <= len(s); j++ {
					key := uint64(uint32(a[j]))<<32 | uint64(uint32(s[j+k-1]))
					b = append(b, lv.intern(key))
				}
				a, b = b, a
			}
			sc.grams = append(sc.grams, a...)
			sc.cur, sc.next = a, b
		}
		sc.gEnds = append(sc.gEnds, len(sc.grams))
	}
	return int(sc.levels[n-2].n)
}

// gram returns the n-gram ids of sequence i after ngrams.
func (sc *scratch) gram(i int) []int32 {
	if sc.gramN == 1 {
		return sc.at(i)
	}
	start := 0
	if i > 0 {
		start = sc.gEnds[i-1]
	}
	return sc.grams[start:sc.gEnds[i]]
}

// counts returns zeroed count arrays for k n-gram ids.
func (sc *scratch) counts(k int) (cnt, rcnt []int32) {
	sc.cnt = zeroed(sc.cnt, k)
	sc.rcnt = zeroed(sc.rcnt, k)
	return sc.cnt, sc.rcnt
}

func zeroed[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}
