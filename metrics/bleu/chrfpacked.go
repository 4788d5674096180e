package bleu

import (
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// charPacked is the fast path of chrF's character n-grams (orders <= 6). It prepares each
// reference (charRef: sets of positions per character for a reference of at most bitChars
// characters, see bitRef; else tables of its n-grams) and then matches the hypothesis
// against it: the matches of a reference are Σ_g min(hyp(g), ref(g)) per order, as
// counter.refMatch computes them. Preparing the references first lets
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
	ids  []uint16
}

// charRef is the packed tables of one reference: the characters get ids 1..k (k <= 1023)
// in order of appearance, and a character n-gram is the exact 64-bit key id1 | id2<<10 |
// ... | id6<<50. Hypothesis characters are looked up (0 when the reference lacks them).
type charRef struct {
	ascii    [utf8.RuneSelf]uint16 // ids of ASCII characters: 0 absent, skipID skipped whitespace
	asciiSet []byte                // the ASCII characters with ids, to forget them
	other    []runeSlot
	mask     uint32
	gen      uint32
	k        uint32
	chars    int      // the reference's characters
	uni      []ccount // unigrams, indexed by character id
	grams    cgramTable
	stamp    uint16 // the hypothesis whose matches the slots' used counts are

	// Bigrams of a reference with at most biMaxIDs distinct characters are indexed by
	// id1*(k+1) + id2 (no hashing), so that they take the first (k+1)² entries;
	// bigen tells the current reference's entries.
	bi       []ccount
	biStride uint64
	bigen    uint16
	useBi    bool

	// A reference of at most bitChars characters takes the bit-parallel path instead
	// of the ids and tables above.
	bits    bitRef
	useBits bool
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
	if r.useBits {
		ids := r.bits.lookupIDs(c.ids[:0], s, c.ws)
		c.ids = ids
		r.bits.match(ids, c.maxN, match)
		return len(ids)
	}
	ids := r.lookupIDs(c.ids[:0], s, c.ws)
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
	key uint64
	ccount
}

// ccount is the counts of one reference n-gram.
type ccount struct {
	own   uint16 // occurrences in the reference
	used  uint16 // occurrences in the hypothesis, up to own
	stamp uint16 // the hypothesis used belongs to
	gen   uint16 // the table's generation the entry belongs to
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
			*s = cslot{key: key, ccount: ccount{gen: t.gen, own: 1}}
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

// take counts one hypothesis occurrence of a reference n-gram and returns 1 when it is a
// match (the hypothesis count is still within the reference count), else 0. Written
// without branches: whether an n-gram comes again is data, and mispredicted.
func (c *charRef) take(g *ccount) int64 {
	used := g.used
	if g.stamp != c.stamp {
		used = 0
	}
	var hit uint16
	if used < g.own {
		hit = 1
	}
	g.used, g.stamp = used+hit, c.stamp
	return int64(hit)
}

const (
	charBits   = 10
	charMaxIDs = 1<<charBits - 1
	charMaxN   = 6
)

type runeSlot struct {
	r       rune
	gen, id uint32
}

// skipID is the id of the ASCII whitespace chrF removes (it never reaches the id lists).
const skipID = 1<<16 - 1

// resetRunes starts a reference of at most n characters.
func (c *charRef) resetRunes(n int, whitespace bool) {
	for _, b := range c.asciiSet {
		c.ascii[b] = 0
	}
	c.asciiSet = c.asciiSet[:0]
	for _, b := range pySpacesASCII {
		c.ascii[b] = 0
		if !whitespace {
			c.ascii[b] = skipID
		}
	}
	c.gen++
	if c.gen == 0 {
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

// otherID returns the id of the non-ASCII rune r, assigning the next one when add is set
// (0 when absent or when there are too many distinct characters).
func (c *charRef) otherID(r rune, add bool) uint16 {
	for j := (uint32(r) * 0x9E3779B9) >> 16 & c.mask; ; j = (j + 1) & c.mask {
		s := &c.other[j]
		if s.gen != c.gen {
			if !add || c.k >= charMaxIDs {
				return 0
			}
			c.k++
			*s = runeSlot{r: r, gen: c.gen, id: c.k}
			return uint16(c.k)
		}
		if s.r == r {
			return uint16(s.id)
		}
	}
}

// internIDs appends the ids of the characters of s (without Python whitespace unless the
// tables were reset for whitespace), giving new characters the next ids. It reports false
// when s has more distinct characters than packed keys allow.
func (c *charRef) internIDs(dst []uint16, s string, whitespace bool) ([]uint16, bool) {
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)] // a character takes at least a byte
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			i++
			id := c.ascii[b]
			if id == 0 {
				if c.k >= charMaxIDs {
					return dst[:n], false
				}
				c.k++
				id = uint16(c.k)
				c.ascii[b] = id
				c.asciiSet = append(c.asciiSet, b)
			}
			// No branch on skipped whitespace, as in appendCharIDs.
			dst[n] = id
			n += keptID(id)
			continue
		}
		r, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		if !whitespace && tokenize.PyIsSpace(r) {
			continue
		}
		id := c.otherID(r, true)
		if id == 0 {
			return dst[:n], false
		}
		dst[n] = id
		n++
	}
	return dst[:n], true
}

