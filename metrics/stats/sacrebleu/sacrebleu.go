// Package sacrebleu reproduces sacrebleu 2.6's bootstrap confidence intervals
// (`--confidence`) and paired significance tests (`--paired-bs`, `--paired-ar`) exactly as
// they run under numpy 2.x: the same random draws (npyrand), the same float32 statistic sums,
// the same score arithmetic (core.StatsPrecision), the same means, interval bounds and
// p-value formulas. It works on per-segment statistics in input order, as sacrebleu's
// _extract_corpus_statistics gives them (see core.SegmentScorer), and is pure computation.
//
// What sacrebleu computes, and so what this package computes:
//
//   - Confidence (`--confidence`, Metric.corpus_score with n_bootstrap): rng =
//     default_rng(seed); idx = rng.choice(n, (B, n)); each resample's statistics are summed in
//     float32 and scored; the scores are sorted, the half-width is 0.5·(s[B−1−B//40] −
//     s[B//40]) and the mean is Python's statistics.mean (exact, then rounded).
//   - PairedBS (significance._paired_bs_test): the same indices for the baseline and every
//     system; each system's mean and half-width come from significance.estimate_ci (numpy's
//     pairwise-summed mean of the sorted scores); the p-value is (1 + #{b : d_b − mean(d) >
//     |Δ|}) / (B + 1) with d_b = |sys_b − base_b| and Δ the difference of the full-corpus
//     scores. This centred one-sided count is sacrebleu's own statistic, not a two-sided
//     bootstrap test.
//   - PairedAR (significance._paired_ar_test): per system a fresh default_rng(seed) draws a
//     (T, n) boolean matrix; trial t swaps the two systems' statistics of segment i where the
//     matrix is false; p = (1 + #{t : |score(A_t) − score(B_t)| > |Δ|}) / (T + 1). With
//     confidence > 0 the same generator then draws the system's bootstrap indices.
package sacrebleu

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats/npyrand"
)

// Scorer computes sacrebleu's score of summed statistics; core.SegmentScorer implements it.
// ScoreFromStats must not retain sum and must be deterministic.
type Scorer interface {
	ScoreFromStats(sum []float64, p core.StatsPrecision) (score float64, f32 bool)
}

// Stats holds the per-segment statistics of one system in input order: len(Data)/Dim rows of
// Dim values, row-major. The functions of this package only read it.
type Stats struct {
	Dim  int
	Data []float64
}

// Rows is the number of segments.
func (s Stats) Rows() int {
	if s.Dim <= 0 {
		return 0
	}
	return len(s.Data) / s.Dim
}

// Result is what sacrebleu reports for one system, on sacrebleu's 0..100 scale. PValue is NaN
// for the baseline; Mean and HalfWidth are NaN where sacrebleu computes no interval (AR
// without confidence resamples). Stderr, which sacrebleu does not report, is the standard
// deviation (ddof 1) of Confidence's resample scores (NaN elsewhere).
type Result struct {
	Score     float64
	PValue    float64
	Mean      float64
	HalfWidth float64
	Stderr    float64
}

// Errors for inputs sacrebleu rejects or that would not reproduce it.
var (
	ErrEmpty    = errors.New("sacrebleu: no segments (numpy's choice needs a population of at least 1)")
	ErrShape    = errors.New("sacrebleu: statistics of different shapes")
	ErrSamples  = errors.New("sacrebleu: the number of resamples or trials must be at least 1")
	ErrSeedZero = errors.New("sacrebleu: seed 0 is not reproducible in paired tests (sacrebleu then seeds the candidates' generator from the OS)")
	ErrMixed    = errors.New("sacrebleu: resample scores mix Python floats and numpy float32 (sacrebleu --confidence raises TypeError in statistics.mean)")
)

func check(systems ...Stats) error {
	if len(systems) == 0 || systems[0].Dim <= 0 || systems[0].Rows() == 0 {
		return ErrEmpty
	}
	d, n := systems[0].Dim, systems[0].Rows()
	for _, s := range systems {
		if s.Dim != d || len(s.Data) != n*d {
			return fmt.Errorf("%w: %d×%d and %d values of dimension %d", ErrShape, n, d, len(s.Data), s.Dim)
		}
	}
	return nil
}

// exactScore is metric._aggregate_and_compute(stats): sum_of_lists adds the Python numbers
// row after row.
func exactScore(sc Scorer, st Stats) float64 {
	v, _ := sc.ScoreFromStats(columnSums(st), core.StatsExact)
	return v
}

// scores are the scores of resamples or trials and whether each is a numpy float32.
type scores struct {
	v   []float64
	f32 []bool
}

// allF32 reports whether np.array(list) of the scores has dtype float32: a Python float among
// them makes it float64.
func (s scores) allF32() bool {
	for _, f := range s.f32 {
		if !f {
			return false
		}
	}
	return len(s.f32) > 0
}

// bootstrap is `[metric._compute_score_from_stats(_s.sum(0)) for _s in
// np.array(stats, dtype='float32')[idx]]`: numpy sums a C-ordered (n, d) float32 array over
// axis 0 row after row in float32.
func bootstrap(sc Scorer, st Stats, idx []int64, resamples int) scores {
	d, n := st.Dim, st.Rows()
	st32 := make([]float32, len(st.Data))
	for i, x := range st.Data {
		st32[i] = float32(x)
	}
	out := scores{v: make([]float64, resamples), f32: make([]bool, resamples)}
	acc := make([]float32, d)
	sum := make([]float64, d)
	for b := 0; b < resamples; b++ {
		clear(acc)
		for _, r := range idx[b*n : (b+1)*n] {
			row := st32[int(r)*d : int(r)*d+d]
			for j, x := range row {
				acc[j] += x
			}
		}
		for j, x := range acc {
			sum[j] = float64(x)
		}
		out.v[b], out.f32[b] = sc.ScoreFromStats(sum, core.StatsFloat32)
	}
	return out
}

