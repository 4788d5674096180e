package bleu

//go:generate go run gen_chrfkernels.go

import (
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// bitRef is chrF's bit-parallel path for a reference of at most bitChars characters (at most
// 128 for orders other than six): per character, the set of reference positions holding it,
// in bitWords words. Matching a hypothesis costs a few word operations per character and
// order, with no hashing, no table to build and no branch on the text (match: a kernel for
// six orders and one to four words, chrfkernels.go, and a loop for other orders).
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
			matchBits6x1(ids, b.pos, match)
		case b.chars <= 128:
			matchBits6x2(ids, b.pos, match)
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

// nonzero is 1 when x is not 0, else 0.
func nonzero(x uint64) int64 { return int64((x | -x) >> 63) }
