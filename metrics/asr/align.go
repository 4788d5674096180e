package asr

// counts is the edit script summary of one reference/hypothesis pair: substitutions,
// deletions and insertions of the alignment, and the hits (matches) it implies.
type counts struct {
	hits, subs, dels, ins int64
}

// aligner finds the alignment rapidfuzz's Levenshtein.editops picks (rapidfuzz-cpp
// levenshtein_editops, which jiwer 4's process_words reads through Levenshtein.opcodes).
// Every minimum-cost alignment has the same number of edits, but not the same number of
// hits: a substitution can often be traded for a deletion plus an insertion, and MER, WIL and
// WIP change with it. rapidfuzz's choice comes from three rules, all reproduced here:
//
//   - the common prefix and suffix are removed first (they are hits);
//   - when the matrix would be large (see align), Hirschberg's algorithm splits the
//     hypothesis at its middle and the reference at the first position where the cost of
//     the two halves is minimal, and both halves are aligned on their own (again removing
//     their common affixes);
//   - otherwise the bit-parallel matrix of Hyyrö (2003) is walked back from the end,
//     preferring at each cell a deletion, then an insertion, then the diagonal, exactly as
//     rapidfuzz's recover_alignment tests its VP and VN bits.
//
// rapidfuzz's banded variants (a 64-bit diagonal band, Ukkonen's cut-off) compute the same
// bits on every cell the walk reads, so one unbanded bit-parallel matrix reproduces them.
//
// An aligner reuses its buffers between calls; it is not safe for concurrent use.
type aligner struct {
	ids    map[int32]int32 // symbol -> index into pm, for the current reference
	pm     []uint64        // pattern match masks: words per distinct reference symbol
	vp, vn []uint64        // the recorded matrix: one row of words per hypothesis symbol
	sym    []int32         // the reference symbol index of each hypothesis symbol (-1: none)
	band   []int32         // the banded walk's distances
	rowA   []int64         // Hirschberg score rows
	rowB   []int64
	rev1   []int32 // reversed copies for Hirschberg's right half
	rev2   []int32
	smallA [128]int32 // pattern index of ASCII symbols (cheaper than the map), -1 if none
}

// align returns the counts of rapidfuzz's alignment of ref (s1) and hyp (s2), whose elements
// are symbol ids (equal ids are equal tokens).
func (al *aligner) align(ref, hyp []int32) counts {
	var c counts
	// levenshtein_editops: with no score hint, the bound is the longer length.
	al.hirschberg(ref, hyp, max(len(ref), len(hyp)), &c)
	c.hits = int64(len(ref)) - c.subs - c.dels
	// One huge pair must not pin its matrices for the rest of the run.
	if cap(al.vp) > retainLimit {
		al.vp, al.vn = nil, nil
	}
	if cap(al.band) > 2*retainLimit {
		al.band = nil
	}
	return c
}

// retainLimit is the largest bit matrix (in 64-bit words, 8 MB for the pair) kept between
// pairs.
const retainLimit = 1 << 19

// hirschberg is rapidfuzz-cpp's levenshtein_align_hirschberg: bound is an upper bound of
// the distance (it decides, as in rapidfuzz, whether the matrix is split).
func (al *aligner) hirschberg(s1, s2 []int32, bound int, c *counts) {
	s1, s2 = removeAffix(s1, s2)
	bound = min(bound, max(len(s1), len(s2)))
	fullBand := min(len(s1), 2*bound+1)
	if 2*fullBand*len(s2)/8 < 1024*1024 || len(s1) < 65 || len(s2) < 10 {
		al.direct(s1, s2, c)
		return
	}
	mid1, mid2, left, right := al.hirschbergPos(s1, s2)
	al.hirschberg(s1[:mid1], s2[:mid2], left, c)
	al.hirschberg(s1[mid1:], s2[mid2:], right, c)
}

// removeAffix drops the common prefix and suffix (rapidfuzz's remove_common_affix).
func removeAffix(s1, s2 []int32) ([]int32, []int32) {
	n := min(len(s1), len(s2))
	p := 0
	for p < n && s1[p] == s2[p] {
		p++
	}
	s1, s2 = s1[p:], s2[p:]
	n -= p
	q := 0
	for q < n && s1[len(s1)-1-q] == s2[len(s2)-1-q] {
		q++
	}
	return s1[:len(s1)-q], s2[:len(s2)-q]
}