// lookupIDs appends the ids of the characters of s in the reference's numbering (0 for a
// character the reference lacks), without Python whitespace unless whitespace.
func (c *charRef) lookupIDs(dst []uint16, s string, whitespace bool) []uint16 {
	return appendCharIDs(dst, s, whitespace, &c.ascii, c)
}

// charNumbering is a reference's numbering of its characters beyond ASCII.
type charNumbering interface {
	// otherID returns the id of the non-ASCII character r, assigning the next one when add
	// is set (the id of an absent character when r is not in the reference).
	otherID(r rune, add bool) uint16
}

// appendCharIDs appends the ids of the characters of a hypothesis s: an ASCII character's
// from ascii (skipID drops it), another's from other (without Python whitespace unless
// whitespace).
func appendCharIDs(dst []uint16, s string, whitespace bool, ascii *[utf8.RuneSelf]uint16, other charNumbering) []uint16 {
	n := len(dst)
	dst = slices.Grow(dst, len(s))[:n+len(s)] // a character takes at least a byte
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			// ASCII, the common case: no branch on whether it is skipped whitespace, as
			// spaces come every few characters and a branch on them is mispredicted.
			id := ascii[b]
			dst[n] = id
			n += keptID(id)
			i++
			continue
		}
		r, sz := utf8.DecodeRuneInString(s[i:])
		i += sz
		if !whitespace && tokenize.PyIsSpace(r) {
			continue
		}
		dst[n] = other.otherID(r, false)
		n++
	}
	return dst[:n]
}

// keptID is 0 for skipID, else 1.
func keptID(id uint16) int { return int((uint32(id)+1)>>16 ^ 1) }

// pySpacesASCII lists the ASCII characters Python's str.isspace() accepts.
var pySpacesASCII = func() (t []byte) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		if tokenize.PyIsSpace(c) {
			t = append(t, byte(c))
		}
	}
	return t
}()