// plan is the resamples of `choice(n, (resamples, n))` drawn with one seed, kept as how often
// each segment is drawn: what a resample's sum needs when the order of the additions does not
// matter (see countable). It is immutable and safe for concurrent use.
//
// The counts are packed for bootstrapSums: segments in blocks of 4, and for each block and
// resample one byte holding the block's counts min(c, 3) as four 2-bit digits (segment 4k+q
// in bits 2q..2q+1); a count above 3 (about 2% of them) leaves its excess in extra.
type plan struct {
	gen       npyrand.Generator // the generator before the draws, to draw them again
	n         int
	resamples int
	blocks    int     // ⌈n/4⌉
	digits    []uint8 // [block][resample]
	extra     []excess
	extraAt   []int32 // resample b's excesses are extra[extraAt[b]:extraAt[b+1]]
}

// excess is a segment drawn more than 3 times in a resample, and by how much.
type excess struct{ seg, more int32 }

// newPlan draws the resamples from seed's generator, as `default_rng(seed).choice(n,
// (resamples, n))`.
func newPlan(seed uint64, n, resamples int) (*plan, error) {
	return drawPlan(npyrand.New(seed), n, resamples)
}

// drawPlan draws the resamples from g, which it does not change. It draws them a resample
// at a time: numpy's choice keeps nothing between draws but the generator's spare 32 bits,
// which g keeps too, so the draws are those of one call.
func drawPlan(g *npyrand.Generator, n, resamples int) (*plan, error) {
	draws := *g
	p := &plan{gen: *g, n: n, resamples: resamples, blocks: (n + 3) / 4, extraAt: make([]int32, 1, resamples+1)}
	p.digits = make([]uint8, p.blocks*resamples)
	counts := make([]int32, 4*p.blocks)
	idx := make([]int64, n)
	for b := range resamples {
		if err := draws.Choice(int64(n), idx); err != nil {
			return nil, fmt.Errorf("sacrebleu: %w", err)
		}
		clear(counts)
		for _, r := range idx {
			counts[r]++
		}
		for blk := range p.blocks {
			var e uint8
			for q, c := range counts[4*blk : 4*blk+4] {
				if c > 3 {
					p.extra = append(p.extra, excess{int32(4*blk + q), c - 3})
					c = 3
				}
				e |= uint8(c) << (2 * q)
			}
			p.digits[blk*resamples+b] = e
		}
		p.extraAt = append(p.extraAt, int32(len(p.extra)))
	}
	return p, nil
}

// bootstrapScores is bootstrap over the plan's resamples, by integer sums when st is
// countable. kept, when not nil, holds the column sums of the statistics bootstrapped before
// with a plan: the columns st shares with them are not summed again, and st's replace them
// (then st must not change afterwards).
func bootstrapScores(sc Scorer, st Stats, p *plan, kept *keptColumns) (scores, error) {
	if !countable(st) {
		g := p.gen
		idx, err := indices(&g, p.n, p.resamples)
		if err != nil {
			return scores{}, err
		}
		return bootstrap(sc, st, idx, p.resamples), nil
	}
	d := st.Dim
	cols := make([][]uint64, d) // per statistic, its sum in every resample
	var todo []int
	for j := range cols {
		if cols[j] = kept.column(p, st, j); cols[j] == nil {
			todo = append(todo, j)
		}
	}
	if len(todo) > 0 {
		sub := st
		if len(todo) < d {
			sub = Stats{Dim: len(todo), Data: make([]float64, 0, st.Rows()*len(todo))}
			for i := 0; i < len(st.Data); i += d {
				for _, j := range todo {
					sub.Data = append(sub.Data, st.Data[i+j])
				}
			}
		}
		lanes := 2
		if bound(sub) < 1<<21 {
			lanes = 3
		}
		width := uint(64 / lanes)
		sums := bootstrapSums(sub, p, lanes)
		dw := (len(todo) + lanes - 1) / lanes
		for k, j := range todo {
			col := make([]uint64, p.resamples)
			w, sh := k/lanes, width*uint(k%lanes)
			for b := range col {
				col[b] = sums[b*dw+w] >> sh & (1<<width - 1)
			}
			cols[j] = col
		}
	}
	kept.keep(p, st, cols)
	out := scores{v: make([]float64, p.resamples), f32: make([]bool, p.resamples)}
	sum := make([]float64, d)
	for b := range p.resamples {
		for j, col := range cols {
			sum[j] = float64(col[b])
		}
		out.v[b], out.f32[b] = sc.ScoreFromStats(sum, core.StatsFloat32)
	}
	return out, nil
}

