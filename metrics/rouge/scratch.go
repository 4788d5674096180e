package rouge

import (
	"iter"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/freshmem"
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
	// distinct is the number of distinct tokens after load (ids are 0..distinct-1).
	distinct int
	// After load with the rouge tokenizer: lines[k] is the end offset in seq of line k of
	// the texts, textLines[i] the number of lines of texts 0..i (-1 with other tokenizers).
	lines, textLines []int
	// viewing is set when seq, ends, lines and textLines are views of a memo entry (load);
	// own... are then sc's own buffers.
	viewing                         bool
	ownSeq                          []int32
	ownEnds, ownLines, ownTextLines []int

	// The rouge tokenizer's ids (global to its vocabulary) become the example's dense ids
	// through gloc: slot g (gloc[g/glocChunk][g%glocChunk]) holds the id when its stamp is
	// lgen, the example's (one slot per id, so a lookup touches one cache line). The slots
	// come in chunks, added as the vocabulary grows: a growing flat table would be copied,
	// and every copy is fresh memory (page faults, ~2.5 µs each in a VM).
	gloc []*[glocChunk]stampedID
	lgen uint32
	nloc int32

	lcs    bitLCS
	lsum   lsumLCS
	memo   *loaded // the memo entry of the example, when load used one
	lcsBuf []int32

	// n-grams
	levels    []u64Interner // levels[k] interns (id of a (k+1)-gram, next token) → id of a (k+2)-gram
	cur, next []int32
	// overlaps' bigram counts of the candidate by slot first*kc + second, valid where the
	// stamp is ovGen
	ov        []stampedCount
	ovGen     uint32
	gramN     int
	grams     []int32 // n-gram ids of every sequence, laid out like seq (n >= 2)
	gEnds     []int
	cnt, rcnt []int32 // per n-gram id: candidate count, current reference count (overlaps: candidate unigram counts, their copy)

	triples []triple
	marks   []uint64 // rougeLsum's union of LCS indices of one reference sentence, a bit per token
	bounds  []int
}

// glocChunk is the number of slots of a chunk of gloc (8 KiB).
const glocChunk = 1024

// stampedID is an id valid in the generation stamp (one example's ids in gloc).
type stampedID struct {
	stamp uint32
	id    int32
}

// reset starts a new example.
func (sc *scratch) reset() {
	sc.own()
	sc.memo = nil
	sc.in.reset()
	sc.lgen++
	if sc.lgen == 0 {
		for _, c := range sc.gloc {
			clear(c[:])
		}
		sc.lgen = 1
	}
	sc.nloc = 0
	if sc.rt != nil {
		sc.rt.Reset()
	}
	sc.seq, sc.ends, sc.lines, sc.textLines = sc.seq[:0], sc.ends[:0], sc.lines[:0], sc.textLines[:0]
	sc.triples = sc.triples[:0]
}

// own makes seq, ends, lines and textLines sc's own buffers again after load made them
// views of a memo entry (which must never be written through them).
func (sc *scratch) own() {
	if sc.viewing {
		sc.seq, sc.ends, sc.lines, sc.textLines = sc.ownSeq, sc.ownEnds, sc.ownLines, sc.ownTextLines
		sc.viewing = false
		return
	}
	// Keep what the buffers grew to.
	sc.ownSeq, sc.ownEnds, sc.ownLines, sc.ownTextLines = sc.seq, sc.ends, sc.lines, sc.textLines
}

// done drops the references to the example's strings.
func (sc *scratch) done() {
	sc.in.reset()
	clear(sc.toks)
}

// nIDs is the number of distinct tokens of the example so far: its ids are 0..nIDs()-1.
// An example's ids all come from the interner (tokenizers other than rouge's) or all from
// the rouge tokenizer through gloc, so one of the two terms is 0.
func (sc *scratch) nIDs() int { return sc.in.n() + int(sc.nloc) }

// localize turns the rouge tokenizer's ids in seq[from:] into the example's dense ids.
func (sc *scratch) localize(from int) {
	for n := sc.rt.NumIDs(); len(sc.gloc)*glocChunk < n; {
		c := new([glocChunk]stampedID)
		freshmem.Touch(c[:]) // its first access is a read
		sc.gloc = append(sc.gloc, c)
	}
	gloc, gen, nloc := sc.gloc, sc.lgen, sc.nloc
	seq := sc.seq[from:]
	for k, g := range seq {
		// Whether a token is new to the example is a coin toss for the branch predictor:
		// the slot is rewritten either way, with the id chosen by a conditional move.
		sl := &gloc[uint32(g)/glocChunk][uint32(g)%glocChunk]
		id, add := sl.id, int32(0)
		if sl.stamp != gen {
			id, add = nloc, 1
		}
		*sl = stampedID{stamp: gen, id: id}
		nloc += add
		seq[k] = id
	}
	sc.nloc = nloc
}

