package bleu

import (
	"math/bits"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// charPacked is the fast path of chrF's character n-grams (orders <= 6): the characters of
// the hypothesis get ids 1..k (k <= 1023) in order of appearance, and a character n-gram is
// the exact 64-bit key id1 | id2<<10 | ... | id6<<50. Reference characters are looked up
// (0 when the hypothesis lacks them), and the matches of a reference are
// Σ_g min(hyp(g), ref(g)) per order, as counter.refMatch computes them.
type charPacked struct {
	ascii [utf8.RuneSelf]runeID
	other []runeSlot
	mask  uint32
	gen   uint32
	k     uint32
	ids   []uint64
	uni   []cslot // unigrams, indexed by character id
	grams cgramTable
	stamp uint16

	// Bigrams of a hypothesis with at most biMaxIDs distinct characters are indexed by
	// id1<<biBits | id2 (no hashing); bigen tells the current record's entries.
	bi    []cslot
	bigen uint16
	useBi bool
}

const (
	biBits   = 6
	biMaxIDs = 1<<biBits - 1
)

// cslot is one hypothesis n-gram of chrF in 16 bytes, so that the table of a long sentence
// (hundreds of n-grams of six orders) stays in the first-level cache. Counts fit 16 bits
// because the packed path takes hypotheses of fewer than 65536 characters, and a reference
// count is never raised beyond the hypothesis count (further occurrences add no match).
type cslot struct {
	key   uint64
	hyp   uint16
	ref   uint16
	stamp uint16 // the reference ref belongs to
	gen   uint16
}

// cgramTable counts the character n-grams (orders >= 2) of one hypothesis by packed key.
type cgramTable struct {
	slots []cslot
	shift uint8
	gen   uint16
}

func (t *cgramTable) reset(want int) {
	need := 16
	for need < 4*want {
		need <<= 1
	}
	if cap(t.slots) < need || cap(t.slots) > 64*need && cap(t.slots) > 1<<16 {
		t.slots = make([]cslot, need)
		t.gen = 0
	}
	t.slots = t.slots[:need]
	t.shift = uint8(64 - bits.TrailingZeros(uint(need)))
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
}

func (t *cgramTable) add(key uint64) {
	mask := uint64(len(t.slots) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> t.shift; ; i = (i + 1) & mask {
		s := slotAt(t.slots, i)
		if s.gen != t.gen {
			*s = cslot{key: key, gen: t.gen, hyp: 1}
			return
		}
		if s.key == key {
			s.hyp++
			return
		}
	}
}

func (t *cgramTable) find(key uint64) *cslot {
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

// resetRefs forgets every reference count (when the 16-bit reference stamp wraps).
func (c *charPacked) resetRefs() {
	for i := range c.grams.slots {
		c.grams.slots[i].ref, c.grams.slots[i].stamp = 0, 0
	}
	for i := range c.uni {
		c.uni[i].ref, c.uni[i].stamp = 0, 0
	}
	for i := range c.bi {
		c.bi[i].ref, c.bi[i].stamp = 0, 0
	}
	c.stamp = 1
}

// match counts one reference occurrence of a hypothesis n-gram and reports whether it is a
// match (the reference count is still within the hypothesis count).
func (c *charPacked) match(g *cslot) bool {
	if g.stamp != c.stamp {
		g.stamp, g.ref = c.stamp, 0
	}
	if g.ref < g.hyp {
		g.ref++
		return true
	}
	return false
}

const (
	charBits   = 10
	charMaxIDs = 1<<charBits - 1
	charMaxN   = 6
)

type runeID struct{ gen, id uint32 }

type runeSlot struct {
	r       rune
	gen, id uint32
}

// resetRunes starts a record whose hypothesis has at most n characters.
func (c *charPacked) resetRunes(n int) {
	c.gen++
	if c.gen == 0 {
		c.ascii = [utf8.RuneSelf]runeID{}
		clear(c.other)
		c.gen = 1
	}
	need := 16
	for need < 2*min(n, charMaxIDs+1) {
		need <<= 1
	}
	if len(c.other) < need {
		c.other = make([]runeSlot, need)
		c.mask = uint32(need - 1)
	}
	c.k = 0
}

// runeID returns the id of r, assigning the next one when add is set (0 when absent or
// when there are too many distinct characters).
func (c *charPacked) runeID(r rune, add bool) uint32 {
	if r >= 0 && r < utf8.RuneSelf {
		e := &c.ascii[r]
		if e.gen == c.gen {
			return e.id
		}
		if !add || c.k >= charMaxIDs {
			return 0
		}
		c.k++
		*e = runeID{gen: c.gen, id: c.k}
		return c.k
	}
	for j := (uint32(r) * 0x9E3779B9) >> 16 & c.mask; ; j = (j + 1) & c.mask {
		s := &c.other[j]
		if s.gen != c.gen {
			if !add || c.k >= charMaxIDs {
				return 0
			}
			c.k++
			*s = runeSlot{r: r, gen: c.gen, id: c.k}
			return c.k
		}
		if s.r == r {
			return s.id
		}
	}
}

// appendIDs appends the ids of the characters of s (without Python whitespace unless
// whitespace), interning new ones when add is set. It reports false when the hypothesis has
// more distinct characters than packed keys allow.
func (c *charPacked) appendIDs(dst []uint64, s string, whitespace, add bool) ([]uint64, bool) {
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			// ASCII: inline, the common case.
			i++
			if pySpaceASCII[b] && !whitespace {
				continue
			}
			if e := &c.ascii[b]; e.gen == c.gen {
				dst = append(dst, uint64(e.id))
				continue
			}
			id := c.runeID(rune(b), add)
			if id == 0 && add {
				return dst, false
			}
			dst = append(dst, uint64(id))
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if !whitespace && tokenize.PyIsSpace(r) {
			continue
		}
		id := c.runeID(r, add)
		if id == 0 && add {
			return dst, false
		}
		dst = append(dst, uint64(id))
	}
	return dst, true
}

// pySpaceASCII marks the ASCII characters Python's str.isspace() accepts.
var pySpaceASCII = func() (t [utf8.RuneSelf]bool) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		t[c] = tokenize.PyIsSpace(c)
	}
	return t
}()

