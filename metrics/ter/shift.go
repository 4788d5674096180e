package ter

import (
	"errors"
	"math"
)

// The limits of sacrebleu's lib_ter (Tercom's, plus sacrebleu's own candidate cap).
const (
	maxShiftSize       = 10
	maxShiftDist       = 50
	beamWidth          = 25
	maxShiftCandidates = 1000
)

// inf stands for sacrebleu's _INT_INFINITY: a cell outside the beam. Cells never hold more
// than inf (a cell keeps inf unless a cheaper operation is found), so int32 cannot overflow
// for any text that fits in memory.
const inf = int32(1 << 30)

// Edit operations of a trace, as sacrebleu's (before its flip).
const (
	opNop byte = iota
	opSub
	opIns // consumes a reference word
	opDel // consumes a hypothesis word
	opUndef
)

// errBeam is returned when the traceback meets a cell the beam never reached. sacrebleu
// raises "unknown operation 'x'" there; its beam widening makes that unreachable.
var errBeam = errors.New("ter: beam search left the alignment disconnected")

// aligner computes sacrebleu's translation_edit_rate for one hypothesis against one
// reference at a time, with token ids for words. Its buffers are reused between calls; it
// is owned by one goroutine.
//
// sacrebleu caches matrix rows in a trie keyed by hypothesis prefixes. Row i depends only on
// the first i words (the beam limits depend on the lengths, which shifts keep), so any row
// computed for the same prefix is the same row. Here the rows of the current hypothesis
// (base) and of the last candidate (cand) are kept, and a candidate starts from the longer
// prefix it shares with either.
type aligner struct {
	ref []int32
	n   int // hypothesis length (shifts keep it)
	m   int // reference length

	lo []int // per row: first column in the beam
	hi []int // per row: one past the last column in the beam

	base []int32 // (n+1)×(m+1) cost matrix of cur
	cand []int32 // rows candBase+1..candValid of the last candidate's matrix
	// The last candidate's rows 0..candBase are base rows; rows candBase+1..candValid are in
	// cand; candValid < 0 means there is no last candidate.
	candBase, candValid int
	candWords           []int32
	candCur             int // the length of the prefix the last candidate shares with cur

	cur, shifted []int32
	trace        []byte
	align        []int // reference position → hypothesis position (-1: before the first)
	hypErr       []int // prefix sums of the hypothesis error flags (n+1)
	refErr       []int // prefix sums of the reference error flags (m+1)
}

func growInt32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}

func growInt(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n)
	}
	return b[:n]
}

// setup prepares the beam limits for a hypothesis of n words against ref
// (BeamEditDistance._edit_distance's pseudo-diagonal and beam width).
func (a *aligner) setup(n int, ref []int32) {
	a.ref, a.n, a.m = ref, n, len(ref)
	m := a.m
	ratio := 1.0
	if n > 0 {
		ratio = float64(m) / float64(n)
	}
	bw := beamWidth
	if float64(beamWidth) < ratio/2 {
		bw = int(math.Ceil(ratio/2 + beamWidth))
	}
	a.lo, a.hi = growInt(a.lo, n+1), growInt(a.hi, n+1)
	a.lo[0], a.hi[0] = 0, m+1
	for i := 1; i <= n; i++ {
		pd := int(math.Floor(float64(i) * ratio))
		lo, hi := max(0, pd-bw), min(m+1, pd+bw)
		if i == n {
			hi = m + 1
		}
		// An empty beam (lo ≥ hi) computes nothing: the row stays at inf.
		a.lo[i], a.hi[i] = lo, max(lo, hi)
	}
	size := (n + 1) * (m + 1)
	a.base, a.cand = growInt32(a.base, size), growInt32(a.cand, size)
	for j := 0; j <= m; j++ {
		a.base[j] = int32(j)
	}
	a.candValid = -1
	a.align = growInt(a.align, m)
	a.hypErr, a.refErr = growInt(a.hypErr, n+1), growInt(a.refErr, m+1)
}