// keptColumns keeps, for a plan, the countable statistics last bootstrapped and each of
// their columns' sums in every resample. Systems scored against the same references share
// the statistics that only the references make (chrF's reference n-gram counts, BLEU's
// reference length when there is one reference): bootstrapScores then takes those columns'
// sums from here. The sums are exact integers, so a kept sum is the one summing again gives.
// The zero value is empty; a nil *keptColumns keeps nothing. It is safe for concurrent use.
type keptColumns struct {
	mu   sync.Mutex
	p    *plan
	data []float64 // the statistics (not a copy: see keep)
	d    int
	cols [][]uint64 // immutable once kept
}

// column returns the resample sums of column j of st if the kept statistics of plan p have
// the same column, else nil.
func (k *keptColumns) column(p *plan, st Stats, j int) []uint64 {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.p != p || k.d != st.Dim || len(k.data) != len(st.Data) {
		return nil
	}
	for i := j; i < len(st.Data); i += st.Dim {
		if k.data[i] != st.Data[i] {
			return nil
		}
	}
	return k.cols[j]
}

// keep makes st and its column sums cols the kept ones. Neither is copied: the caller must
// not change them afterwards (a state's derived statistics are immutable), and so the
// statistics kept cost no memory while their state holds them anyway.
func (k *keptColumns) keep(p *plan, st Stats, cols [][]uint64) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.p, k.d, k.cols, k.data = p, st.Dim, cols, st.Data
}

// bootstrapSums returns every resample's sums Σ_i c_i·s_i of the countable statistics st,
// packed lanes (2 or 3) to a word of 64/lanes bits each: statistic j in lane j%lanes of word
// j/lanes (resample b's ⌈d/lanes⌉ words after b·⌈d/lanes⌉).
//
// Why the integer sums are sacrebleu's: numpy adds the float32 rows of a resample one after
// another, and every partial sum is a whole number between 0 and the full sum, which is at
// most n·max(s) < 2^24 (countable): float32 holds each exactly, so no addition rounds and the
// result is the exact sum, in any order. Why lanes never carry into each other: a lane only
// ever holds non-negative partial sums of a resample, at most n·max(s), or (in the table) at
// most 3·4·max(s); bound is the larger, and 3 lanes of 21 bits are used only when it is below
// 2^21 (2 lanes of 32 bits hold anything countable).
//
// How: per block of 4 segments a table holds, for each of the 256 digit bytes, Σ_q digit_q ·
// s_{4k+q}; one addition of a table row then adds a whole block of a resample. The blocks are
// the outer loop so that one table (256 rows) stays in cache while every resample reads it.
func bootstrapSums(st Stats, p *plan, lanes int) []uint64 {
	d, n, B := st.Dim, p.n, p.resamples
	dw := (d + lanes - 1) / lanes
	width := 64 / lanes
	packed := make([]uint64, 4*p.blocks*dw)
	for i := range n {
		for j, x := range st.Data[i*d : i*d+d] {
			packed[i*dw+j/lanes] |= uint64(x) << (width * (j % lanes))
		}
	}
	acc := make([]uint64, B*dw)
	tab := make([]uint64, 2*256*dw)
	t1, t2 := tab[:256*dw], tab[256*dw:]
	for blk := 0; blk < p.blocks; blk += 2 {
		// Two blocks per pass over the resamples: each resample's sums are read and written
		// once for both, and the two tables still fit the first-level cache.
		fillTable(t1, packed[4*blk*dw:4*(blk+1)*dw], dw)
		d1 := p.digits[blk*B : (blk+1)*B]
		if blk+1 == p.blocks {
			addRows(acc, t1, d1, dw)
			break
		}
		fillTable(t2, packed[4*(blk+1)*dw:4*(blk+2)*dw], dw)
		addRows2(acc, t1, t2, d1, p.digits[(blk+1)*B:(blk+2)*B], dw)
	}
	for b := range B {
		a := acc[b*dw : b*dw+dw]
		for _, x := range p.extra[p.extraAt[b]:p.extraAt[b+1]] {
			row := packed[int(x.seg)*dw : int(x.seg)*dw+dw]
			for w := range a {
				a[w] += uint64(x.more) * row[w]
			}
		}
	}
	return acc
}

// fillTable fills the 256 rows of tab (dw words each) for the block of 4 segments whose
// packed statistics are rows: row e = Σ_q digit_q(e) · segment q, each built from a smaller
// one by adding one segment.
func fillTable(tab, rows []uint64, dw int) {
	for e := 1; e < 256; e++ {
		q := bits.TrailingZeros8(uint8(e)) / 2
		prev := e - 1<<(2*q)
		switch dw {
		case 4:
			d, s, a := (*[4]uint64)(tab[4*e:]), (*[4]uint64)(tab[4*prev:]), (*[4]uint64)(rows[4*q:])
			d[0], d[1], d[2], d[3] = s[0]+a[0], s[1]+a[1], s[2]+a[2], s[3]+a[3]
		case 5:
			d, s, a := (*[5]uint64)(tab[5*e:]), (*[5]uint64)(tab[5*prev:]), (*[5]uint64)(rows[5*q:])
			d[0], d[1], d[2], d[3], d[4] = s[0]+a[0], s[1]+a[1], s[2]+a[2], s[3]+a[3], s[4]+a[4]
		case 6:
			d, s, a := (*[6]uint64)(tab[6*e:]), (*[6]uint64)(tab[6*prev:]), (*[6]uint64)(rows[6*q:])
			d[0], d[1], d[2], d[3], d[4], d[5] = s[0]+a[0], s[1]+a[1], s[2]+a[2], s[3]+a[3], s[4]+a[4], s[5]+a[5]
		default:
			d, s, a := tab[e*dw:e*dw+dw], tab[prev*dw:prev*dw+dw], rows[q*dw:q*dw+dw]
			for w := range d {
				d[w] = s[w] + a[w]
			}
		}
	}
}

