package rouge

import "math/bits"

// interner maps the tokens of one example to dense int32 ids. Ids are exact (no hashing
// collisions): equal ids mean equal strings. It is reset per example, so its memory is
// bounded by the largest example seen.
type interner struct {
	ids map[string]int32
}

func (in *interner) reset() {
	if in.ids == nil {
		in.ids = make(map[string]int32)
	} else if len(in.ids) > 0 {
		clear(in.ids)
	}
}

// n is the number of distinct tokens interned since the last reset.
func (in *interner) n() int { return len(in.ids) }

// appendIDs appends the ids of toks to dst, interning new tokens.
func (in *interner) appendIDs(dst []int32, toks []string) []int32 {
	for _, t := range toks {
		id, ok := in.ids[t]
		if !ok {
			id = int32(len(in.ids))
			in.ids[t] = id
		}
		dst = append(dst, id)
	}
	return dst
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
