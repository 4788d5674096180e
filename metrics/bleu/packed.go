package bleu

import (
	"math/bits"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// The packed counter is the fast path of the n-gram statistics for the common case: n-grams
// of order <= 4 over a hypothesis with fewer than 65535 distinct tokens. Tokens are interned
// to ids 1..k (exact: equal hashes are confirmed by comparing the strings), and an n-gram is
// the 64-bit key id1 | id2<<16 | id3<<32 | id4<<48, which is exact too: distinct n-grams
// (of any orders) have distinct keys. Reference tokens are only looked up; an absent token
// (id 0) or an absent n-gram ends the n-grams that start at that position, since every
// longer one contains it. The counter is scratch space owned by one state; the counts match
// counter's exactly (the tests compare both on the same records).

// packedMaxOrder and packedMaxIDs bound the packed path.
const (
	packedMaxOrder = 4
	packedMaxIDs   = 1<<16 - 1
)

// sslot is a slot of strIntern: the token's hash, its index in the token slice and its id.
type sslot struct {
	hash uint32
	idx  uint32
	id   uint32
	gen  uint32
}

// strIntern interns the strings of one token slice to ids 1..k. Slots carry a generation
// stamp, so reset costs nothing however large the table grew.
type strIntern struct {
	slots []sslot
	toks  []string
	mask  uint64
	gen   uint32
	n     uint32
}

func (t *strIntern) reset(toks []string) {
	t.toks = toks
	need := 16
	for need < 4*len(toks) {
		need <<= 1
	}
	// Only the first need slots are used, so that a small record works in a small, cached
	// part of a table a long record made large. Slots keep their stamps across sizes.
	if cap(t.slots) < need || cap(t.slots) > 64*need && cap(t.slots) > 1<<16 {
		t.slots = make([]sslot, need)
		t.gen = 0
	}
	t.slots = t.slots[:need]
	t.mask = uint64(need - 1)
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
	t.n = 0
}

// intern returns the id of toks[i], assigning the next one to a new token. The table never
// grows: reset sized it for every token.
func (t *strIntern) intern(i int) uint32 {
	s := t.toks[i]
	h := tokenize.HashString(s)
	for j := h & t.mask; ; j = (j + 1) & t.mask {
		sl := slotAt(t.slots, j)
		if sl.gen != t.gen {
			t.n++
			*sl = sslot{hash: uint32(h), idx: uint32(i), id: t.n, gen: t.gen}
			return t.n
		}
		if sl.hash == uint32(h) && t.toks[sl.idx] == s {
			return sl.id
		}
	}
}

// lookup returns the id of s, or 0.
func (t *strIntern) lookup(s string) uint32 {
	h := tokenize.HashString(s)
	for j := h & t.mask; ; j = (j + 1) & t.mask {
		sl := slotAt(t.slots, j)
		if sl.gen != t.gen {
			return 0
		}
		if sl.hash == uint32(h) && t.toks[sl.idx] == s {
			return sl.id
		}
	}
}

// gslot is one hypothesis n-gram: its key, hypothesis count, the count in the current
// reference (valid when stamp is current) and the largest count in one reference so far.
type gslot struct {
	key    uint64
	gen    uint32
	hyp    int32
	ref    int32
	stamp  uint32
	maxRef int32
	_      int32
}

// gramTable counts the n-grams of one hypothesis by packed key.
type gramTable struct {
	slots []gslot
	shift uint8
	gen   uint32
}

func (t *gramTable) reset(want int) {
	need := 16
	for need < 4*want {
		need <<= 1
	}
	if cap(t.slots) < need || cap(t.slots) > 64*need && cap(t.slots) > 1<<16 {
		t.slots = make([]gslot, need)
		t.gen = 0
	}
	t.slots = t.slots[:need] // see strIntern.reset
	t.shift = uint8(64 - bits.TrailingZeros(uint(need)))
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
}

// add counts one hypothesis n-gram. The table never grows: reset sized it for all of them.
func (t *gramTable) add(key uint64) {
	mask := uint64(len(t.slots) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> t.shift; ; i = (i + 1) & mask {
		s := slotAt(t.slots, i)
		if s.gen != t.gen {
			*s = gslot{key: key, gen: t.gen, hyp: 1}
			return
		}
		if s.key == key {
			s.hyp++
			return
		}
	}
}

// find returns the slot of key, or nil.
func (t *gramTable) find(key uint64) *gslot {
	mask := uint64(len(t.slots) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> t.shift; ; i = (i + 1) & mask {
		s := slotAt(t.slots, i)
		if s.gen != t.gen {
			return nil
		}
		if s.key == key {
			return s
		}
	}
}

// packedCounter computes clipped n-gram statistics like counter, for orders <= 4. A record
// goes through startHyp, addRef for every reference, then finish. Only the n-grams of
// orders >= 2 whose tokens all occur on the other side are counted: the hypothesis n-grams
// whose tokens all occur in some reference (the others cannot match), and the reference
// n-grams whose tokens all occur in the hypothesis. In translation output about half the
// tokens of a hypothesis occur in its reference, so most n-grams of orders 3 and 4 are
// never stored or looked up.
type packedCounter struct {
	toks   strIntern
	grams  gramTable // orders 2..4
	uni    []gslot   // unigrams, indexed by token id (no hashing: ids are dense)
	ids    []uint64  // hypothesis token ids
	refIDs []uint64  // the token ids of every reference in turn (0: not in the hypothesis)
	refEnd []int     // end of each reference in refIDs
	stamp  uint32
}

// startHyp interns the hypothesis tokens (which must stay unchanged until the record is
// done) and counts its unigrams. It reports false, doing nothing useful, when the
// hypothesis has too many distinct tokens for packed keys.
func (c *packedCounter) startHyp(toks []string) bool {
	c.toks.reset(toks)
	ids := c.ids[:0]
	for i := range toks {
		ids = append(ids, uint64(c.toks.intern(i)))
	}
	c.ids = ids
	if c.toks.n > packedMaxIDs {
		return false
	}
	if cap(c.uni) <= int(c.toks.n) {
		c.uni = make([]gslot, c.toks.n+1, max(2*c.toks.n, 64))
	}
	c.uni = c.uni[:c.toks.n+1]
	clear(c.uni)
	for _, id := range ids {
		c.uni[id].hyp++
	}
	c.stamp = 0
	c.refIDs, c.refEnd = c.refIDs[:0], c.refEnd[:0]
	return true
}

// addRef looks up the tokens of one reference, keeps their ids for finish, and folds its
// unigrams into the multiset union of references: m[0] gets the clipped unigram matches.
// A token that occurs in a reference has a unigram slot with maxRef > 0 afterwards.
func (c *packedCounter) addRef(toks []string, m []int64) {
	c.stamp++
	for _, t := range toks {
		id := uint64(c.toks.lookup(t))
		c.refIDs = append(c.refIDs, id)
		if id != 0 && c.refMax(&c.uni[id]) {
			m[0]++
		}
	}
	c.refEnd = append(c.refEnd, len(c.refIDs))
}

// finish counts the hypothesis n-grams of orders 2..maxN made of tokens that occur in a
// reference and folds every reference's n-grams into their multiset union, like
// counter.addRefMax: m[n-1] becomes the clipped match count of order n.
func (c *packedCounter) finish(maxN int, m []int64) {
	if maxN < 2 || len(c.refEnd) == 0 {
		return
	}
	ids, uni := c.ids, c.uni
	c.grams.reset(len(ids) * (maxN - 1))
	// The orders are unrolled: a loop over ids[i+1:i+maxN] with a variable shift cost more
	// than the table updates.
	for i, id := range ids {
		if uni[id].maxRef == 0 || i+1 >= len(ids) || uni[ids[i+1]].maxRef == 0 {
			continue
		}
		key := id | ids[i+1]<<16
		c.grams.add(key)
		if maxN < 3 || i+2 >= len(ids) || uni[ids[i+2]].maxRef == 0 {
			continue
		}
		key |= ids[i+2] << 32
		c.grams.add(key)
		if maxN < 4 || i+3 >= len(ids) || uni[ids[i+3]].maxRef == 0 {
			continue
		}
		c.grams.add(key | ids[i+3]<<48)
	}
	m = m[:maxN]
	start := 0
	for _, end := range c.refEnd {
		c.stamp++
		c.refGrams(c.refIDs[start:end], m)
		start = end
	}
}

// refGrams folds the n-grams of orders >= 2 of one reference (its token ids) into the
// multiset union of references. An absent token (id 0) or n-gram ends the n-grams that start
// at that position: every longer one contains it, and a key with a zero last token would be
// that of the shorter n-gram.
func (c *packedCounter) refGrams(ids []uint64, m []int64) {
	for i, id := range ids {
		if id == 0 || i+1 >= len(ids) || ids[i+1] == 0 {
			continue
		}
		key := id | ids[i+1]<<16
		g := c.grams.find(key)
		if g == nil {
			continue
		}
		if c.refMax(g) {
			m[1]++
		}
		if len(m) < 3 || i+2 >= len(ids) || ids[i+2] == 0 {
			continue
		}
		key |= ids[i+2] << 32
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.refMax(g) {
			m[2]++
		}
		if len(m) < 4 || i+3 >= len(ids) || ids[i+3] == 0 {
			continue
		}
		if g = c.grams.find(key | ids[i+3]<<48); g != nil && c.refMax(g) {
			m[3]++
		}
	}
}

// refMax counts one occurrence of a hypothesis n-gram in the current reference, raises its
// largest reference count, and reports whether that added a clipped match.
func (c *packedCounter) refMax(g *gslot) bool {
	if g.stamp != c.stamp {
		g.stamp, g.ref = c.stamp, 0
	}
	g.ref++
	if g.ref > g.maxRef {
		g.maxRef = g.ref
		return g.ref <= g.hyp
	}
	return false
}

// release drops the reference to the caller's tokens.
func (c *packedCounter) release() { c.toks.toks = nil }

// slotAt returns &slots[i] without a bounds check: the hash tables index with a mask of
// len(slots)-1 (a power of two minus one), which the compiler cannot prove in bounds.
func slotAt[T any](slots []T, i uint64) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(slots)), uintptr(i)*unsafe.Sizeof(slots[0])))
}