// addRows adds row digits[b] of tab (rows of dw words) to row b of acc, for every b. The
// common widths are written out: the compiler then keeps the row in registers and checks
// bounds once per row.
func addRows(acc, tab []uint64, digits []uint8, dw int) {
	switch dw {
	case 4:
		for b, e := range digits {
			a, r := (*[4]uint64)(acc[4*b:]), (*[4]uint64)(tab[4*int(e):])
			a[0] += r[0]
			a[1] += r[1]
			a[2] += r[2]
			a[3] += r[3]
		}
	case 5:
		for b, e := range digits {
			a, r := (*[5]uint64)(acc[5*b:]), (*[5]uint64)(tab[5*int(e):])
			a[0] += r[0]
			a[1] += r[1]
			a[2] += r[2]
			a[3] += r[3]
			a[4] += r[4]
		}
	case 6:
		for b, e := range digits {
			a, r := (*[6]uint64)(acc[6*b:]), (*[6]uint64)(tab[6*int(e):])
			a[0] += r[0]
			a[1] += r[1]
			a[2] += r[2]
			a[3] += r[3]
			a[4] += r[4]
			a[5] += r[5]
		}
	default:
		for b, e := range digits {
			a, r := acc[b*dw:b*dw+dw], tab[int(e)*dw:int(e)*dw+dw]
			for w := range a {
				a[w] += r[w]
			}
		}
	}
}

// addRows2Go is addRows of two tables and their digits at once: row d1[b] of t1 plus row
// d2[b] of t2 to row b of acc. The pair adds a partial sum of resample b, so it stays
// within a lane's bound. addRows2 is this, or the same in assembly.
func addRows2Go(acc, t1, t2 []uint64, d1, d2 []uint8, dw int) {
	d2 = d2[:len(d1)]
	switch dw {
	case 3:
		for b, e := range d1 {
			a, r, q := (*[3]uint64)(acc[3*b:]), (*[3]uint64)(t1[3*int(e):]), (*[3]uint64)(t2[3*int(d2[b]):])
			a[0] += r[0] + q[0]
			a[1] += r[1] + q[1]
			a[2] += r[2] + q[2]
		}
	case 4:
		for b, e := range d1 {
			a, r, q := (*[4]uint64)(acc[4*b:]), (*[4]uint64)(t1[4*int(e):]), (*[4]uint64)(t2[4*int(d2[b]):])
			a[0] += r[0] + q[0]
			a[1] += r[1] + q[1]
			a[2] += r[2] + q[2]
			a[3] += r[3] + q[3]
		}
	case 5:
		for b, e := range d1 {
			a, r, q := (*[5]uint64)(acc[5*b:]), (*[5]uint64)(t1[5*int(e):]), (*[5]uint64)(t2[5*int(d2[b]):])
			a[0] += r[0] + q[0]
			a[1] += r[1] + q[1]
			a[2] += r[2] + q[2]
			a[3] += r[3] + q[3]
			a[4] += r[4] + q[4]
		}
	case 6:
		for b, e := range d1 {
			a, r, q := (*[6]uint64)(acc[6*b:]), (*[6]uint64)(t1[6*int(e):]), (*[6]uint64)(t2[6*int(d2[b]):])
			a[0] += r[0] + q[0]
			a[1] += r[1] + q[1]
			a[2] += r[2] + q[2]
			a[3] += r[3] + q[3]
			a[4] += r[4] + q[4]
			a[5] += r[5] + q[5]
		}
	default:
		addRows(acc, t1, d1, dw)
		addRows(acc, t2, d2, dw)
	}
}

// bound is the largest value a lane of bootstrapSums can hold for countable st:
// max(n, 12)·max(s).
func bound(st Stats) float64 {
	mx := 0.0
	for _, x := range st.Data {
		mx = max(mx, x)
	}
	return float64(max(st.Rows(), 12)) * mx
}

// countable reports whether bootstrapSums may add st's statistics as integers: whole,
// non-negative statistics whose column maximum times the number of segments stays below
// 2^24 (the largest running sum any resample can reach).
func countable(st Stats) bool {
	d, n := st.Dim, st.Rows()
	for j := 0; j < d; j++ {
		mx := 0.0
		for i := 0; i < n; i++ {
			x := st.Data[i*d+j]
			if x < 0 || x != math.Trunc(x) {
				return false
			}
			mx = max(mx, x)
		}
		if mx*float64(n) >= 1<<24 {
			return false
		}
	}
	return true
}

func choice(seed uint64, n, resamples int) ([]int64, error) {
	return indices(npyrand.New(seed), n, resamples)
}

// indices is g.choice(n, (resamples, n)); it advances g.
func indices(g *npyrand.Generator, n, resamples int) ([]int64, error) {
	idx := make([]int64, resamples*n)
	if err := g.Choice(int64(n), idx); err != nil {
		return nil, fmt.Errorf("sacrebleu: %w", err)
	}
	return idx, nil
}

