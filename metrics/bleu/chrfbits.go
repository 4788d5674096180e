package bleu

import (
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// bitRef is chrF's bit-parallel path for a reference of at most bitChars characters (at most
// 128 for orders other than six): per character, the set of reference positions holding it,
// in bitWords words. Matching a hypothesis costs a few word operations per character and
// order, with no hashing, no table to build and no branch on the text (match: a kernel for
// six orders and one to four words, and a loop for other orders).
//
// Characters are numbered without interning: an ASCII character is its byte, bitAbsent
// stands for a character the reference lacks, and the reference's other characters take
// the ids after it. A bitRef is scratch of its charRef (one worker's): not safe for
// concurrent use; it keeps no reference to the strings it was given.
type bitRef struct {
	pos    [][bitWords]uint64 // by character id, the reference positions holding it
	other  []runeSlot         // the non-ASCII characters' ids, of generation gen
	gen    uint32
	nOther uint32
	chars  int // the reference's characters
}

const (
	bitWords  = 4
	bitChars  = 64 * bitWords
	bitAbsent = utf8.RuneSelf
)

// bitASCII and bitASCIINoSpace number the ASCII characters for bitRef: each its byte, or
// skipID for Python whitespace chrF drops (in bitASCIINoSpace).
var bitASCII, bitASCIINoSpace = func() (all, noSpace [utf8.RuneSelf]uint16) {
	for c := range utf8.RuneSelf {
		all[c], noSpace[c] = uint16(c), uint16(c)
		if tokenize.PyIsSpace(rune(c)) {
			noSpace[c] = skipID
		}
	}
	return all, noSpace
}()

// bitASCIIFor returns the numbering of the ASCII characters with or without whitespace.
func bitASCIIFor(whitespace bool) *[utf8.RuneSelf]uint16 {
	if whitespace {
		return &bitASCII
	}
	return &bitASCIINoSpace
}

// build makes s the reference, or reports false when it has more than bitChars characters
// (without Python whitespace unless whitespace), or more than 128 for orders other than six.
func (b *bitRef) build(s string, maxN int, whitespace bool) bool {
	if b.pos == nil {
		b.pos = make([][bitWords]uint64, bitAbsent+1+bitChars)
		b.other = make([]runeSlot, 2*bitChars)
	}
	clear(b.pos[:bitAbsent+1+b.nOther])
	b.nOther = 0
	if b.gen++; b.gen == 0 {
		clear(b.other)
		b.gen = 1
	}
	ascii := bitASCIIFor(whitespace)
	j := 0
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c < utf8.RuneSelf {
			kept := keptID(ascii[c])
			if j == bitChars {
				if kept == 1 {
					return false
				}
				continue
			}
			// A dropped space sets a bit too, in a set no hypothesis looks up; not
			// branching on it is faster, as spaces come every few characters.
			b.pos[c][j>>6] |= 1 << (j & 63)
			j += kept
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i-1:])
		i += n - 1
		if !whitespace && tokenize.PyIsSpace(r) {
			continue
		}
		if j == bitChars {
			return false
		}
		b.pos[b.otherID(r, true)][j>>6] |= 1 << (j & 63)
		j++
	}
	if j > 128 && maxN != charMaxN {
		return false // other orders take two words at most (match's loop)
	}
	b.chars = j
	return true
}

// otherID implements charNumbering (bitAbsent for an absent character).
func (b *bitRef) otherID(r rune, add bool) uint16 {
	mask := uint32(len(b.other) - 1)
	for j := (uint32(r) * 0x9E3779B9) >> 16 & mask; ; j = (j + 1) & mask {
		s := &b.other[j]
		if s.gen != b.gen {
			if !add {
				return bitAbsent
			}
			b.nOther++
			*s = runeSlot{r: r, gen: b.gen, id: bitAbsent + b.nOther}
			return uint16(s.id)
		}
		if s.r == r {
			return uint16(s.id)
		}
	}
}

// lookupIDs appends the ids of the characters of the hypothesis s (without Python
// whitespace unless whitespace).
func (b *bitRef) lookupIDs(dst []uint16, s string, whitespace bool) []uint16 {
	return appendCharIDs(dst, s, whitespace, bitASCIIFor(whitespace), b)
}

