package bleu

import (
	"hash/maphash"
	"math/bits"
)

// The n-gram counters below never build a string per n-gram. Tokens are interned to dense
// uint32 ids (exact string comparison on every hash hit, so there is no collision risk), and
// an n-gram of order n is interned as the pair (id of its (n-1)-gram prefix, id of its last
// token), packed into a uint64. Distinct n-grams of any order therefore get distinct ids, and
// the tables only ever hold the n-grams of one hypothesis: reference n-grams are looked up,
// never inserted, and a reference n-gram whose prefix is unknown cannot extend to a known one.
//
// Both tables are open-addressing hash tables whose slots carry a generation stamp: reset
// bumps the generation, so clearing costs nothing however large a previous record made them.

// noID marks a token or n-gram that the hypothesis does not contain.
const noID = ^uint32(0)

type u64Slot struct {
	key uint64
	val uint32
	gen uint32
}

// u64Table maps packed n-gram keys to dense ids 0..n-1. It is not safe for concurrent use.
type u64Table struct {
	slots []u64Slot
	shift uint8
	gen   uint32
	n     uint32
}

// reset empties the table and makes room for at least want keys without growing.
func (t *u64Table) reset(want int) {
	need := 16
	for need < 2*want {
		need <<= 1
	}
	if len(t.slots) < need || len(t.slots) > 64*need && len(t.slots) > 1<<16 {
		t.slots = make([]u64Slot, need)
		t.shift = uint8(64 - bits.TrailingZeros(uint(need)))
		t.gen = 0
	}
	t.gen++
	if t.gen == 0 { // wrapped: stale stamps could look current
		clear(t.slots)
		t.gen = 1
	}
	t.n = 0
}

func (t *u64Table) slot(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> t.shift
}

// intern returns the id of key, assigning the next id when key is new.
func (t *u64Table) intern(key uint64) (uint32, bool) {
	if 2*int(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			*s = u64Slot{key: key, val: t.n, gen: t.gen}
			t.n++
			return s.val, true
		}
		if s.key == key {
			return s.val, false
		}
	}
}

// lookup returns the id of key or noID.
func (t *u64Table) lookup(key uint64) uint32 {
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(key); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			return noID
		}
		if s.key == key {
			return s.val
		}
	}
}

func (t *u64Table) grow() {
	old, gen := t.slots, t.gen
	t.slots = make([]u64Slot, 2*len(old))
	t.shift--
	t.gen = 1
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.gen != gen {
			continue
		}
		i := t.slot(s.key)
		for t.slots[i].gen == t.gen {
			i = (i + 1) & mask
		}
		t.slots[i] = u64Slot{key: s.key, val: s.val, gen: t.gen}
	}
}

type strSlot struct {
	hash uint64
	idx  uint32 // index of the key in toks
	val  uint32
	gen  uint32
}

// strTable interns the strings of one token slice to dense ids 0..n-1. Keys are compared
// exactly. Slots hold indexes into toks, not strings, so the table never keeps the caller's
// (possibly aliased) input alive.
type strTable struct {
	slots []strSlot
	toks  []string
	shift uint8
	gen   uint32
	n     uint32
	seed  maphash.Seed
}

// reset empties the table for interning the strings of toks.
func (t *strTable) reset(toks []string) {
	t.toks = toks
	need := 16
	for need < 2*len(toks) {
		need <<= 1
	}
	if len(t.slots) < need || len(t.slots) > 64*need && len(t.slots) > 1<<16 {
		if t.slots == nil {
			t.seed = maphash.MakeSeed()
		}
		t.slots = make([]strSlot, need)
		t.shift = uint8(64 - bits.TrailingZeros(uint(need)))
		t.gen = 0
	}
	t.gen++
	if t.gen == 0 {
		clear(t.slots)
		t.gen = 1
	}
	t.n = 0
}

// release drops the reference to the token slice.
func (t *strTable) release() { t.toks = nil }

// intern returns the id of toks[i]. The table never grows: reset sized it for every token.
func (t *strTable) intern(i int) uint32 {
	s := t.toks[i]
	h := maphash.String(t.seed, s)
	mask := uint64(len(t.slots) - 1)
	for j := (h * 0x9E3779B97F4A7C15) >> t.shift; ; j = (j + 1) & mask {
		sl := &t.slots[j]
		if sl.gen != t.gen {
			*sl = strSlot{hash: h, idx: uint32(i), val: t.n, gen: t.gen}
			t.n++
			return sl.val
		}
		if sl.hash == h && t.toks[sl.idx] == s {
			return sl.val
		}
	}
}

// lookup returns the id of s or noID.
func (t *strTable) lookup(s string) uint32 {
	h := maphash.String(t.seed, s)
	mask := uint64(len(t.slots) - 1)
	for j := (h * 0x9E3779B97F4A7C15) >> t.shift; ; j = (j + 1) & mask {
		sl := &t.slots[j]
		if sl.gen != t.gen {
			return noID
		}
		if sl.hash == h && t.toks[sl.idx] == s {
			return sl.val
		}
	}
}
