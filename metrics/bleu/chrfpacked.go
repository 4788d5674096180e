package bleu

import (
	"math/bits"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// charPacked is the fast path of chrF's character n-grams (orders <= 6). It counts the
// n-grams of each reference in tables (charRef) and then looks up the hypothesis in them:
// the matches of a reference are Σ_g min(hyp(g), ref(g)) per order, as counter.refMatch
// computes them, whichever side is counted first. Counting the references first lets
// consecutive records with the same references (one segment's systems, as `compare` feeds
// them) reuse the tables: they are kept for the last record's references and rebuilt only
// when those differ. The tables depend on nothing but the reference, maxN and whitespace,
// so a record's statistics do not depend on what came before it.
type charPacked struct {
	refs []charRef
	keys [][]byte // copies of the references the tables were built from
	nref int      // references of the last record; refs[:nref] are its tables
	maxN int      // the options of the tables
	ws   bool
	ok   bool // every reference of the last record fits packed keys
	ids  []uint64
}

// charRef is the packed tables of one reference: the characters get ids 1..k (k <= 1023)
// in order of appearance, and a character n-gram is the exact 64-bit key id1 | id2<<10 |
// ... | id6<<50. Hypothesis characters are looked up (0 when the reference lacks them).
type charRef struct {
	ascii [utf8.RuneSelf]runeID
	other []runeSlot
	mask  uint32
	gen   uint32
	k     uint32
	chars int     // the reference's characters
	uni   []cslot // unigrams, indexed by character id
	grams cgramTable
	stamp uint16 // the hypothesis whose matches the slots' used counts are

	// Bigrams of a reference with at most biMaxIDs distinct characters are indexed by
	// id1<<biBits | id2 (no hashing); bigen tells the current reference's entries.
	bi    []cslot
	bigen uint16
	useBi bool
}

// useRefs makes refs (the record's prepared references) the references of the tables,
// rebuilding them unless they are the last record's. It reports false when the packed path
// cannot take the record (orders above 6, or a reference too long or with too many distinct
// characters for packed keys).
func (c *charPacked) useRefs(refs []string, maxN int, whitespace bool) bool {
	if maxN < 1 || maxN > charMaxN {
		return false
	}
	if c.nref == len(refs) && c.maxN == maxN && c.ws == whitespace && c.nref > 0 {
		same := true
		for j, r := range refs {
			if string(c.keys[j]) != r {
				same = false
				break
			}
		}
		if same {
			return c.ok
		}
	}
	for len(c.refs) < len(refs) {
		c.refs = append(c.refs, charRef{})
		c.keys = append(c.keys, nil)
	}
	c.nref, c.maxN, c.ws, c.ok = len(refs), maxN, whitespace, true
	for j, r := range refs {
		// Copied: a record's strings may alias a buffer the source reuses.
		c.keys[j] = append(c.keys[j][:0], r...)
	}
	for j, r := range refs {
		if !c.refs[j].build(&c.ids, r, maxN, whitespace) {
			c.ok = false
			break
		}
	}
	return c.ok
}

// refChars is the number of characters of reference j of the last useRefs.
func (c *charPacked) refChars(j int) int { return c.refs[j].chars }

// match adds Σ_g min(hyp(g), ref(g)) per order of the hypothesis s against reference j of
// the last useRefs to match[n-1] and returns the number of hypothesis characters.
func (c *charPacked) match(j int, s string, match []int64) int {
	r := &c.refs[j]
	ids, _ := r.appendIDs(c.ids[:0], s, c.ws, false)
	c.ids = ids
	r.matchHyp(ids, c.maxN, match)
	return len(ids)
}

const (
	biBits   = 6
	biMaxIDs = 1<<biBits - 1
)

// cslot is one reference n-gram of chrF in 16 bytes, so that the table of a long sentence
// (hundreds of n-grams of six orders) stays in the first-level cache. Counts fit 16 bits
// because the packed path takes references of fewer than 65536 characters, and the count of
// hypothesis occurrences (used) is never raised beyond the reference count (further
// occurrences add no match).
type cslot struct {
	key   uint64
	own   uint16 // occurrences in the reference
	used  uint16 // occurrences in the hypothesis, up to own
	stamp uint16 // the hypothesis used belongs to
	gen   uint16
}

// cgramTable counts the character n-grams (orders >= 2) of one reference by packed key.
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
			*s = cslot{key: key, gen: t.gen, own: 1}
			return
		}
		if s.key == key {
			s.own++
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

// resetUsed forgets every hypothesis count (when the 16-bit hypothesis stamp wraps).
func (c *charRef) resetUsed() {
	for i := range c.grams.slots {
		c.grams.slots[i].used, c.grams.slots[i].stamp = 0, 0
	}
	for i := range c.uni {
		c.uni[i].used, c.uni[i].stamp = 0, 0
	}
	for i := range c.bi {
		c.bi[i].used, c.bi[i].stamp = 0, 0
	}
	c.stamp = 1
}

// take counts one hypothesis occurrence of a reference n-gram and reports whether it is a
// match (the hypothesis count is still within the reference count).
func (c *charRef) take(g *cslot) bool {
	if g.stamp != c.stamp {
		g.stamp, g.used = c.stamp, 0
	}
	if g.used < g.own {
		g.used++
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

// resetRunes starts a reference of at most n characters.
func (c *charRef) resetRunes(n int) {
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
func (c *charRef) runeID(r rune, add bool) uint32 {
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
// whitespace), interning new ones when add is set. It reports false when the reference has
// more distinct characters than packed keys allow.
func (c *charRef) appendIDs(dst []uint64, s string, whitespace, add bool) ([]uint64, bool) {
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

// build interns the reference's characters (ids in scratch) and counts its n-grams of
// orders 1..maxN. It reports false when the packed path cannot take the reference.
func (c *charRef) build(scratch *[]uint64, s string, maxN int, whitespace bool) bool {
	if len(s) >= 1<<16 {
		return false
	}
	c.resetRunes(len(s))
	ids, ok := c.appendIDs((*scratch)[:0], s, whitespace, true)
	*scratch = ids
	if !ok {
		return false
	}
	c.chars = len(ids)
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
		c.uni[id].own++
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
			e.own++
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
	return true
}

// matchHyp looks up the character n-grams of a hypothesis (its ids in the reference's
// numbering) and adds Σ_g min(hyp(g), ref(g)) per order to match[n-1].
func (c *charRef) matchHyp(ids []uint64, maxN int, match []int64) {
	c.stamp++
	if c.stamp == 0 {
		c.resetUsed()
	}
	match = match[:maxN]
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if c.take(&c.uni[id]) {
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
		if c.take(g) {
			match[1]++
		}
		// Unrolled like build. An absent character or n-gram ends the longer n-grams.
		if maxN < 3 || i+2 >= len(ids) || ids[i+2] == 0 {
			continue
		}
		key |= ids[i+2] << (2 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.take(g) {
			match[2]++
		}
		if maxN < 4 || i+3 >= len(ids) || ids[i+3] == 0 {
			continue
		}
		key |= ids[i+3] << (3 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.take(g) {
			match[3]++
		}
		if maxN < 5 || i+4 >= len(ids) || ids[i+4] == 0 {
			continue
		}
		key |= ids[i+4] << (4 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		if c.take(g) {
			match[4]++
		}
		if maxN < 6 || i+5 >= len(ids) || ids[i+5] == 0 {
			continue
		}
		if g = c.grams.find(key | ids[i+5]<<(5*charBits)); g != nil && c.take(g) {
			match[5]++
		}
	}
}