// match adds Σ_g min(hyp(g), ref(g)) per order n <= maxN of the hypothesis (its ids) to
// match[n-1]. For each hypothesis position i and order n, E_n(i) is the set of reference
// positions where the hypothesis n-gram ending at i also ends (the shift-and of string
// matching: E_n(i) = E_{n-1}(i-1)<<1 & pos[hyp[i]]), and T_n the reference positions
// earlier hypothesis n-grams took. An n-gram matches when E_n(i) has a position not in
// T_n, which it then takes: the matches of an n-gram g come to min(hyp(g), ref(g)), as
// different n-grams of one order end at different reference positions.
func (b *bitRef) match(ids []uint16, maxN int, match []int64) {
	if maxN == charMaxN {
		switch {
		case b.chars <= 64:
			matchBits6Word(ids, b.pos, match)
		case b.chars <= 128:
			matchBits6(ids, b.pos, match)
		case b.chars <= 192:
			matchBits6x3(ids, b.pos, match)
		default:
			matchBits6x4(ids, b.pos, match)
		}
		return
	}
	var e, t [charMaxN][bitWords]uint64 // E at the previous position and T, per order
	for _, id := range ids {
		p := b.pos[id]
		for n := maxN - 1; n > 0; n-- {
			e[n][1] = (e[n-1][1]<<1 | e[n-1][0]>>63) & p[1]
			e[n][0] = e[n-1][0] << 1 & p[0]
		}
		e[0] = p
		for n := range maxN {
			match[n] += take2(&t[n][0], &t[n][1], e[n][0], e[n][1])
		}
	}
}

// matchBits6 is bitRef.match for six orders and a reference of at most 128 characters (two
// words), with the sets in variables and take2's clipping written out: a take through
// pointers, or a call, kept the sets in memory (7% more CPU over WMT17).
func matchBits6(ids []uint16, pos [][bitWords]uint64, match []int64) {
	// eN0, eN1: E of order N at the previous position (words 0 and 1); tN0, tN1: T_N.
	var e10, e11, e20, e21, e30, e31, e40, e41, e50, e51 uint64
	var t10, t11, t20, t21, t30, t31, t40, t41, t50, t51, t60, t61 uint64
	var m1, m2, m3, m4, m5, m6 int64
	for _, id := range ids {
		p := &pos[id]
		p0, p1 := p[0], p[1]
		e60, e61 := (e50<<1)&p0, (e51<<1|e50>>63)&p1
		e50, e51 = (e40<<1)&p0, (e41<<1|e40>>63)&p1
		e40, e41 = (e30<<1)&p0, (e31<<1|e30>>63)&p1
		e30, e31 = (e20<<1)&p0, (e21<<1|e20>>63)&p1
		e20, e21 = (e10<<1)&p0, (e11<<1|e10>>63)&p1
		e10, e11 = p0, p1
		var a0, a1, l0, l1 uint64
		a0, a1 = e10&^t10, e11&^t11
		l0, l1 = a0&-a0, a1&-a1
		if l0 != 0 {
			l1 = 0
		}
		t10, t11 = t10|l0, t11|l1
		m1 += nonzero(l0 | l1)
		a0, a1 = e20&^t20, e21&^t21
		l0, l1 = a0&-a0, a1&-a1
		if l0 != 0 {
			l1 = 0
		}
		t20, t21 = t20|l0, t21|l1
		m2 += nonzero(l0 | l1)
		a0, a1 = e30&^t30, e31&^t31
		l0, l1 = a0&-a0, a1&-a1
		if l0 != 0 {
			l1 = 0
		}
		t30, t31 = t30|l0, t31|l1
		m3 += nonzero(l0 | l1)
		a0, a1 = e40&^t40, e41&^t41
		l0, l1 = a0&-a0, a1&-a1
		if l0 != 0 {
			l1 = 0
		}
		t40, t41 = t40|l0, t41|l1
		m4 += nonzero(l0 | l1)
		a0, a1 = e50&^t50, e51&^t51
		l0, l1 = a0&-a0, a1&-a1
		if l0 != 0 {
			l1 = 0
		}
		t50, t51 = t50|l0, t51|l1
		m5 += nonzero(l0 | l1)
		a0, a1 = e60&^t60, e61&^t61
		l0, l1 = a0&-a0, a1&-a1
		if l0 != 0 {
			l1 = 0
		}
		t60, t61 = t60|l0, t61|l1
		m6 += nonzero(l0 | l1)
	}
	match[0] += m1
	match[1] += m2
	match[2] += m3
	match[3] += m4
	match[4] += m5
	match[5] += m6
}

// take2 adds the lowest position of e (two words) that t lacks to t, and returns 1 when
// there was one, else 0.
func take2(t0, t1 *uint64, e0, e1 uint64) int64 {
	a0, a1 := e0&^*t0, e1&^*t1
	lo, hi := a0&-a0, a1&-a1
	if lo != 0 {
		hi = 0
	}
	*t0 |= lo
	*t1 |= hi
	if lo|hi != 0 {
		return 1
	}
	return 0
}