// Confidence is `sacrebleu --confidence` for one system: its score and the bootstrap mean
// and half-width of `resamples` resamples drawn with seed (SACREBLEU_SEED).
func Confidence(sc Scorer, st Stats, resamples int, seed uint64) (Result, error) {
	if err := check(st); err != nil {
		return Result{}, err
	}
	if resamples < 1 {
		return Result{}, ErrSamples
	}
	p, err := newPlan(seed, st.Rows(), resamples)
	if err != nil {
		return Result{}, err
	}
	bs, err := bootstrapScores(sc, st, p, nil)
	if err != nil {
		return Result{}, err
	}
	return confidence(exactScore(sc, st), bs)
}

// confidence is Confidence's result for a system of score score whose resamples scored bs.
func confidence(score float64, bs scores) (Result, error) {
	res := Result{Score: score, PValue: math.NaN(), Stderr: math.NaN()}
	var err error
	res.Mean, res.HalfWidth, err = cliEstimate(bs)
	if len(bs.v) > 1 {
		var sum, ss float64
		for _, v := range bs.v {
			sum += v
		}
		mean := sum / float64(len(bs.v))
		for _, v := range bs.v {
			ss += (v - mean) * (v - mean)
		}
		res.Stderr = math.Sqrt(ss / float64(len(bs.v)-1))
	}
	return res, err
}

// PairedBS is `sacrebleu --paired-bs`: results[0] is the baseline (score, mean, half-width),
// then one result per system with sacrebleu's p-value against the baseline.
func PairedBS(sc Scorer, baseline Stats, systems []Stats, resamples int, seed uint64) ([]Result, error) {
	if err := check(append([]Stats{baseline}, systems...)...); err != nil {
		return nil, err
	}
	if resamples < 1 {
		return nil, ErrSamples
	}
	if seed == 0 && len(systems) > 0 {
		return nil, ErrSeedZero
	}
	// The baseline's _bootstrap_resample and every system's test seed a fresh generator with
	// the same seed and draw the same choice first: one set of resamples serves all.
	p, err := newPlan(seed, baseline.Rows(), resamples)
	if err != nil {
		return nil, err
	}
	blScore := exactScore(sc, baseline)
	var kept keptColumns
	bl, err := bootstrapScores(sc, baseline, p, &kept)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, 1+len(systems))
	m, hw := npEstimate(bl)
	out = append(out, Result{Score: blScore, PValue: math.NaN(), Mean: m, HalfWidth: hw, Stderr: math.NaN()})
	for _, sys := range systems {
		score := exactScore(sc, sys)
		ss, err := bootstrapScores(sc, sys, p, &kept)
		if err != nil {
			return nil, err
		}
		m, hw := npEstimate(ss)
		out = append(out, Result{Score: score, PValue: bsPValue(blScore, bl, score, ss), Mean: m, HalfWidth: hw, Stderr: math.NaN()})
	}
	return out, nil
}

// bsPValue is _paired_bs_test's p-value of a system (full score score, resample scores ss)
// against the baseline (blScore, bl) on the same resamples.
func bsPValue(blScore float64, bl scores, score float64, ss scores) float64 {
	diff := math.Abs(blScore - score)
	// sample_diffs = np.abs(scores_sys - scores_bl); stats = sample_diffs - mean.
	f32 := ss.allF32() && bl.allF32()
	d := make([]float64, len(ss.v))
	for b := range d {
		d[b] = round(math.Abs(round(ss.v[b]-bl.v[b], f32)), f32)
	}
	mean := npMean(d, f32)
	for b := range d {
		d[b] = round(d[b]-mean, f32)
	}
	return pValue(d, diff, f32)
}

// PairedAR is `sacrebleu --paired-ar` with `trials` trials: results[0] is the baseline, then
// one result per system with sacrebleu's p-value. With confidence > 0 (PairedTest's
// n_ar_confidence; the CLI passes none) every result also gets a bootstrap mean and
// half-width from that many resamples.
func PairedAR(sc Scorer, baseline Stats, systems []Stats, trials, confidence int, seed uint64) ([]Result, error) {
	if err := check(append([]Stats{baseline}, systems...)...); err != nil {
		return nil, err
	}
	if trials < 1 {
		return nil, ErrSamples
	}
	if seed == 0 && len(systems) > 0 {
		return nil, ErrSeedZero
	}
	return pairedAR(sc, baseline, systems, drawSwaps(seed, baseline.Rows(), trials), confidence, seed)
}

// swaps is the (trials, n) boolean matrix that every system's test draws first from a fresh
// generator with the seed, packed (bit t·n + i), with one spare word so that 8-bit reads at
// any offset stay in range, and the generator after it. It is immutable.
type swaps struct {
	n, trials int
	pos       []uint64
	after     npyrand.Generator
	// blocks holds the same bits by block of 8 segments, block-major: byte [blk·trials + t]
	// is trial t's bits of segments 8·blk..8·blk+7 (bit q for segment 8·blk+q; past n, the
	// next trial's, which swapTable ignores), the order swapTable.sums reads them in.
	blocks []uint8
}

func drawSwaps(seed uint64, n, trials int) *swaps {
	nbits := trials * n
	sw := &swaps{n: n, trials: trials, pos: make([]uint64, (nbits+63)/64+1), after: *npyrand.New(seed)}
	sw.after.BoolBits(sw.pos, nbits)
	sw.blocks = blockBytes(sw.pos, n, trials)
	return sw
}