// startHyp interns the hypothesis characters and counts its n-grams of orders 1..maxN. It
// returns the number of characters, or false when the packed path cannot take the record.
func (c *charPacked) startHyp(s string, maxN int, whitespace bool) (int, bool) {
	if maxN < 1 || maxN > charMaxN || len(s) >= 1<<16 {
		return 0, false
	}
	c.resetRunes(len(s))
	ids, ok := c.appendIDs(c.ids[:0], s, whitespace, true)
	c.ids = ids
	if !ok {
		return 0, false
	}
	if cap(c.uni) <= int(c.k) {
		c.uni = make([]cslot, charMaxIDs+1)
	}
	c.uni = c.uni[:c.k+1]
	clear(c.uni)
	c.useBi = c.k <= biMaxIDs && maxN >= 2
	hashed := maxN - 1
	if c.useBi {
		if c.bi == nil {
			c.bi = make([]cslot, 1<<(2*biBits))
		}
		c.bigen++
		if c.bigen == 0 {
			clear(c.bi)
			c.bigen = 1
		}
		hashed--
	}
	c.grams.reset(len(ids) * hashed)
	c.stamp = 0
	for i, id := range ids {
		c.uni[id].hyp++
		if i+1 >= len(ids) || maxN < 2 {
			continue
		}
		id2 := ids[i+1]
		key := id | id2<<charBits
		if c.useBi {
			e := &c.bi[id<<biBits|id2]
			if e.gen != c.bigen {
				*e = cslot{gen: c.bigen}
			}
			e.hyp++
		} else {
			c.grams.add(key)
		}
		// Orders 3..6 unrolled, like the packed counter of BLEU: a loop with a variable
		// shift cost as much as the table updates.
		if maxN < 3 || i+2 >= len(ids) {
			continue
		}
		key |= ids[i+2] << (2 * charBits)
		c.grams.add(key)
		if maxN < 4 || i+3 >= len(ids) {
			continue
		}
		key |= ids[i+3] << (3 * charBits)
		c.grams.add(key)
		if maxN < 5 || i+4 >= len(ids) {
			continue
		}
		key |= ids[i+4] << (4 * charBits)
		c.grams.add(key)
		if maxN < 6 || i+5 >= len(ids) {
			continue
		}
		c.grams.add(key | ids[i+5]<<(5*charBits))
	}
	return len(ids), true
}

// refMatch counts the character n-grams of one reference and adds Σ_g min(hyp(g), ref(g))
// per order to match[n-1]. It returns the number of reference characters.
func (c *charPacked) refMatch(s string, maxN int, whitespace bool, match []int64) int {
	ids, _ := c.appendIDs(c.ids[:0], s, whitespace, false)
	c.ids = ids
	c.stamp++
	if c.stamp == 0 {
		c.resetRefs()
	}
	match = match[:maxN]
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if c.match(&c.uni[id]) {
			match[0]++
		}
		if i+1 >= len(ids) || maxN < 2 {
			continue
		}
		id2 := ids[i+1]
		if id2 == 0 {
			continue
		}
		key := id | id2<<charBits
		var g *cslot
		if c.useBi {
			if e := &c.bi[id<<biBits|id2]; e.gen == c.bigen {
				g = e
			}
		} else {
			g = c.grams.find(key)
		}
		if g == nil {
			continue
		}
		if c.match(g) {
			match[1]++
		}
		// Unrolled like startHyp. An absent character or n-gram ends the longer n-grams.
		if maxN < 3 || i+2 >= len(ids) || ids[i+2] == 0 {
			continue
		}
		key |= ids[i+2] << (2 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.match(g) {
			match[2]++
		}
		if maxN < 4 || i+3 >= len(ids) || ids[i+3] == 0 {
			continue
		}
		key |= ids[i+3] << (3 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.match(g) {
			match[3]++
		}
		if maxN < 5 || i+4 >= len(ids) || ids[i+4] == 0 {
			continue
		}
		key |= ids[i+4] << (4 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.match(g) {
			match[4]++
		}
		if maxN < 6 || i+5 >= len(ids) || ids[i+5] == 0 {
			continue
		}
		if g = c.grams.find(key | ids[i+5]<<(5*charBits)); g != nil && c.match(g) {
			match[5]++
		}
	}
	return len(ids)
}