// matchBits6Word is matchBits6 for a reference of at most 64 characters, whose sets take
// the first word: half the work, and every set in a register.
func matchBits6Word(ids []uint16, pos [][bitWords]uint64, match []int64) {
	var e1, e2, e3, e4, e5 uint64
	var t1, t2, t3, t4, t5, t6 uint64
	var m1, m2, m3, m4, m5, m6 int64
	for _, id := range ids {
		p := pos[id][0]
		e6 := e5 << 1 & p
		e5 = e4 << 1 & p
		e4 = e3 << 1 & p
		e3 = e2 << 1 & p
		e2 = e1 << 1 & p
		e1 = p
		var l uint64
		l = e1 &^ t1
		l &= -l
		t1 |= l
		m1 += nonzero(l)
		l = e2 &^ t2
		l &= -l
		t2 |= l
		m2 += nonzero(l)
		l = e3 &^ t3
		l &= -l
		t3 |= l
		m3 += nonzero(l)
		l = e4 &^ t4
		l &= -l
		t4 |= l
		m4 += nonzero(l)
		l = e5 &^ t5
		l &= -l
		t5 |= l
		m5 += nonzero(l)
		l = e6 &^ t6
		l &= -l
		t6 |= l
		m6 += nonzero(l)
	}
	match[0] += m1
	match[1] += m2
	match[2] += m3
	match[3] += m4
	match[4] += m5
	match[5] += m6
}

// matchBits6x3 is matchBits6 for a reference of 129 to 192 characters (three words).
func matchBits6x3(ids []uint16, pos [][bitWords]uint64, match []int64) {
	var e10, e11, e12, e20, e21, e22, e30, e31, e32, e40, e41, e42, e50, e51, e52 uint64
	var t10, t11, t12, t20, t21, t22, t30, t31, t32, t40, t41, t42, t50, t51, t52, t60, t61, t62 uint64
	var m1, m2, m3, m4, m5, m6 int64
	for _, id := range ids {
		p := &pos[id]
		p0, p1, p2 := p[0], p[1], p[2]
		e60, e61, e62 := (e50<<1)&p0, (e51<<1|e50>>63)&p1, (e52<<1|e51>>63)&p2
		e50, e51, e52 = (e40<<1)&p0, (e41<<1|e40>>63)&p1, (e42<<1|e41>>63)&p2
		e40, e41, e42 = (e30<<1)&p0, (e31<<1|e30>>63)&p1, (e32<<1|e31>>63)&p2
		e30, e31, e32 = (e20<<1)&p0, (e21<<1|e20>>63)&p1, (e22<<1|e21>>63)&p2
		e20, e21, e22 = (e10<<1)&p0, (e11<<1|e10>>63)&p1, (e12<<1|e11>>63)&p2
		e10, e11, e12 = p0, p1, p2
		// Per order, the lowest position of E not in T (in the first word that has one) joins
		// T, and counts a match.
		var a0, a1, a2, l0, l1, l2 uint64
		a0, a1, a2 = e10&^t10, e11&^t11, e12&^t12
		l0, l1, l2 = a0&-a0, a1&-a1, a2&-a2
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		t10, t11, t12 = t10|l0, t11|l1, t12|l2
		m1 += nonzero(l0 | l1 | l2)
		a0, a1, a2 = e20&^t20, e21&^t21, e22&^t22
		l0, l1, l2 = a0&-a0, a1&-a1, a2&-a2
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		t20, t21, t22 = t20|l0, t21|l1, t22|l2
		m2 += nonzero(l0 | l1 | l2)
		a0, a1, a2 = e30&^t30, e31&^t31, e32&^t32
		l0, l1, l2 = a0&-a0, a1&-a1, a2&-a2
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		t30, t31, t32 = t30|l0, t31|l1, t32|l2
		m3 += nonzero(l0 | l1 | l2)
		a0, a1, a2 = e40&^t40, e41&^t41, e42&^t42
		l0, l1, l2 = a0&-a0, a1&-a1, a2&-a2
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		t40, t41, t42 = t40|l0, t41|l1, t42|l2
		m4 += nonzero(l0 | l1 | l2)
		a0, a1, a2 = e50&^t50, e51&^t51, e52&^t52
		l0, l1, l2 = a0&-a0, a1&-a1, a2&-a2
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		t50, t51, t52 = t50|l0, t51|l1, t52|l2
		m5 += nonzero(l0 | l1 | l2)
		a0, a1, a2 = e60&^t60, e61&^t61, e62&^t62
		l0, l1, l2 = a0&-a0, a1&-a1, a2&-a2
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		t60, t61, t62 = t60|l0, t61|l1, t62|l2
		m6 += nonzero(l0 | l1 | l2)
	}
	match[0] += m1
	match[1] += m2
	match[2] += m3
	match[3] += m4
	match[4] += m5
	match[5] += m6
}

