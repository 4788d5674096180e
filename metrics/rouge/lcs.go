package rouge

import (
	"math/bits"

	"github.com/evalstream/evalstream/metrics/internal/freshmem"
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
	in.slots = freshmem.Make[islot](need)
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
		t.slots = freshmem.Make[uslot](need)
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
//
// The loops have no branch on whether a symbol of b occurs in a (a coin toss for the branch
// predictor): the rows of the symbols >= k are zero. When the symbols of the b's are fewer
// than 2k+64 (the usual case), every one has a row; otherwise the table would be sized by
// b's vocabulary, not a's, so there is one zero row more, that every symbol >= k reads (its
// index clamped with arithmetic, which costs a few instructions per symbol).
type bitLCS struct {
	m, w, k int
	full    bool     // a row per symbol of the b's
	masks   []uint64 // rows of w words: bit i of row s is set when a[i] == s; rows >= k are 0
	v       []uint64
}

// load prepares a (whose symbols are all < k) for b's of symbols < distinct.
func (b *bitLCS) load(a []int32, k, distinct int) {
	b.m = len(a)
	b.w = (len(a) + 63) >> 6
	b.k = k
	rows := k + 1
	if b.full = distinct <= 2*k+64; b.full {
		rows = max(distinct, 1)
	}
	need := rows * b.w
	if cap(b.masks) < need {
		// At least doubled, as the sizes of examples rise a little at a time.
		b.masks = freshmem.Make[uint64](max(need, 2*cap(b.masks)))[:need] // set with |=
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
		v, k, masks := ^uint64(0), b.k, b.masks
		if b.full {
			for _, c := range s {
				m := masks[c]
				v = (v + (v & m)) | (v &^ m)
			}
		} else {
			for _, c := range s {
				m := masks[clamp(int(c), k)]
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
	w, k := b.w, b.k
	if b.full {
		k = len(b.masks)/w - 1 // every symbol has a row
	}
	for _, c := range s {
		x := clamp(int(c), k) * w
		row := b.masks[x : x+w]
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

// lsumLCS reads the LCS indices of rouge-score's rougeLsum (`_backtrack_norec` over
// `_lcs_table(ref, can)`) from the rows of the bit-parallel LCS instead of the full table:
// one reference sentence against one prediction sentence costs O(|r|·⌈|c|/64⌉) word
// operations plus a walk of at most |r|+|c| steps, instead of |r|·|c| table cells.
//
// Row i of the table is kept as Hyyrö's bit vector V_i over the columns: T[i][j] is the
// number of zeros of V_i below bit j. The walk needs T only where rouge-score compares it:
// at a mismatch, T[i][j] = max(T[i][j-1], T[i-1][j]), so rouge-score's "left when
// T[i][j-1] > T[i-1][j]" is "left when T[i-1][j] < T[i][j]", and T[i][j] itself changes
// only on a diagonal step (by one). The indices are the textbook table's exactly
// (TestLsumLCS, FuzzLsumLCS). An lsumLCS is reused across examples and not safe for
// concurrent use.
//
// Prediction sentences of 1 to 63 symbols share 64-bit words (packs): each has a segment of
// its own, followed by a guard bit that is always 0 in V and in the masks, so the carry out of
// a segment's addition stops there (it is cleared after each step), exactly as it falls off
// the top of a word of its own. One pass over a reference sentence then computes its rows
// against every sentence of a pack, and one walk back over them reads the LCS indices of all
// of them (unionPacked).
//
// As in bitLCS, the masks have a row per symbol of the example when those are fewer than
// 2k+64 (full), else a row per column symbol (< k) and one more, all zero, that every row
// symbol >= k reads (its index clamped).
type lsumLCS struct {
	k     int      // column symbols are < k; other row symbols match nothing
	nrow  int      // rows of masks per sentence or pack
	full  bool     // a row per symbol of the example: no clamp
	off   []int    // off[p]: start in masks of prediction sentence p's nrow rows of w[p] words
	w     []int    // words per row of sentence p (not packed)
	masks []uint64 // bit j of sentence p's row s is set when c[j] == s
	rows  []uint64 // V_0..V_|r| of the current pair, or D_1..D_|r| of the current pack
	idx   []int32  // backtrack's indices, in union

	pack   []int32  // pack[p]: the pack of sentence p, or -1
	pmasks []uint64 // pack g's row for symbol s is pmasks[g*nrow+s]
	guards []uint64 // guards[g]: the guard bits of pack g
	used   int      // bits taken in the last pack
}

// reset forgets the sentences of the last example; symbols of the next prediction sentences
// are < k, those of the reference sentences < distinct.
func (l *lsumLCS) reset(k, distinct int) {
	l.k = k
	l.nrow = k + 1
	if l.full = distinct <= 2*k+64; l.full {
		l.nrow = max(distinct, k+1)
	}
	l.off = l.off[:0]
	l.w = l.w[:0]
	l.masks = l.masks[:0]
	l.pack = l.pack[:0]
	l.pmasks, l.guards = l.pmasks[:0], l.guards[:0]
	l.used = 0
}

// addSentence loads prediction sentence number len(l.w) (its symbols are < k).
func (l *lsumLCS) addSentence(c []int32) {
	if n := len(c); n > 0 && n < 64 {
		k := l.nrow
		if len(l.guards) == 0 || l.used+n+1 > 64 {
			l.guards = append(l.guards, 0)
			l.used = 0
			need := len(l.pmasks) + k
			if cap(l.pmasks) < need {
				grown := freshmem.Make[uint64](2 * need)[:need] // set with |=
				copy(grown, l.pmasks)
				l.pmasks = grown
			} else {
				l.pmasks = l.pmasks[:need]
				clear(l.pmasks[need-k:])
			}
		}
		g := len(l.guards) - 1
		m := l.pmasks[g*k : (g+1)*k]
		for j, s := range c {
			m[s] |= 1 << uint(l.used+j)
		}
		l.guards[g] |= 1 << uint(l.used+n)
		l.pack = append(l.pack, int32(g))
		l.used += n + 1
		l.off = append(l.off, 0)
		l.w = append(l.w, 0)
		return
	}
	l.pack = append(l.pack, -1)
	w := (len(c) + 63) >> 6
	off := len(l.masks)
	l.off = append(l.off, off)
	l.w = append(l.w, w)
	need := off + l.nrow*w
	if cap(l.masks) < need {
		grown := freshmem.Make[uint64](2 * need)[:need] // set with |=
		copy(grown, l.masks)
		l.masks = grown
	} else {
		l.masks = l.masks[:need]
		clear(l.masks[off:])
	}
	m := l.masks[off:]
	for j, s := range c {
		m[int(s)*w+j>>6] |= 1 << (uint(j) & 63)
	}
}

// backtrack appends to dst the indices into r of the LCS of r (rows) and prediction
// sentence p, c (columns, not in a pack), that rouge-score's `_backtrack_norec` reads out,
// in descending order.
func (l *lsumLCS) backtrack(dst []int32, r []int32, p int, c []int32) []int32 {
	if len(r) == 0 || len(c) == 0 {
		return dst
	}
	w, last := l.w[p], l.nrow-1
	masks := l.masks[l.off[p] : l.off[p]+l.nrow*w]
	rows := l.rowsFor((len(r) + 1) * w) // every word is written below
	for x := range rows[:w] {
		rows[x] = ^uint64(0)
	}
	if w == 1 {
		v := ^uint64(0)
		for i, s := range r {
			m := masks[clamp(int(s), last)]
			v = (v + (v & m)) | (v &^ m)
			rows[i+1] = v
		}
	} else {
		for i, s := range r {
			prev, cur := rows[i*w:(i+1)*w], rows[(i+1)*w:(i+2)*w]
			x := clamp(int(s), last) * w
			m := masks[x : x+w]
			var carry uint64
			for x, mx := range m {
				v := prev[x]
				sum, cout := bits.Add64(v, v&mx, carry)
				cur[x] = sum | (v &^ mx)
				carry = cout
			}
		}
	}
	i, j := len(r), len(c)
	t := zerosBelow(rows[i*w:(i+1)*w], j) // T[i][j]
	if t == 0 {
		return dst
	}
	if w == 1 {
		// The walk below, with one word per row.
		for t > 0 { // T[i][j] > 0: i, j > 0, and an LCS index is left to read
			s := r[i-1]
			if s == c[j-1] {
				dst = append(dst, int32(i-1))
				i--
				j--
				t--
				continue
			}
			low := uint64(1)<<uint(j) - 1 // j <= 64; 1<<64 is 0 in Go
			if int32(bits.OnesCount64(^rows[i-1]&low)) == t {
				i--
				continue
			}
			j = 64 - bits.LeadingZeros64(masks[s]&(low>>1))
		}
		return dst
	}
	for t > 0 { // T[i][j] > 0: i, j > 0, and an LCS index is left to read
		s := r[i-1]
		if s == c[j-1] {
			dst = append(dst, int32(i-1))
			i--
			j--
			t--
			continue
		}
		if zerosBelow(rows[(i-1)*w:i*w], j) == t {
			i-- // T[i-1][j] == T[i][j] >= T[i][j-1]: up
			continue
		}
		// T[i-1][j] < T[i][j] = T[i][j-1]: left, and the same holds at every column to the
		// left (T[i-1][·] only falls) until c matches s, where rouge-score takes the
		// diagonal. Row i rose above row i-1 through a match of s, so one exists below j
		// (and s < k).
		j = lastBelow(masks[int(s)*w:int(s)*w+w], j-1) + 1
	}
	return dst
}

// union ORs into marks (bit x of marks[x>>6] for index x of r) the LCS indices of r against
// every prediction sentence (cs(p) is sentence p) that rouge-score's `_backtrack_norec` reads
// out: rougeLsum's union of one reference sentence's LCSs.
func (l *lsumLCS) union(marks []uint64, r []int32, cs func(p int) []int32) {
	if len(r) == 0 {
		return
	}
	for g := range l.guards {
		l.unionPacked(marks, r, g)
	}
	for p, g := range l.pack {
		if g >= 0 {
			continue
		}
		l.idx = l.backtrack(l.idx[:0], r, p, cs(p))
		for _, x := range l.idx {
			marks[x>>6] |= 1 << (uint(x) & 63)
		}
	}
}

// union2 is union for two reference sentences of 1 to 64 tokens at once: it returns their
// marks. The two are independent chains of dependent steps, which the processor overlaps
// when they are interleaved.
func (l *lsumLCS) union2(r1, r2 []int32, cs func(p int) []int32) (marks1, marks2 uint64) {
	for g := range l.guards {
		m1, m2 := l.unionPacked2(r1, r2, g)
		marks1 |= m1
		marks2 |= m2
	}
	for p, g := range l.pack {
		if g >= 0 {
			continue
		}
		for _, x := range l.backtrack(l.idx[:0], r1, p, cs(p)) {
			marks1 |= 1 << uint(x)
		}
		l.idx = l.backtrack(l.idx[:0], r2, p, cs(p))
		for _, x := range l.idx {
			marks2 |= 1 << uint(x)
		}
	}
	return marks1, marks2
}

// unionPacked is union for the sentences of pack g, all at once: the walks of backtrack's
// one-word case, one per segment, advance together one row at a time.
//
// At row i, a walk at column j (1 <= j) either takes the diagonal of a match of s = r[i-1]
// at or left of j-1 and reads index i-1, or goes up: it takes it when c[j-1] == s or
// T[i][j] > T[i-1][j] (backtrack's left jumps end on the nearest match of s to the left),
// and then continues at the column of that match. So a walk needs, per row, the bit of
// T[i][·] > T[i-1][·] at its column. From V_{i-1} to V_i, Hyyrö's step moves the zero
// that ends each run of ones of V_{i-1} holding a match (its bit b, or the guard) down to
// the run's lowest match p: T[i][j] = T[i-1][j] + 1 exactly for j-1 in [p, b). The bits
// that turned on are the b's and those that turned off the p's, so D_i, their difference,
// has exactly the bits [p, b) set (the ranges are disjoint: no borrow crosses one).
//
// The walks are one-hot bits, one per segment, at column j-1 of their sentence; a walk
// past column 0 falls onto the guard below (cleared) or off the word.
func (l *lsumLCS) unionPacked(marks []uint64, r []int32, g int) {
	masks, full := l.pmasks[g*l.nrow:(g+1)*l.nrow], l.full
	guard := l.guards[g]
	d := l.rowsFor(len(r) + 1)
	v := ^guard
	for i, s := range r {
		v, d[i+1] = packRise(v, masks, full, s, guard)
	}
	walks := guard >> 1 // every sentence of the pack is non-empty: j = len(c)
	// Whether a row is read is a coin toss for the branch predictor: the rows read are
	// gathered without a branch, a word of marks at a time.
	var acc uint64
	i := len(r)
	for ; i > 0 && walks != 0; i-- {
		x := i - 1
		var take uint64
		m := maskOf(masks, full, r[x])
		walks, take = packWalk(walks, m, d[i], guard)
		walks |= jumps(take, m, guard)
		acc |= (take | -take) >> 63 << (uint(x) & 63)
		if x&63 == 0 {
			marks[x>>6] |= acc
			acc = 0
		}
	}
	if acc != 0 { // the walks ended at row i+1, inside word i>>6
		marks[i>>6] |= acc
	}
}

// unionPacked2 is unionPacked for two reference sentences of 1 to 64 tokens, interleaved:
// it returns their marks.
func (l *lsumLCS) unionPacked2(r1, r2 []int32, g int) (marks1, marks2 uint64) {
	masks, full := l.pmasks[g*l.nrow:(g+1)*l.nrow], l.full
	guard := l.guards[g]
	rows := l.rowsFor(len(r1) + len(r2) + 2)
	d1, d2 := rows[:len(r1)+1], rows[len(r1)+1:]
	v1, v2 := ^guard, ^guard
	n := min(len(r1), len(r2))
	for i := 0; i < n; i++ {
		v1, d1[i+1] = packRise(v1, masks, full, r1[i], guard)
		v2, d2[i+1] = packRise(v2, masks, full, r2[i], guard)
	}
	for i := n; i < len(r1); i++ {
		v1, d1[i+1] = packRise(v1, masks, full, r1[i], guard)
	}
	for i := n; i < len(r2); i++ {
		v2, d2[i+1] = packRise(v2, masks, full, r2[i], guard)
	}
	w1, w2 := guard>>1, guard>>1
	i1, i2 := len(r1), len(r2)
	for ; i1 > 0 && i2 > 0 && w1|w2 != 0; i1, i2 = i1-1, i2-1 {
		var t1, t2 uint64
		m1, m2 := maskOf(masks, full, r1[i1-1]), maskOf(masks, full, r2[i2-1])
		w1, t1 = packWalk(w1, m1, d1[i1], guard)
		w2, t2 = packWalk(w2, m2, d2[i2], guard)
		w1 |= jumps(t1, m1, guard)
		w2 |= jumps(t2, m2, guard)
		marks1 |= (t1 | -t1) >> 63 << (uint(i1-1) & 63)
		marks2 |= (t2 | -t2) >> 63 << (uint(i2-1) & 63)
	}
	for ; i1 > 0 && w1 != 0; i1-- {
		var t uint64
		m := maskOf(masks, full, r1[i1-1])
		w1, t = packWalk(w1, m, d1[i1], guard)
		w1 |= jumps(t, m, guard)
		marks1 |= (t | -t) >> 63 << (uint(i1-1) & 63)
	}
	for ; i2 > 0 && w2 != 0; i2-- {
		var t uint64
		m := maskOf(masks, full, r2[i2-1])
		w2, t = packWalk(w2, m, d2[i2], guard)
		w2 |= jumps(t, m, guard)
		marks2 |= (t | -t) >> 63 << (uint(i2-1) & 63)
	}
	return marks1, marks2
}

// rowsFor returns l.rows with n words, every one of which the caller writes before reading.
func (l *lsumLCS) rowsFor(n int) []uint64 {
	if cap(l.rows) < n {
		l.rows = make([]uint64, max(n, 2*cap(l.rows))) // at least doubled, as in load
	}
	l.rows = l.rows[:n]
	return l.rows
}

// clamp returns min(s, k) (for s >= 0) with arithmetic only: the compiler makes min a
// branch inside a loop, and whether a token occurs in the prediction is a coin toss for the
// branch predictor.
func clamp(s, k int) int {
	d := k - s
	return s + d&(d>>(bits.UintSize-1))
}

// maskOf returns the row of masks (a pack's rows) for symbol s: with full, every symbol's;
// else the last, zero, for every s >= k (s matches nothing). full is the same for the whole
// example, so its test is always predicted.
func maskOf(masks []uint64, full bool, s int32) uint64 {
	if full {
		return masks[s]
	}
	return masks[clamp(int(s), len(masks)-1)]
}

// packRise is one row of a pack (masks, guard bits guard) for the row symbol s: from
// V_{i-1} (v) it returns V_i and D_i.
func packRise(v uint64, masks []uint64, full bool, s int32, guard uint64) (uint64, uint64) {
	m := maskOf(masks, full, s)
	raw := (v + (v & m)) | (v &^ m)
	nv := raw &^ guard
	return nv, (raw &^ v) - (v &^ nv)
}

// packWalk moves the walks of a pack over the row of a symbol of masks m with rises d
// (D_i): it returns the walks on the row above and those that took the row (nonzero when the
// row's index is read). It moves one walk that jumps (see below); the caller moves the
// others, when there are (jumps).
func packWalk(walks, m, d, guard uint64) (uint64, uint64) {
	take := walks & (m | d)
	// A walk that takes the row without a match at its column jumps to the nearest match
	// of s to its left, in its segment (T rose there): bit p, where it continues at p-1
	// (nowhere when p is its segment's lowest bit). With one such walk, the usual case,
	// there is no branch: when there is none, below is 0 and so is the bit added.
	jump := take &^ m
	below := m & (jump&-jump - 1) & -((jump | -jump) >> 63)
	return (walks&^take | (take&m)>>1 | 1<<bits.Len64(below)>>2) &^ guard, take
}

// jumps returns the walks that packWalk left to move for the walks take that took the row
// of masks m, or 0.
func jumps(take, m, guard uint64) uint64 {
	jump := take &^ m
	if jump &= jump - 1; jump == 0 {
		return 0
	}
	return moreJumps(jump, m) &^ guard
}

// moreJumps returns the walks after the jumps of packWalk but the first.
func moreJumps(jump, m uint64) (walks uint64) {
	for ; jump != 0; jump &= jump - 1 {
		below := m & (jump&-jump - 1)
		walks |= 1 << bits.Len64(below) >> 2
	}
	return walks
}

// lastBelow returns the highest set bit of row below bit j, or -1.
func lastBelow(row []uint64, j int) int {
	x := j >> 6
	m := row[x] & (1<<(uint(j)&63) - 1)
	for m == 0 {
		if x == 0 {
			return -1
		}
		x--
		m = row[x]
	}
	return x<<6 + 63 - bits.LeadingZeros64(m)
}

// zerosBelow counts the zero bits of row below bit j: T[i][j] for row V_i.
func zerosBelow(row []uint64, j int) int32 {
	n := 0
	full := j >> 6
	for _, x := range row[:full] {
		n += 64 - bits.OnesCount64(x)
	}
	if rem := uint(j) & 63; rem != 0 {
		n += bits.OnesCount64(^row[full] & (1<<rem - 1))
	}
	return int32(n)
}