// lcsLengths returns the LCS length of the candidate (sequence 0) and each reference
// (sequence j+1) at index j, computed once per example and memo entry. The slice is valid
// until the next reset; the caller must not modify it.
func (sc *scratch) lcsLengths() []int32 {
	if l := sc.memo; l != nil && l.lcsOK {
		return l.lcs
	}
	out := sc.lcsBuf[:0]
	if sc.memo != nil {
		out = sc.memo.lcs[:0]
	}
	sc.lcs.load(sc.at(0), sc.kc, sc.distinct)
	for j := 1; j < len(sc.ends); j++ {
		out = append(out, int32(sc.lcs.length(sc.at(j))))
	}
	if sc.memo != nil {
		sc.memo.lcs, sc.memo.lcsOK = out, true
	} else {
		sc.lcsBuf = out
	}
	return out
}

// push appends one token sequence.
func (sc *scratch) push(toks []string) {
	sc.seq = sc.in.appendIDs(sc.seq, toks)
	sc.ends = append(sc.ends, len(sc.seq))
}

// at returns sequence i.
func (sc *scratch) at(i int) []int32 { return sc.span(sc.ends, i) }

// span returns the tokens from ends[i-1] (0 for i = 0) to ends[i] of seq.
func (sc *scratch) span(ends []int, i int) []int32 {
	start := 0
	if i > 0 {
		start = ends[i-1]
	}
	return sc.seq[start:ends[i]]
}

// load interns the candidate (sequence 0) and every reference (sequences 1..k) of a checked
// example, or copies them from ex.Memo when a metric with the same text options loaded the
// same values of the record. With the rouge tokenizer it also records the lines of each
// text (rougeLsum's sentences): see pushValue.
func (sc *scratch) load(t textOpts, ex *core.Example) {
	pred, refs := ex.Values[0], ex.Values[1]
	id := loadedID{pred: identify(pred), refs: identify(refs)}
	v, current := ex.Memo.Lookup(t.memoKey)
	l, _ := v.(*loaded)
	sc.reset()
	if current && l != nil && l.id == id {
		// Read-only views of the memo's buffers, until the next reset (see own).
		sc.seq, sc.ends, sc.lines, sc.textLines = l.seq, l.ends, l.lines, l.textLines
		sc.viewing = true
		sc.kc, sc.distinct = l.kc, l.distinct
		sc.memo = l
		return
	}
	sc.pushValue(t, pred, true, 0)
	sc.kc = sc.nIDs()
	for i, n := 0, textinput.Count(refs); i < n; i++ {
		sc.pushValue(t, refs, false, i)
	}
	sc.distinct = sc.nIDs()
	if ex.Memo != nil {
		if l == nil {
			l = new(loaded)
		}
		l.id, l.kc, l.distinct = id, sc.kc, sc.distinct
		l.seq = append(l.seq[:0], sc.seq...)
		l.ends = append(l.ends[:0], sc.ends...)
		l.lines = append(l.lines[:0], sc.lines...)
		l.textLines = append(l.textLines[:0], sc.textLines...)
		l.lcsOK = false
		ex.Memo.Store(t.memoKey, l)
		sc.memo = l
	}
}

// pushValue appends the prediction, or reference i of the references, as one sequence.
// Pre-tokenized text is one line. A string is tokenized line by line (the pieces between
// "\n", empty ones dropped, as rouge-score's get_sents does for rougeLsum) when the tokenizer
// is rouge's, whose tokens never span a newline, so the sequence is the tokens of the whole
// text (TestRougeTokensByLine); other tokenizers see the whole text, and the lines are not
// recorded (sc.textLines[i] = -1).
func (sc *scratch) pushValue(t textOpts, v core.Value, isPred bool, i int) {
	var s string
	switch {
	case v.Kind == core.String:
		s = v.Str
	case isPred: // a list of strings is the prediction's tokens
		sc.pushTokens(t, v.Strs)
		return
	case v.Kind == core.StringList:
		s = v.Strs[i]
	default:
		sc.pushTokens(t, v.Lists[i])
		return
	}
	if t.fn != nil {
		sc.seq = sc.in.appendIDs(sc.seq, t.text(sc, s))
		sc.endText(-1)
		return
	}
	rt := t.rouge(sc)
	from := len(sc.seq)
	if t.lower {
		for line := range lines(s) {
			sc.seq = rt.AppendIDs(sc.seq, t.lowered(line))
			sc.endLine()
		}
	} else {
		sc.seq, sc.lines = rt.AppendLineIDs(sc.seq, sc.lines, s)
	}
	sc.localize(from)
	sc.endText(len(sc.lines))
}