// blockBytes regroups the bits t·n + i of pos (with one spare word) as swaps.blocks.
func blockBytes(pos []uint64, n, trials int) []uint8 {
	nb := (n + 7) / 8
	out := make([]uint8, nb*trials)
	for t := range trials {
		for blk := range nb {
			b := t*n + blk*8
			w, sh := b/64, uint(b%64)
			v := pos[w] >> sh
			if sh > 56 {
				v |= pos[w+1] << (64 - sh)
			}
			out[blk*trials+t] = uint8(v)
		}
	}
	return out
}

// pairedAR is PairedAR on checked inputs, with the swaps of its seed.
func pairedAR(sc Scorer, baseline Stats, systems []Stats, sw *swaps, confidence int, seed uint64) ([]Result, error) {
	n, d, trials, pos := baseline.Rows(), baseline.Dim, sw.trials, sw.pos
	blScore := exactScore(sc, baseline)
	nan := math.NaN()
	out := make([]Result, 0, 1+len(systems))
	bres := Result{Score: blScore, PValue: nan, Mean: nan, HalfWidth: nan, Stderr: nan}
	if confidence > 0 {
		p, err := newPlan(seed, n, confidence)
		if err != nil {
			return nil, err
		}
		bs, err := bootstrapScores(sc, baseline, p, nil)
		if err != nil {
			return nil, err
		}
		bres.Mean, bres.HalfWidth = npEstimate(bs)
	}
	out = append(out, bres)
	shufA, shufB := make([]float64, d), make([]float64, d)
	sumBL := columnSums(baseline)
	sa := scores{v: make([]float64, trials), f32: make([]bool, trials)}
	sb := scores{v: make([]float64, trials), f32: make([]bool, trials)}
	var tab swapTable
	for _, sys := range systems {
		score := exactScore(sc, sys)
		diff := math.Abs(blScore - score)
		// shuf_a = pos_sel @ bl + ~pos_sel @ sys, shuf_b the other way round.
		sumSys := columnSums(sys)
		if tab.build(baseline, sys) {
			// Whole-number statistics: numpy's sums are exact in any order, so shuf_a =
			// Σsys + Σ_{pos}(bl − sys), read 8 segments at a time from a table of subset sums,
			// and shuf_b = Σbl + Σsys − shuf_a.
			tab.sums(sw.blocks, trials)
			for t := 0; t < trials; t++ {
				copy(shufA, sumSys)
				for c, j := range tab.dims {
					shufA[j] += float64(tab.diff(t, c))
				}
				for j := range shufB {
					shufB[j] = sumBL[j] + sumSys[j] - shufA[j]
				}
				sa.v[t], sa.f32[t] = sc.ScoreFromStats(shufA, core.StatsInt64)
				sb.v[t], sb.f32[t] = sc.ScoreFromStats(shufB, core.StatsInt64)
			}
		} else {
			// Fractional statistics (TER's average length over several references): summed
			// row by row, as a plain matrix product would.
			for t := 0; t < trials; t++ {
				clear(shufA)
				clear(shufB)
				for i := 0; i < n; i++ {
					a, b := baseline.Data[i*d:i*d+d], sys.Data[i*d:i*d+d]
					if bit := t*n + i; pos[bit/64]>>(bit%64)&1 == 0 {
						a, b = b, a
					}
					for j := range shufA {
						shufA[j] += a[j]
						shufB[j] += b[j]
					}
				}
				sa.v[t], sa.f32[t] = sc.ScoreFromStats(shufA, core.StatsInt64)
				sb.v[t], sb.f32[t] = sc.ScoreFromStats(shufB, core.StatsInt64)
			}
		}
		f32 := sa.allF32() && sb.allF32()
		ds := make([]float64, trials)
		for t := range ds {
			ds[t] = round(math.Abs(round(sa.v[t]-sb.v[t], f32)), f32)
		}
		res := Result{Score: score, PValue: pValue(ds, diff, f32), Mean: nan, HalfWidth: nan, Stderr: nan}
		if confidence > 0 {
			// The same generator, after the boolean matrix, draws the bootstrap indices.
			p, err := drawPlan(&sw.after, n, confidence)
			if err != nil {
				return nil, err
			}
			bs, err := bootstrapScores(sc, sys, p, nil)
			if err != nil {
				return nil, err
			}
			res.Mean, res.HalfWidth = npEstimate(bs)
		}
		out = append(out, res)
	}
	return out, nil
}

func columnSums(st Stats) []float64 {
	sum := make([]float64, st.Dim)
	for i := 0; i < len(st.Data); i += st.Dim {
		for j, x := range st.Data[i : i+st.Dim] {
			sum[j] += x
		}
	}
	return sum
}

// swapTable sums, for every trial, (baseline − system) over the segments the trial swaps,
// for the statistics where the two systems differ anywhere. It is reused across systems.
//
// The differences are signed; the table keeps them as non-negative lanes packed several to
// a word: a segment adds max(d, 0) where its bit is set and max(−d, 0) where it is not, so a
// trial's lane is Σ_{set} d + Σ_i max(−d_i, 0) — the sum wanted plus a bias the same for every
// trial (neg) — and never exceeds Σ_i |d_i|. With that below 2^w for every statistic, lanes of
// w bits never carry into each other: 4 lanes of 16 bits, 3 of 21, 2 of 32 or 1 of 64.
type swapTable struct {
	n      int
	dims   []int    // statistics with a non-zero difference somewhere
	lanes  int      // statistics per word
	width  uint     // bits per lane
	words  int      // words per segment, table row and trial
	neg    []int64  // per statistic of dims: Σ_i max(−d_i, 0)
	blocks int      // ⌈n/8⌉
	up     []uint64 // per segment: the words of max(d, 0)
	down   []uint64 // per segment: the words of max(−d, 0)
	tab    []uint64 // two blocks' 256 rows
	acc    []uint64 // per trial: words
}