// build fills the pattern match masks of s1 and the pattern index of every symbol of s2.
func (al *aligner) build(s1, s2 []int32) (words int) {
	words = (len(s1) + 63) / 64
	if al.ids == nil {
		al.ids = make(map[int32]int32)
	} else {
		clear(al.ids)
	}
	for i := range al.smallA {
		al.smallA[i] = -1
	}
	al.pm = al.pm[:0]
	for i, x := range s1 {
		var k int32
		if x >= 0 && x < 128 {
			k = al.smallA[x]
			if k < 0 {
				k = int32(len(al.pm) / words)
				al.smallA[x] = k
				al.pm = append(al.pm, make([]uint64, words)...)
			}
		} else {
			var ok bool
			k, ok = al.ids[x]
			if !ok {
				k = int32(len(al.pm) / words)
				al.ids[x] = k
				al.pm = append(al.pm, make([]uint64, words)...)
			}
		}
		al.pm[int(k)*words+i/64] |= 1 << (i % 64)
	}
	al.sym = al.sym[:0]
	for _, x := range s2 {
		k := int32(-1)
		if x >= 0 && x < 128 {
			k = al.smallA[x]
		} else if v, ok := al.ids[x]; ok {
			k = v
		}
		al.sym = append(al.sym, k)
	}
	return words
}

// direct is rapidfuzz-cpp's levenshtein_align followed by recover_alignment.
func (al *aligner) direct(s1, s2 []int32, c *counts) {
	if len(s1) == 0 || len(s2) == 0 {
		c.dels += int64(len(s1))
		c.ins += int64(len(s2))
		return
	}
	words := (len(s1) + 63) / 64
	cells := words * len(s2)
	if cells > fullMatrixLimit {
		// rapidfuzz records only a band of the matrix here; so must we, or two long texts
		// with few differences would need gigabytes. The band of diagonals within the
		// distance gives the same walk (see banded).
		if d := al.distance(s1, s2); (2*d+1)*int64(len(s2)+1) < int64(cells)*4 {
			al.banded(s1, s2, int(d), c)
			return
		}
	}
	al.build(s1, s2)
	if cap(al.vp) < cells {
		al.vp = make([]uint64, cells)
		al.vn = make([]uint64, cells)
	}
	vpM, vnM := al.vp[:cells], al.vn[:cells]
	// Hyyrö's bit-parallel Levenshtein over the blocks of s1, one row per symbol of s2; row r
	// records the vertical deltas D[i+1][r+1] - D[i][r+1] (VP: +1, VN: -1). Before the first
	// row they are all +1 (D[i][0] = i).
	var prevVP, prevVN []uint64
	for row := 0; row < len(s2); row++ {
		curVP := vpM[row*words : (row+1)*words]
		curVN := vnM[row*words : (row+1)*words]
		k := al.sym[row]
		var pmRow []uint64
		if k >= 0 {
			pmRow = al.pm[int(k)*words : int(k+1)*words]
		}
		hpCarry, hnCarry := uint64(1), uint64(0)
		for w := 0; w < words; w++ {
			var pmj uint64
			if pmRow != nil {
				pmj = pmRow[w]
			}
			pv, nv := ^uint64(0), uint64(0)
			if row > 0 {
				pv, nv = prevVP[w], prevVN[w]
			}
			x := pmj | hnCarry
			d0 := (((x & pv) + pv) ^ pv) | x | nv
			hp := nv | ^(d0 | pv)
			hn := d0 & pv
			outP, outN := hp>>63, hn>>63
			hp = hp<<1 | hpCarry
			hn = hn<<1 | hnCarry
			hpCarry, hnCarry = outP, outN
			curVP[w] = hn | ^(d0 | hp)
			curVN[w] = hp & d0
		}
		prevVP, prevVN = curVP, curVN
	}
	// recover_alignment: walk back from D[len(s1)][len(s2)].
	col, row := len(s1), len(s2)
	for row > 0 && col > 0 {
		b := col - 1
		if vpM[(row-1)*words+b/64]>>(b%64)&1 != 0 {
			c.dels++
			col--
			continue
		}
		row--
		if row > 0 && vnM[(row-1)*words+b/64]>>(b%64)&1 != 0 {
			c.ins++
			continue
		}
		col--
		if s1[col] != s2[row] {
			c.subs++
		}
	}
	c.dels += int64(col)
	c.ins += int64(row)
}

// fullMatrixLimit is the size (in 64-bit words) above which direct considers the banded
// walk instead of the full bit matrix. A variable so that tests can force the banded walk.
var fullMatrixLimit = 1 << 20