// lines yields the pieces of s between "\n", except empty ones: rouge-score's get_sents
// (rougeLsum's sentences, split_summaries off).
func lines(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s != "" {
			line := s
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				line, s = s[:i], s[i+1:]
			} else {
				s = ""
			}
			if line != "" && !yield(line) {
				return
			}
		}
	}
}

// pushTokens appends pre-tokenized text (lowercased when t asks): one sequence of one line.
func (sc *scratch) pushTokens(t textOpts, toks []string) {
	if t.fn == nil {
		rt := t.rouge(sc)
		from := len(sc.seq)
		for _, tok := range toks {
			sc.seq = append(sc.seq, rt.TokenID(t.lowered(tok)))
		}
		sc.localize(from)
	} else {
		sc.seq = sc.in.appendIDs(sc.seq, t.tokens(toks))
	}
	sc.endLine()
	sc.endText(len(sc.lines))
}

func (sc *scratch) endLine() { sc.lines = append(sc.lines, len(sc.seq)) }
func (sc *scratch) endText(lines int) {
	sc.ends = append(sc.ends, len(sc.seq))
	sc.textLines = append(sc.textLines, lines)
}

// loaded is what load stores in a core.Memo: the token ids of one example.
type loaded struct {
	id               loadedID
	seq              []int32
	ends             []int
	lines, textLines []int
	kc, distinct     int
	// lcs[j] is the LCS length of the candidate and reference j, when lcsOK (rouge_l and
	// rouge_lsum of one-line texts both need it).
	lcs   []int32
	lcsOK bool
}

// loadedID identifies the prediction and references values of a record by the memory they
// occupy (not by content, which would cost as much as tokenizing): two metrics of the record
// that read the same fields see the same memory. Addresses only, so that nothing of the
// record is kept alive; a Memo entry is only used for the record it was stored for.
type loadedID struct{ pred, refs valueID }

type valueID struct {
	kind                core.Kind
	str, strs, lists    uintptr
	nStr, nStrs, nLists int
}

func identify(v core.Value) valueID {
	return valueID{
		kind: v.Kind,
		str:  uintptr(unsafe.Pointer(unsafe.StringData(v.Str))), nStr: len(v.Str),
		strs: uintptr(unsafe.Pointer(unsafe.SliceData(v.Strs))), nStrs: len(v.Strs),
		lists: uintptr(unsafe.Pointer(unsafe.SliceData(v.Lists))), nLists: len(v.Lists),
	}
}

// ngrams computes the n-gram ids of every loaded sequence (exact: an id stands for one token
// n-tuple) and returns how many distinct n-grams there are. gram(i) then returns the n-gram
// ids of sequence i.
func (sc *scratch) ngrams(n int) int {
	sc.gramN = n
	if n == 1 {
		return sc.distinct
	}
	return sc.hashedGrams(n)
}