// build fills the table for one pair of systems. It is false, and the table unusable, when a
// statistic is not a whole number or too large to sum exactly in int64.
func (s *swapTable) build(bl, sys Stats) bool {
	const limit = 1 << 27
	n, d := bl.Rows(), bl.Dim
	s.n, s.dims = n, s.dims[:0]
	var most float64 // the largest Σ_i |d_i|
	for j := 0; j < d; j++ {
		abs := 0.0
		for i := 0; i < n; i++ {
			a, b := bl.Data[i*d+j], sys.Data[i*d+j]
			if a != math.Trunc(a) || b != math.Trunc(b) || math.Abs(a) > limit || math.Abs(b) > limit {
				return false
			}
			abs += math.Abs(a - b)
		}
		if abs > 0 {
			s.dims = append(s.dims, j)
			most = max(most, abs)
		}
	}
	switch {
	case most < 1<<16:
		s.lanes = 4
	case most < 1<<21:
		s.lanes = 3
	case most < 1<<32:
		s.lanes = 2
	default:
		s.lanes = 1
	}
	s.width = uint(64 / s.lanes)
	k := len(s.dims)
	s.words = max(1, (k+s.lanes-1)/s.lanes)
	s.blocks = (n + 7) / 8
	s.neg = grow(s.neg, k)
	s.up, s.down = grow(s.up, 8*s.blocks*s.words), grow(s.down, 8*s.blocks*s.words)
	for i := 0; i < n; i++ {
		up, down := s.up[i*s.words:(i+1)*s.words], s.down[i*s.words:(i+1)*s.words]
		for c, j := range s.dims {
			x := int64(bl.Data[i*d+j] - sys.Data[i*d+j])
			w, sh := c/s.lanes, s.width*uint(c%s.lanes)
			if x >= 0 {
				up[w] |= uint64(x) << sh
			} else {
				down[w] |= uint64(-x) << sh
				s.neg[c] -= x
			}
		}
	}
	return true
}

// grow returns x resized to n zeros, reusing its memory.
func grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	x = x[:n]
	clear(x)
	return x
}

// sums adds up every trial's lanes from the swaps' bytes by block (swaps.blocks): bit q of
// trial t's byte for block blk set means segment 8·blk+q keeps the baseline's statistics in
// pseudo-system A. It walks the blocks in the outer loop so that a block's 256-row table
// stays in cache while every trial reads it. Bits past the n segments of a trial (the next
// trial's) fall on segments that do not exist, whose rows are zero. diff then reads the sums.
func (s *swapTable) sums(blocks []uint8, trials int) {
	W := s.words
	s.acc = grow(s.acc, trials*W)
	s.tab = grow(s.tab, 2*256*W)
	acc := s.acc
	for blk := 0; blk < s.blocks; blk += 2 {
		// Two blocks per pass over the trials: each trial's sums are read and written once
		// for both, and the two tables still fit the first-level cache.
		t1, t2 := s.tab[:256*W], s.tab[256*W:]
		s.fill(t1, blk)
		b1 := blocks[blk*trials : (blk+1)*trials]
		if blk+1 == s.blocks {
			addTrials(acc, t1, b1, W)
			break
		}
		s.fill(t2, blk+1)
		b2 := blocks[(blk+1)*trials : (blk+2)*trials]
		switch W {
		case 2:
			for t, v := range b1 {
				a, r, q := (*[2]uint64)(acc[2*t:]), (*[2]uint64)(t1[2*int(v):]), (*[2]uint64)(t2[2*int(b2[t]):])
				a[0] += r[0] + q[0]
				a[1] += r[1] + q[1]
			}
		case 3:
			for t, v := range b1 {
				a, r, q := (*[3]uint64)(acc[3*t:]), (*[3]uint64)(t1[3*int(v):]), (*[3]uint64)(t2[3*int(b2[t]):])
				a[0] += r[0] + q[0]
				a[1] += r[1] + q[1]
				a[2] += r[2] + q[2]
			}
		case 4:
			for t, v := range b1 {
				a, r, q := (*[4]uint64)(acc[4*t:]), (*[4]uint64)(t1[4*int(v):]), (*[4]uint64)(t2[4*int(b2[t]):])
				a[0] += r[0] + q[0]
				a[1] += r[1] + q[1]
				a[2] += r[2] + q[2]
				a[3] += r[3] + q[3]
			}
		default:
			addTrials(acc, t1, b1, W)
			addTrials(acc, t2, b2, W)
		}
	}
}

// fill writes block blk's table into tab: row m is Σ_{q in m} max(d_q, 0) + Σ_{q not in m}
// max(−d_q, 0) over the block's 8 segments, each row built from a smaller one.
func (s *swapTable) fill(tab []uint64, blk int) {
	W := s.words
	up, down := s.up[blk*8*W:(blk+1)*8*W], s.down[blk*8*W:(blk+1)*8*W]
	row0 := tab[:W]
	clear(row0)
	for q := 0; q < 8; q++ {
		for w, x := range down[q*W : q*W+W] {
			row0[w] += x
		}
	}
	for m := 1; m < 256; m++ {
		q := bits.TrailingZeros8(uint8(m))
		prev := m & (m - 1)
		row, src := tab[m*W:m*W+W], tab[prev*W:prev*W+W]
		u, dn := up[q*W:q*W+W], down[q*W:q*W+W]
		for w := range row {
			row[w] = src[w] + u[w] - dn[w]
		}
	}
}