// rows computes rows from+1..n of words into dst, row from being prev. It stops early once
// no cell of a row can lead to a distance below limit, and returns the last row computed and
// the value: the distance, or a value ≥ limit after an early stop. The bound of cell (i, j)
// is its cost plus |(n-i) - (m-j)|: every step costs at most one word of the length
// difference, and costs never decrease along a path.
func (a *aligner) rows(dst, prev []int32, words []int32, from int, limit int32) (int, int32) {
	m, w := a.m, a.m+1
	for i := from + 1; i <= a.n; i++ {
		cur := dst[i*w : (i+1)*w]
		lo, hi := a.lo[i], a.hi[i]
		for j := 0; j < lo; j++ {
			cur[j] = inf
		}
		for j := hi; j <= m; j++ {
			cur[j] = inf
		}
		h := words[i-1]
		bound := inf
		// rest is (n-i) - (m-j) for the current j.
		rest := int32(a.n - i - m + lo)
		j := lo
		if j == 0 && j < hi {
			// sacrebleu sets the first column unconditionally (it is always reachable).
			cur[0] = prev[0] + 1
			bound = cur[0] + abs32(rest)
			j = 1
			rest++
		}
		if j < hi {
			left := cur[j-1]
			ref := a.ref[j-1 : hi-1]
			p := prev[j-1 : hi]
			c := cur[j:hi]
			for k, r := range ref {
				d := p[k]
				if h != r {
					d++
				}
				d = min(d, inf, p[k+1]+1, left+1)
				c[k] = d
				left = d
				bound = min(bound, d+abs32(rest))
				rest++
			}
		}
		if bound >= limit {
			return i, bound
		}
		prev = cur
	}
	return a.n, prev[m]
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// alignment traces the matrix of cur back and derives sacrebleu's trace_to_alignment of the
// flipped trace: align, and prefix sums of the hypothesis and reference error flags. The
// operation of a cell is recomputed from its neighbours with sacrebleu's preference:
// no-op/substitution, then deletion, then insertion, each only when strictly cheaper.
func (a *aligner) alignment() error {
	w := a.m + 1
	a.trace = a.trace[:0]
	i, j := a.n, a.m
	for i > 0 || j > 0 {
		var op byte
		switch {
		case i == 0:
			op = opIns
		case j < a.lo[i] || j >= a.hi[i]:
			op = opUndef
		case j == 0:
			op = opDel
		default:
			c, o := inf, opUndef
			sub, sop := a.base[(i-1)*w+j-1]+1, opSub
			if a.cur[i-1] == a.ref[j-1] {
				sub, sop = sub-1, opNop
			}
			if sub < c {
				c, o = sub, sop
			}
			if d := a.base[(i-1)*w+j] + 1; d < c {
				c, o = d, opDel
			}
			if in := a.base[i*w+j-1] + 1; in < c {
				o = opIns
			}
			op = o
		}
		a.trace = append(a.trace, op)
		switch op {
		case opNop, opSub:
			i--
			j--
		case opIns:
			j--
		case opDel:
			i--
		default:
			return errBeam
		}
	}
	ph, pr := -1, -1
	a.hypErr[0], a.refErr[0] = 0, 0
	for k := len(a.trace) - 1; k >= 0; k-- {
		switch a.trace[k] {
		case opNop, opSub:
			e := 0
			if a.trace[k] == opSub {
				e = 1
			}
			ph++
			pr++
			a.align[pr] = ph
			a.hypErr[ph+1] = a.hypErr[ph] + e
			a.refErr[pr+1] = a.refErr[pr] + e
		case opDel: // flipped to an insertion: a hypothesis word with no reference word
			ph++
			a.hypErr[ph+1] = a.hypErr[ph] + 1
		case opIns: // flipped to a deletion: a reference word aligned after hypothesis ph
			pr++
			a.align[pr] = ph
			a.refErr[pr+1] = a.refErr[pr] + 1
		}
	}
	return nil
}

func commonPrefix(x, y []int32, from int) int {
	k := from
	for k < len(x) && x[k] == y[k] {
		k++
	}
	return k
}

// candidateCost is the edit distance of a.shifted, whose first kBase words equal those of
// cur, or a value ≥ limit when it is at least limit.
func (a *aligner) candidateCost(kBase int, limit int32) int32 {
	w := a.m + 1
	if kBase >= a.n {
		return a.base[a.n*w+a.m]
	}
	start, prev := kBase, a.base[kBase*w:(kBase+1)*w]
	newBase := kBase
	if a.candValid > kBase {
		// The last candidate's rows beyond kBase are its own; reuse them where it agrees.
		if kl := min(commonPrefix(a.shifted, a.candWords, min(kBase, a.candCur)), a.candValid); kl > kBase {
			if kl >= a.n {
				return a.cand[a.n*w+a.m]
			}
			start, prev, newBase = kl, a.cand[kl*w:(kl+1)*w], a.candBase
			if a.candBase > kBase {
				newBase = kBase
			}
		}
	}
	last, c := a.rows(a.cand, prev, a.shifted, start, limit)
	a.candBase, a.candValid, a.candCur = newBase, last, kBase
	a.candWords = append(a.candWords[:0], a.shifted...)
	return c
}

// perform is sacrebleu's _perform_shift, with Python's clamped slices.
func perform(dst, words []int32, start, length, target int) []int32 {
	n := len(words)
	sl := func(i, j int) []int32 {
		i, j = min(max(i, 0), n), min(max(j, 0), n)
		if i >= j {
			return nil
		}
		return words[i:j]
	}
	dst = dst[:0]
	switch {
	case target < start:
		dst = append(dst, sl(0, target)...)
		dst = append(dst, sl(start, start+length)...)
		dst = append(dst, sl(target, start)...)
		dst = append(dst, sl(start+length, n)...)
	case target > start+length:
		dst = append(dst, sl(0, start)...)
		dst = append(dst, sl(start+length, target)...)
		dst = append(dst, sl(start, start+length)...)
		dst = append(dst, sl(target, n)...)
	default:
		dst = append(dst, sl(0, start)...)
		dst = append(dst, sl(start+length, length+target)...)
		dst = append(dst, sl(start, start+length)...)
		dst = append(dst, sl(length+target, n)...)
	}
	return dst
}

// candidate orders shifts as sacrebleu's tuple (gain, length, -start, -target): the larger
// wins, the first one found wins a full tie.
type candidate struct {
	ok                    bool
	gain                  int32
	length, start, target int
}

func (c candidate) beats(b candidate) bool {
	switch {
	case !b.ok:
		return true
	case c.gain != b.gain:
		return c.gain > b.gain
	case c.length != b.length:
		return c.length > b.length
	case c.start != b.start:
		return c.start < b.start
	}
	return c.target < b.target
}

// edits is sacrebleu's translation_edit_rate(hyp, ref)[0]: the number of shifts plus the
// beam edit distance after them.
func (a *aligner) edits(hyp, ref []int32) (int64, error) {
	if len(ref) == 0 {
		return int64(len(hyp)), nil
	}
	n := len(hyp)
	a.setup(n, ref)
	a.cur = append(a.cur[:0], hyp...)
	a.rows(a.base, a.base[:a.m+1], a.cur, 0, inf+1)
	shifts, checked := int64(0), 0
	for {
		if err := a.alignment(); err != nil {
			return 0, err
		}
		pre := a.base[a.n*(a.m+1)+a.m]
		best, c := a.bestShift(pre, checked)
		checked = c
		if checked >= maxShiftCandidates || !best.ok || best.gain <= 0 {
			return shifts + int64(pre), nil
		}
		shifts++
		a.shifted = perform(a.shifted, a.cur, best.start, best.length, best.target)
		k := commonPrefix(a.shifted, a.cur, min(best.start, best.target))
		a.cur, a.shifted = a.shifted, a.cur
		w := a.m + 1
		a.rows(a.base, a.base[k*w:(k+1)*w], a.cur, k, inf+1)
		a.candValid = -1
	}
}

// bestShift is sacrebleu's _shift: it tries every shift of a matching word run (at most
// maxShiftSize words, moved at most maxShiftDist positions away from its reference match)
// and returns the best one and the updated count of tried candidates.
func (a *aligner) bestShift(pre int32, checked int) (candidate, int) {
	var best candidate
	h, r := a.cur, a.ref
	n, m := len(h), len(r)
	for sh := 0; sh < n; sh++ {
		for sr := max(0, sh-maxShiftDist); sr < m && sr <= sh+maxShiftDist; sr++ {
			for length := 1; length <= maxShiftSize && sh+length <= n && sr+length <= m && h[sh+length-1] == r[sr+length-1]; length++ {
				if a.hypErr[sh+length] == a.hypErr[sh] || a.refErr[sr+length] == a.refErr[sr] {
					continue
				}
				if al := a.align[sr]; sh <= al && al < sh+length {
					continue
				}
				prevIdx := -1
				for off := -1; off < length; off++ {
					idx := 0
					if sr+off >= 0 {
						idx = a.align[sr+off] + 1
					}
					if idx == prevIdx {
						continue
					}
					prevIdx = idx
					a.shifted = perform(a.shifted, h, sh, length, idx)
					k := commonPrefix(a.shifted, h, min(sh, idx))
					c := candidate{ok: true, length: length, start: sh, target: idx}
					// The cost that would make this candidate win: below pre-best.gain, or
					// equal to it when the rest of the tuple wins the tie.
					// Only a gain of at least 1 can matter: with no positive gain the search
					// stops whichever shift is best, and the running maximum of sacrebleu
					// is the first maximal candidate, so lesser candidates never change it.
					limit := pre
					if best.ok {
						limit = pre - best.gain
						c.gain = best.gain
						if c.beats(best) {
							limit++
						}
					}
					cost := a.candidateCost(k, limit)
					checked++
					if cost < limit {
						c.gain = pre - cost
						if c.beats(best) {
							best = c
						}
					}
				}
				if checked >= maxShiftCandidates {
					return best, checked
				}
			}
		}
	}
	return best, checked
}