// hashedGrams is ngrams(n) for n >= 2 through one hash table per n-gram length.
func (sc *scratch) hashedGrams(n int) int {
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

// maxPairTokens bounds the distinct tokens of a candidate for which overlaps counts its
// bigrams in a table indexed by both token ids (at most 256² slots of 8 bytes).
const maxPairTokens = 256

// stampedCount is a count valid in the generation stamp (one reference's pass of overlaps).
type stampedCount struct {
	stamp uint32
	n     int32
}

// overlaps appends to sc.triples the n-gram counts of the candidate (sequence 0) against each
// reference, rouge-score's: match = Σ_g min(c_cand(g), c_ref(g)), for n = 1, and for n = 2
// with a candidate of at most maxPairTokens distinct tokens. The tokens are the ids 0..distinct-1,
// the candidate's 0..kc-1, so its n-grams index a table of distinct (n = 1) or kc² + spares
// (n = 2) slots directly (no hashing, no n-gram ids); a reference bigram with a token >= kc
// occurs in no candidate bigram and reads a spare slot, which no count reaches. Each
// reference n-gram takes one from its slot while any is left. The candidate's unigrams are
// counted once per example, and the slots a reference touched are restored from a copy
// before the next one (so a reference costs O(|ref|), not O(distinct)); its bigrams are
// counted afresh per reference (O(|cand|), under a new stamp).
func (sc *scratch) overlaps(n int) {
	if n == 1 {
		sc.unigramOverlaps()
		return
	}
	kc := sc.kc
	cand := sc.at(0)
	for j := 1; j < len(sc.ends); j++ {
		ref := sc.at(j)
		tab, gen := sc.bigramTable(kc)
		countBigrams(tab, cand, kc, gen)
		match := takeBigrams(tab, ref, kc, gen)
		sc.triples = append(sc.triples, triple{
			match: int64(match), cand: int64(max(len(cand)-1, 0)), ref: int64(max(len(ref)-1, 0))})
	}
}

// unigramOverlaps is overlaps for n = 1.
func (sc *scratch) unigramOverlaps() {
	cand := sc.at(0)
	// A slot per token id (4 bytes each, like the ids themselves): a reference token reads
	// its own, with no test of whether it is the candidate's.
	cnt := zeroed(sc.cnt, sc.distinct)
	sc.cnt = cnt
	for _, a := range cand {
		cnt[a]++
	}
	if len(sc.ends) == 2 {
		sc.triples = append(sc.triples, triple{match: int64(takeUnigrams(cnt, sc.at(1))), cand: int64(len(cand)), ref: int64(len(sc.at(1)))})
		return
	}
	orig := append(sc.rcnt[:0], cnt...)
	sc.rcnt = orig
	for j := 1; j < len(sc.ends); j++ {
		if j > 1 {
			for _, a := range sc.at(j - 1) {
				cnt[a] = orig[a]
			}
		}
		ref := sc.at(j)
		sc.triples = append(sc.triples, triple{match: int64(takeUnigrams(cnt, ref)), cand: int64(len(cand)), ref: int64(len(ref))})
	}
}

// spares is the number of spare slots of overlaps' bigram table. A reference bigram that is
// no candidate's reads and writes (unchanged) spare i%spares at position i: a single spare
// would chain every such step to the last one through memory.
const spares = 8

// bigramTable returns overlaps' table for a candidate of kc distinct tokens (kc² slots, then
// the spares) and a new generation stamp. The table is sized by the largest candidate (at
// most 256² + spares slots of 8 bytes).
func (sc *scratch) bigramTable(kc int) ([]stampedCount, uint32) {
	need := kc*kc + spares
	if len(sc.ov) < need {
		// At least doubled, and room for 64 tokens at first (32 KiB): the sizes of examples
		// rise a little at a time, and each new table is fresh memory (page faults) until
		// the garbage collector runs.
		sc.ov = freshmem.Make[stampedCount](min(max(need, 2*len(sc.ov), 64*64+spares), maxPairTokens*maxPairTokens+spares))
		sc.ovGen = 0
	}
	sc.ovGen++
	if sc.ovGen == 0 {
		clear(sc.ov)
		sc.ovGen = 1
	}
	return sc.ov[:need], sc.ovGen
}

// The steps below are conditional moves, not branches: whether an n-gram was seen before, or
// is left in the candidate, is a coin toss for the branch predictor.

// takeUnigrams returns the overlap of ref with the candidate counts cnt (one per token id),
// taking the matches from cnt.
func takeUnigrams(cnt []int32, ref []int32) int32 {
	var match int32
	for _, a := range ref {
		c := cnt[a]
		take := int32(uint32(-c) >> 31) // c > 0
		match += take
		cnt[a] = c - take
	}
	return match
}

// countBigrams counts the bigrams of the candidate cand (tokens < kc) in tab, stamped gen.
func countBigrams(tab []stampedCount, cand []int32, kc int, gen uint32) {
	for i := 1; i < len(cand); i++ {
		sl := &tab[int(cand[i-1])*kc+int(cand[i])]
		c := sl.n
		if sl.stamp != gen {
			c = 0
		}
		*sl = stampedCount{stamp: gen, n: c + 1}
	}
}

// takeBigrams returns the bigram overlap of ref with the counts of countBigrams, taking the
// matches from tab.
func takeBigrams(tab []stampedCount, ref []int32, kc int, gen uint32) int32 {
	spare := kc * kc
	var match int32
	for i := 1; i < len(ref); i++ {
		a, b := int(ref[i-1]), int(ref[i])
		out := ((kc - 1 - a) | (kc - 1 - b)) >> (bits.UintSize - 1) // -1 when a >= kc or b >= kc, else 0
		sl := &tab[(a*kc+b)&^out|(spare+i%spares)&out]
		c := sl.n
		if sl.stamp != gen {
			c = 0
		}
		take := int32(uint32(-c) >> 31) // c > 0
		match += take
		sl.n = c - take
	}
	return match
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
		// At least doubled, as the sizes of examples rise a little at a time.
		return freshmem.Make[T](max(n, 2*cap(b)))[:n] // counted with ++
	}
	b = b[:n]
	clear(b)
	return b
}