// addTrials adds row bytes[t] of tab (rows of W words) to trial t's sums, for every t.
func addTrials(acc, tab []uint64, bytes []uint8, W int) {
	for t, v := range bytes {
		a, r := acc[W*t:W*t+W], tab[W*int(v):W*int(v)+W]
		for w := range a {
			a[w] += r[w]
		}
	}
}

// diff is, after sums, trial t's Σ (baseline − system) of statistic dims[c] over the
// segments the trial keeps.
func (s *swapTable) diff(t, c int) int64 {
	x := s.acc[t*s.words+c/s.lanes] >> (s.width * uint(c%s.lanes))
	if s.lanes > 1 {
		x &= 1<<s.width - 1
	}
	return int64(x) - s.neg[c]
}

// pValue is significance._compute_p_value: (1 + #{stats > diff}) / (len + 1). Comparing a
// float32 array with a Python float casts the float to float32 (NEP 50).
func pValue(stats []float64, diff float64, f32 bool) float64 {
	thr := round(diff, f32)
	c := 0
	for _, x := range stats {
		if x > thr {
			c++
		}
	}
	return float64(c+1) / float64(len(stats)+1)
}

func round(x float64, f32 bool) float64 {
	if f32 {
		return float64(float32(x))
	}
	return x
}

// bounds returns the sorted values and the lower and upper values of the 95% interval
// (indices n//40 and n − n//40 − 1).
func bounds(v []float64) (sorted []float64, lo, hi int) {
	sorted = slices.Clone(v)
	slices.Sort(sorted)
	n := len(sorted)
	lo = n / 40
	return sorted, lo, n - lo - 1
}

// npEstimate is significance.estimate_ci on np.array(scores): the mean of the sorted array
// (numpy's pairwise sum) and 0.5 * (upper - lower), in the array's dtype.
func npEstimate(s scores) (mean, halfWidth float64) {
	f32 := s.allF32()
	sorted, lo, hi := bounds(s.v)
	return npMean(sorted, f32), round(0.5*round(sorted[hi]-sorted[lo], f32), f32)
}

// cliEstimate is Score.estimate_ci, which `--confidence` uses: Python's sorted, the same
// bounds, and statistics.mean: the exact rational mean, rounded to a Python float and, for
// numpy float32 scores, to float32 (statistics.mean refuses to mix the two).
func cliEstimate(s scores) (mean, halfWidth float64, err error) {
	f32 := s.allF32()
	if !f32 {
		for _, f := range s.f32 {
			if f {
				return 0, 0, ErrMixed
			}
		}
	}
	sorted, lo, hi := bounds(s.v)
	return round(exactMean(s.v), f32), round(0.5*round(sorted[hi]-sorted[lo], f32), f32), nil
}

// exactMean is the mean of finite v computed exactly and rounded once to the nearest float64
// (statistics.mean's exact fractions): each value is a 53-bit integer times a power of two,
// so the sum is an integer times 2^emin, added up in a big.Int; one rational division
// rounds it.
func exactMean(v []float64) float64 {
	emin := math.MaxInt
	for _, x := range v {
		if x != 0 {
			_, e := math.Frexp(x)
			emin = min(emin, e-53)
		}
	}
	if emin == math.MaxInt {
		return 0 // all zero (statistics.mean gives 0.0 for zeros, whatever their signs)
	}
	var sum, t big.Int
	for _, x := range v {
		if x == 0 {
			continue
		}
		fr, e := math.Frexp(x)
		t.SetInt64(int64(fr * (1 << 53))) // exact: |fr| in [0.5, 1)
		sum.Add(&sum, t.Lsh(&t, uint(e-53-emin)))
	}
	den := big.NewInt(int64(len(v)))
	if emin < 0 {
		den.Lsh(den, uint(-emin))
	} else {
		sum.Lsh(&sum, uint(emin))
	}
	mean, _ := new(big.Rat).SetFrac(&sum, den).Float64()
	return mean
}

// npMean is ndarray.mean for a 1-d float64 or float32 array: numpy's pairwise sum (one
// inner-loop call covers the whole contiguous array), then a division rounded to the dtype.
func npMean(v []float64, f32 bool) float64 {
	if f32 {
		xs := make([]float32, len(v))
		for i, x := range v {
			xs[i] = float32(x)
		}
		return round(float64(pairwise(xs))/float64(len(v)), true)
	}
	return pairwise(v) / float64(len(v))
}

// pwBlock is numpy's PW_BLOCKSIZE: below it, eight interleaved accumulators.
const pwBlock = 128

// pairwise is numpy's DOUBLE_pairwise_sum and FLOAT_pairwise_sum
// (numpy/_core/src/umath/loops_utils.h.src): the same order of additions, each rounded to F
// (Go instantiates float32 and float64 separately), as numpy's loops do.
func pairwise[F float32 | float64](a []F) F {
	n := len(a)
	switch {
	case n < 8:
		res := F(math.Copysign(0, -1))
		for _, x := range a {
			res += x
		}
		return res
	case n <= pwBlock:
		var r [8]F
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwise(a[:n2]) + pairwise(a[n2:])
}