// banded is recover_alignment on a matrix of integer distances restricted to the diagonals
// |col - row| <= d, d the distance: every cell on a minimum-cost path lies in that band with
// its exact value (a path of cost v never leaves the diagonals within v), and every cell
// the walk compares with it decides a step only when its value is below d, hence exact
// too; cells outside the band read as infinite, as if never reached. So the walk is the
// one the full matrix gives.
func (al *aligner) banded(s1, s2 []int32, d int, c *counts) {
	n, m, w := len(s1), len(s2), 2*d+1
	const inf = int32(1 << 29)
	if cap(al.band) < w*(m+1) {
		al.band = make([]int32, w*(m+1))
	}
	band := al.band[:w*(m+1)]
	// at returns D(col, row): the distance of s1[:col] and s2[:row].
	at := func(col, row int) int32 {
		k := col - row + d
		if col < 0 || col > n || k < 0 || k >= w {
			return inf
		}
		return band[row*w+k]
	}
	for row := 0; row <= m; row++ {
		for k := 0; k < w; k++ {
			col := row + k - d
			var v int32
			switch {
			case col < 0 || col > n:
				v = inf
			case row == 0:
				v = int32(col)
			case col == 0:
				v = int32(row)
			default:
				v = at(col-1, row-1)
				if s1[col-1] != s2[row-1] {
					v++
				}
				v = min(v, at(col, row-1)+1, at(col-1, row)+1)
			}
			band[row*w+k] = min(v, inf)
		}
	}
	col, row := n, m
	for row > 0 && col > 0 {
		if at(col-1, row) == at(col, row)-1 {
			c.dels++
			col--
			continue
		}
		row--
		if row > 0 && at(col, row) == at(col-1, row)-1 {
			c.ins++
			continue
		}
		col--
		if s1[col] != s2[row] {
			c.subs++
		}
	}
	c.dels += int64(col)
	c.ins += int64(row)
}

// lastRow returns D[i][len(s2)] for i = 0..len(s1) (the distances of every prefix of s1 to
// all of s2) in dst.
func (al *aligner) lastRow(s1, s2 []int32, dst []int64) []int64 {
	dst = dst[:0]
	if len(s1) == 0 {
		return append(dst, int64(len(s2)))
	}
	words := al.build(s1, s2)
	if cap(al.vp) < 2*words {
		al.vp = make([]uint64, 2*words)
		al.vn = make([]uint64, 2*words)
	}
	vp, vn := al.vp[:words], al.vn[:words]
	for w := range vp {
		vp[w], vn[w] = ^uint64(0), 0
	}
	for row := range s2 {
		k := al.sym[row]
		hpCarry, hnCarry := uint64(1), uint64(0)
		for w := 0; w < words; w++ {
			var pmj uint64
			if k >= 0 {
				pmj = al.pm[int(k)*words+w]
			}
			pv, nv := vp[w], vn[w]
			x := pmj | hnCarry
			d0 := (((x & pv) + pv) ^ pv) | x | nv
			hp := nv | ^(d0 | pv)
			hn := d0 & pv
			outP, outN := hp>>63, hn>>63
			hp = hp<<1 | hpCarry
			hn = hn<<1 | hnCarry
			hpCarry, hnCarry = outP, outN
			vp[w] = hn | ^(d0 | hp)
			vn[w] = hp & d0
		}
	}
	d := int64(len(s2))
	dst = append(dst, d)
	for i := 0; i < len(s1); i++ {
		w, b := i/64, uint(i%64)
		d += int64(vp[w]>>b&1) - int64(vn[w]>>b&1)
		dst = append(dst, d)
	}
	return dst
}

// hirschbergPos is rapidfuzz-cpp's find_hirschberg_pos: s2 is split at its middle and s1 at
// the first position where the costs of the two halves add up to the minimum.
func (al *aligner) hirschbergPos(s1, s2 []int32) (mid1, mid2, left, right int) {
	mid2 = len(s2) / 2
	al.rev1 = reverse(al.rev1[:0], s1)
	al.rev2 = reverse(al.rev2[:0], s2[mid2:])
	al.rowB = al.lastRow(al.rev1, al.rev2, al.rowB)
	al.rowA = al.lastRow(s1, s2[:mid2], al.rowA)
	n := len(s1)
	best := int64(-1)
	for i := 0; i <= n; i++ {
		if s := al.rowA[i] + al.rowB[n-i]; best < 0 || s < best {
			best, mid1 = s, i
		}
	}
	return mid1, mid2, int(al.rowA[mid1]), int(al.rowB[n-mid1])
}

func reverse(dst, s []int32) []int32 {
	for i := len(s) - 1; i >= 0; i-- {
		dst = append(dst, s[i])
	}
	return dst
}

// distance is the plain Levenshtein distance (torchmetrics' _edit_distance), computed
// bit-parallel.
func (al *aligner) distance(s1, s2 []int32) int64 {
	s1, s2 = removeAffix(s1, s2)
	if len(s1) == 0 || len(s2) == 0 {
		return int64(len(s1) + len(s2))
	}
	al.rowA = al.lastRow(s1, s2, al.rowA)
	return al.rowA[len(s1)]
}