// matchBits6x4 is matchBits6 for a reference of 193 to 256 characters (four words).
func matchBits6x4(ids []uint16, pos [][bitWords]uint64, match []int64) {
	var e10, e11, e12, e13, e20, e21, e22, e23, e30, e31, e32, e33, e40, e41, e42, e43, e50, e51, e52, e53 uint64
	var t10, t11, t12, t13, t20, t21, t22, t23, t30, t31, t32, t33, t40, t41, t42, t43, t50, t51, t52, t53, t60, t61, t62, t63 uint64
	var m1, m2, m3, m4, m5, m6 int64
	for _, id := range ids {
		p := &pos[id]
		p0, p1, p2, p3 := p[0], p[1], p[2], p[3]
		e60, e61, e62, e63 := (e50<<1)&p0, (e51<<1|e50>>63)&p1, (e52<<1|e51>>63)&p2, (e53<<1|e52>>63)&p3
		e50, e51, e52, e53 = (e40<<1)&p0, (e41<<1|e40>>63)&p1, (e42<<1|e41>>63)&p2, (e43<<1|e42>>63)&p3
		e40, e41, e42, e43 = (e30<<1)&p0, (e31<<1|e30>>63)&p1, (e32<<1|e31>>63)&p2, (e33<<1|e32>>63)&p3
		e30, e31, e32, e33 = (e20<<1)&p0, (e21<<1|e20>>63)&p1, (e22<<1|e21>>63)&p2, (e23<<1|e22>>63)&p3
		e20, e21, e22, e23 = (e10<<1)&p0, (e11<<1|e10>>63)&p1, (e12<<1|e11>>63)&p2, (e13<<1|e12>>63)&p3
		e10, e11, e12, e13 = p0, p1, p2, p3
		var a0, a1, a2, a3, l0, l1, l2, l3 uint64
		a0, a1, a2, a3 = e10&^t10, e11&^t11, e12&^t12, e13&^t13
		l0, l1, l2, l3 = a0&-a0, a1&-a1, a2&-a2, a3&-a3
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		if l0|l1|l2 != 0 {
			l3 = 0
		}
		t10, t11, t12, t13 = t10|l0, t11|l1, t12|l2, t13|l3
		m1 += nonzero(l0 | l1 | l2 | l3)
		a0, a1, a2, a3 = e20&^t20, e21&^t21, e22&^t22, e23&^t23
		l0, l1, l2, l3 = a0&-a0, a1&-a1, a2&-a2, a3&-a3
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		if l0|l1|l2 != 0 {
			l3 = 0
		}
		t20, t21, t22, t23 = t20|l0, t21|l1, t22|l2, t23|l3
		m2 += nonzero(l0 | l1 | l2 | l3)
		a0, a1, a2, a3 = e30&^t30, e31&^t31, e32&^t32, e33&^t33
		l0, l1, l2, l3 = a0&-a0, a1&-a1, a2&-a2, a3&-a3
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		if l0|l1|l2 != 0 {
			l3 = 0
		}
		t30, t31, t32, t33 = t30|l0, t31|l1, t32|l2, t33|l3
		m3 += nonzero(l0 | l1 | l2 | l3)
		a0, a1, a2, a3 = e40&^t40, e41&^t41, e42&^t42, e43&^t43
		l0, l1, l2, l3 = a0&-a0, a1&-a1, a2&-a2, a3&-a3
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		if l0|l1|l2 != 0 {
			l3 = 0
		}
		t40, t41, t42, t43 = t40|l0, t41|l1, t42|l2, t43|l3
		m4 += nonzero(l0 | l1 | l2 | l3)
		a0, a1, a2, a3 = e50&^t50, e51&^t51, e52&^t52, e53&^t53
		l0, l1, l2, l3 = a0&-a0, a1&-a1, a2&-a2, a3&-a3
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		if l0|l1|l2 != 0 {
			l3 = 0
		}
		t50, t51, t52, t53 = t50|l0, t51|l1, t52|l2, t53|l3
		m5 += nonzero(l0 | l1 | l2 | l3)
		a0, a1, a2, a3 = e60&^t60, e61&^t61, e62&^t62, e63&^t63
		l0, l1, l2, l3 = a0&-a0, a1&-a1, a2&-a2, a3&-a3
		if l0 != 0 {
			l1 = 0
		}
		if l0|l1 != 0 {
			l2 = 0
		}
		if l0|l1|l2 != 0 {
			l3 = 0
		}
		t60, t61, t62, t63 = t60|l0, t61|l1, t62|l2, t63|l3
		m6 += nonzero(l0 | l1 | l2 | l3)
	}
	match[0] += m1
	match[1] += m2
	match[2] += m3
	match[3] += m4
	match[4] += m5
	match[5] += m6
}

// nonzero is 1 when x is not 0, else 0.
func nonzero(x uint64) int64 { return int64((x | -x) >> 63) }