// build interns the reference's characters (ids in scratch) and counts its n-grams of
// orders 1..maxN. It reports false when the packed path cannot take the reference.
func (c *charRef) build(scratch *[]uint16, s string, maxN int, whitespace bool) bool {
	if len(s) >= 1<<16 {
		return false
	}
	if c.useBits = c.bits.build(s, maxN, whitespace); c.useBits {
		c.chars = c.bits.chars
		return true
	}
	c.resetRunes(len(s), whitespace)
	ids, ok := c.internIDs((*scratch)[:0], s, whitespace)
	*scratch = ids
	if !ok {
		return false
	}
	c.chars = len(ids)
	if cap(c.uni) <= int(c.k) {
		c.uni = make([]ccount, charMaxIDs+1)
	}
	c.uni = c.uni[:c.k+1]
	clear(c.uni)
	c.useBi = c.k <= biMaxIDs && maxN >= 2
	stride := uint64(c.k) + 1
	c.biStride = stride
	hashed := maxN - 1
	if c.useBi {
		if c.bi == nil {
			c.bi = make([]ccount, 1<<(2*biBits))
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
	start := 0
	if maxN == charMaxN && c.useBi {
		start = c.build6(ids)
	}
	for i := start; i < len(ids); i++ {
		id16 := ids[i]
		id := uint64(id16)
		c.uni[id].own++
		if i+1 >= len(ids) || maxN < 2 {
			continue
		}
		id2 := uint64(ids[i+1])
		key := id | id2<<charBits
		if c.useBi {
			e := &c.bi[id*stride+id2]
			if e.gen != c.bigen {
				*e = ccount{gen: c.bigen}
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
		key |= uint64(ids[i+2]) << (2 * charBits)
		c.grams.add(key)
		if maxN < 4 || i+3 >= len(ids) {
			continue
		}
		key |= uint64(ids[i+3]) << (3 * charBits)
		c.grams.add(key)
		if maxN < 5 || i+4 >= len(ids) {
			continue
		}
		key |= uint64(ids[i+4]) << (4 * charBits)
		c.grams.add(key)
		if maxN < 6 || i+5 >= len(ids) {
			continue
		}
		c.grams.add(key | uint64(ids[i+5])<<(5*charBits))
	}
	return true
}

// build6 counts the n-grams of the positions of ids that start all six orders, for
// references with indexed bigrams, and returns how many positions it took. It is the loop
// of build without its checks of the order and the end, as chrF's default is six orders.
func (c *charRef) build6(ids []uint16) int {
	stride, bi, gen, uni := c.biStride, c.bi, c.bigen, c.uni
	i := 0
	for ; i+5 < len(ids); i++ {
		w := ids[i : i+6 : i+6]
		id, id2 := uint64(w[0]), uint64(w[1])
		uni[id].own++
		e := &bi[id*stride+id2]
		keep := uint16(0) // 0 for a new bigram, which starts from zeroed counts
		if e.gen == gen {
			keep = 1<<16 - 1
		}
		e.own = e.own&keep + 1
		e.stamp &= keep
		e.gen = gen
		key := id | id2<<charBits | uint64(w[2])<<(2*charBits)
		c.grams.add(key)
		key |= uint64(w[3]) << (3 * charBits)
		c.grams.add(key)
		key |= uint64(w[4]) << (4 * charBits)
		c.grams.add(key)
		c.grams.add(key | uint64(w[5])<<(5*charBits))
	}
	return i
}

// matchHyp looks up the character n-grams of a hypothesis (its ids in the reference's
// numbering) and adds Σ_g min(hyp(g), ref(g)) per order to match[n-1].
func (c *charRef) matchHyp(ids []uint16, maxN int, match []int64) {
	c.stamp++
	if c.stamp == 0 {
		c.resetUsed()
	}
	var m [charMaxN]int64
	for i, id16 := range ids {
		id := uint64(id16)
		if id == 0 {
			continue
		}
		m[0] += c.take(&c.uni[id])
		if i+1 >= len(ids) || maxN < 2 {
			continue
		}
		id2 := uint64(ids[i+1])
		if id2 == 0 {
			continue
		}
		key := id | id2<<charBits
		if c.useBi {
			e := &c.bi[id*c.biStride+id2]
			if e.gen != c.bigen {
				continue
			}
			m[1] += c.take(e)
		} else {
			g := c.grams.find(key)
			if g == nil {
				continue
			}
			m[1] += c.take(&g.ccount)
		}
		// Unrolled like build. An absent character or n-gram ends the longer n-grams.
		if maxN < 3 || i+2 >= len(ids) || ids[i+2] == 0 {
			continue
		}
		key |= uint64(ids[i+2]) << (2 * charBits)
		g := c.grams.find(key)
		if g == nil {
			continue
		}
		m[2] += c.take(&g.ccount)
		if maxN < 4 || i+3 >= len(ids) || ids[i+3] == 0 {
			continue
		}
		key |= uint64(ids[i+3]) << (3 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		m[3] += c.take(&g.ccount)
		if maxN < 5 || i+4 >= len(ids) || ids[i+4] == 0 {
			continue
		}
		key |= uint64(ids[i+4]) << (4 * charBits)
		if g = c.grams.find(key); g == nil {
			continue
		}
		m[4] += c.take(&g.ccount)
		if maxN < 6 || i+5 >= len(ids) || ids[i+5] == 0 {
			continue
		}
		if g = c.grams.find(key | uint64(ids[i+5])<<(5*charBits)); g != nil {
			m[5] += c.take(&g.ccount)
		}
	}
	for n := range maxN {
		match[n] += m[n]
	}
}
