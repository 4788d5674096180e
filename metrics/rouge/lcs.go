package rouge

import (
	"math/bits"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// interner maps the tokens of one example to dense int32 ids. Ids are exact (no hashing
// collisions): equal ids mean equal strings, compared on every hash match. It is reset per
// example (slots carry a generation stamp, so reset costs nothing), so its memory is bounded
// by the largest example seen.
type interner struct {
	slots []islot
	keys  []string // id -> token
	mask  uint64
	gen   uint32
}

type islot struct {
	hash uint32
	id   int32
	gen  uint32
}

func (in *interner) reset() {
	clear(in.keys) // drop the references to the example's strings
	in.keys = in.keys[:0]
	in.gen++
	if in.gen == 0 {
		clear(in.slots)
		in.gen = 1
	}
}

// n is the number of distinct tokens interned since the last reset.
func (in *interner) n() int { return len(in.keys) }

// grow makes room for want distinct tokens at most half the table.
func (in *interner) grow(want int) {
	need := 64
	for need < 2*want {
		need <<= 1
	}
	if len(in.slots) >= need {
		return
	}
	in.slots = make([]islot, need)
	in.mask = uint64(need - 1)
	in.gen = 1
	for id, k := range in.keys {
		h := tokenize.HashString(k)
		j := h & in.mask
		for in.slots[j].gen == in.gen {
			j = (j + 1) & in.mask
		}
		in.slots[j] = islot{hash: uint32(h), id: int32(id), gen: in.gen}
	}
}

// appendIDs appends the ids of toks to dst, interning new tokens.
func (in *interner) appendIDs(dst []int32, toks []string) []int32 {
	in.grow(len(in.keys) + len(toks))
	for _, t := range toks {
		h := tokenize.HashString(t)
		for j := h & in.mask; ; j = (j + 1) & in.mask {
			s := &in.slots[j]
			if s.gen != in.gen {
				id := int32(len(in.keys))
				in.keys = append(in.keys, t)
				*s = islot{hash: uint32(h), id: id, gen: in.gen}
				dst = append(dst, id)
				break
			}
			if s.hash == uint32(h) && in.keys[s.id] == t {
				dst = append(dst, s.id)
				break
			}
		}
	}
	return dst
}

// u64Interner maps uint64 keys to dense int32 ids 0..n-1, reset per use.
type u64Interner struct {
	slots []uslot
	shift uint8
	gen   uint32
	n     int32
}

type uslot struct {
	key uint64
	id  int32
	gen uint32
}

// reset empties the table and makes room for want keys.
func (t *u64Interner) reset(want int) {
	need := 64
	for need < 4*want {
		need <<= 1
	}
	if cap(t.slots) < need || cap(t.slots) > 64*need && cap(t.slots) > 1<<16 {
		t.slots = make([]uslot, need)
		t.gen = 0
	}
	t.slots = t.slots[:need]
	t.shift = uint8(64 - bits.TrailingZeros(uint(need)))
	t.gen++
	if t.gen == 0 {
		clear(t.slots[:cap(t.slots)])
		t.gen = 1
	}
	t.n = 0
}

// intern returns the id of key. The table never grows: reset sized it.
func (t *u64Interner) intern(key uint64) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> t.shift; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			*s = uslot{key: key, id: t.n, gen: t.gen}
			t.n++
			return s.id
		}
		if s.key == key {
			return s.id
		}
	}
}

// bitLCS computes LCS lengths of one fixed sequence a against many sequences b with the
// bit-parallel algorithm of Allison–Dix / Crochemore et al. (Hyyrö's formulation): one
// machine word holds 64 positions of a, so the cost is O(|b|·⌈|a|/64⌉) and the result is the
// exact LCS length. a's symbols must be the ids 0..k-1 (interned first); symbols of b that are
// >= k do not occur in a.
type bitLCS struct {
	m, w, k int
	masks   []uint64 // k rows of w words: bit i of row s is set when a[i] == s
	v       []uint64
}

// load prepares a (whose symbols are all < k).
func (b *bitLCS) load(a []int32, k int) {
	b.m = len(a)
	b.w = (len(a) + 63) >> 6
	b.k = k
	need := k * b.w
	if cap(b.masks) < need {
		b.masks = make([]uint64, need)
	} else {
		b.masks = b.masks[:need]
		clear(b.masks)
	}
	for i, s := range a {
		b.masks[int(s)*b.w+i>>6] |= 1 << (uint(i) & 63)
	}
	if cap(b.v) < b.w {
		b.v = make([]uint64, b.w)
	}
	b.v = b.v[:b.w]
}

// length returns LCS(a, s).
func (b *bitLCS) length(s []int32) int {
	if b.m == 0 || len(s) == 0 {
		return 0
	}
	if b.w == 1 {
		v := ^uint64(0)
		for _, c := range s {
			if int(c) < b.k {
				m := b.masks[c]
				v = (v + (v & m)) | (v &^ m)
			}
		}
		// Bits beyond m stay set (their mask bits are 0), so the zeros are the LCS.
		return bits.OnesCount64(^v)
	}
	v := b.v
	for i := range v {
		v[i] = ^uint64(0)
	}
	w := b.w
	for _, c := range s {
		if int(c) >= b.k {
			continue
		}
		row := b.masks[int(c)*w : int(c)*w+w]
		var carry uint64
		for i, m := range row {
			x := v[i]
			sum, cout := bits.Add64(x, x&m, carry)
			v[i] = sum | (x &^ m)
			carry = cout
		}
	}
	n := 0
	for _, x := range v {
		n += bits.OnesCount64(^x)
	}
	return n
}

// lcsTable is the full O(|r|·|c|) LCS table of rouge-score's `_lcs_table(ref, can)`, kept to
// read one LCS back (rougeLsum). Its buffer is reused.
type lcsTable struct {
	t    []int32
	cols int
}

func (lt *lcsTable) at(i, j int) int32 { return lt.t[i*lt.cols+j] }

// fill computes the table of r (rows) against c (columns).
func (lt *lcsTable) fill(r, c []int32) {
	rows, cols := len(r)+1, len(c)+1
	lt.cols = cols
	need := rows * cols
	if cap(lt.t) < need {
		lt.t = make([]int32, need)
	}
	lt.t = lt.t[:need]
	t := lt.t
	for j := 0; j < cols; j++ {
		t[j] = 0
	}
	for i := 1; i < rows; i++ {
		row, prev := t[i*cols:(i+1)*cols], t[(i-1)*cols:i*cols]
		row[0] = 0
		ri := r[i-1]
		for j := 1; j < cols; j++ {
			switch {
			case ri == c[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] >= row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
}

// backtrack appends to dst the indices into r of the LCS that rouge-score's
// `_backtrack_norec` reads out: from the bottom-right cell, take the diagonal on equal
// tokens, else move left when T[i][j-1] > T[i-1][j], else up. Indices come out descending.
func (lt *lcsTable) backtrack(dst []int32, r, c []int32) []int32 {
	i, j := len(r), len(c)
	for i > 0 && j > 0 {
		switch {
		case r[i-1] == c[j-1]:
			dst = append(dst, int32(i-1))
			i--
			j--
		case lt.at(i, j-1) > lt.at(i-1, j):
			j--
		default:
			i--
		}
	}
	return dst
}
