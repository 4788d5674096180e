package rouge

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/evalstream/evalstream/metrics/core"
)

// scorer is what the states need from a metric: its signature and a per-example scorer.
type scorer interface {
	core.Metric
	// example scores one checked example: its P/R/F for the macro-averaged variants, and its
	// pooled counts (match = overlap, ref = reference n-grams) for MindNLP RougeN.
	example(ex *core.Example, sc *scratch) (s prf, t triple)
}

// meanState is the state of every macro-averaged ROUGE variant: exact sums of the
// per-example precision, recall and F, and the number of examples. Memory: O(1) (three exact
// sums of at most a few dozen partials each) plus the reusable scratch of the last example.
//
// Each sum is a core.Sum plus a fixed-point part (unitAcc) that takes the values of Add: they
// are in [0, 1], and adding one to a fixed-point integer costs a few instructions where
// core.Sum's exact addition costs a pass over its partials. Both parts are exact, so their
// total is the exact sum whichever part holds a term.
type meanState struct {
	m          scorer
	sig        string
	p, r, f    core.Sum
	ap, ar, af unitAcc
	n          int64
	sc         scratch
}

func newMeanState(m scorer) *meanState { return &meanState{m: m, sig: m.Signature()} }

// Add implements core.State.
func (s *meanState) Add(ex *core.Example, weight int64) {
	v, _ := s.m.example(ex, &s.sc)
	s.sc.done()
	addUnit(&s.p, &s.ap, v.p, weight)
	addUnit(&s.r, &s.ar, v.r, weight)
	addUnit(&s.f, &s.af, v.f, weight)
	s.n += weight
}

// addUnit adds x×w to the sum held by s and a: to a when it can hold x exactly (w = 1).
func addUnit(s *core.Sum, a *unitAcc, x float64, w int64) {
	if w != 1 || !a.add(x) {
		s.AddWeighted(x, w)
	}
}

// sums returns the exact sums of the precisions, recalls and Fs (copies: s is unchanged).
func (s *meanState) sums() (p, r, f core.Sum) {
	return s.ap.total(&s.p), s.ar.total(&s.r), s.af.total(&s.f)
}

// unitAcc is an exact sum of float64 values in [0, 1] whose last mantissa bit is worth at
// least 2^-128 (every value of at least 2^-76): the sum times 2^128 as a 192-bit integer.
// It holds the sum of fewer than 2^64 values, more than an int64 count of examples can
// reach.
type unitAcc struct{ lo, mid, hi uint64 }

// add adds x and reports true, or reports false (and adds nothing) when x is not a value
// unitAcc holds exactly.
func (a *unitAcc) add(x float64) bool {
	if x == 0 {
		return true
	}
	if !(x > 0 && x <= 1) {
		return false
	}
	b := math.Float64bits(x)
	exp := int(b >> 52) // the sign bit is 0
	if exp == 0 {
		return false // subnormal
	}
	mant := b&(1<<52-1) | 1<<52
	// x = mant × 2^(exp-1075), so x×2^128 = mant << (exp-947); x <= 1 bounds the shift by 76.
	sh := exp - 947
	if sh < 0 {
		return false
	}
	var w0, w1, w2 uint64
	if sh < 64 {
		w0, w1 = mant<<uint(sh), mant>>uint(64-sh)
	} else {
		w1, w2 = mant<<uint(sh-64), mant>>uint(128-sh)
	}
	var c uint64
	a.lo, c = bits.Add64(a.lo, w0, 0)
	a.mid, c = bits.Add64(a.mid, w1, c)
	a.hi, _ = bits.Add64(a.hi, w2, c)
	return true
}

// merge adds the sum of o.
func (a *unitAcc) merge(o *unitAcc) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, o.lo, 0)
	a.mid, c = bits.Add64(a.mid, o.mid, c)
	a.hi, _ = bits.Add64(a.hi, o.hi, c)
}

// total returns a copy of s plus a's sum, exactly: a's integer in 32-bit pieces, each an
// exact float64 once scaled by its power of two.
func (a *unitAcc) total(s *core.Sum) core.Sum {
	var t core.Sum
	t.Merge(s)
	for k, w := range [3]uint64{a.lo, a.mid, a.hi} {
		for half := 0; half < 2; half++ {
			if c := uint32(w >> (32 * uint(half))); c != 0 {
				t.Add(math.Ldexp(float64(c), 64*k+32*half-128))
			}
		}
	}
	return t
}

// Merge implements core.State.
func (s *meanState) Merge(other core.State) error {
	o, ok := other.(*meanState)
	if !ok || o.sig != s.sig {
		return core.Incompatible(s, other)
	}
	s.p.Merge(&o.p)
	s.r.Merge(&o.r)
	s.f.Merge(&o.f)
	s.ap.merge(&o.ap)
	s.ar.merge(&o.ar)
	s.af.merge(&o.af)
	s.n += o.n
	return nil
}

// Result implements core.State: the mean F, with the mean precision and recall in details.
func (s *meanState) Result() core.Result {
	if s.n == 0 {
		return core.Undefined("no records", map[string]any{"count": int64(0)})
	}
	n := float64(s.n)
	sp, sr, sf := s.sums()
	f := sf.Float() / n
	return core.Result{Value: f, Details: map[string]any{
		"precision": sp.Float() / n,
		"recall":    sr.Float() / n,
		"fmeasure":  f,
		"count":     s.n,
	}}
}

const meanStateVersion = 1

// MarshalBinary implements core.State.
func (s *meanState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(meanStateVersion)
	e.String(s.sig)
	sp, sr, sf := s.sums()
	e.Sum(&sp)
	e.Sum(&sr)
	e.Sum(&sf)
	e.Varint(s.n)
	return e.B, nil
}

func decodeMeanState(m scorer, b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("rouge", meanStateVersion)
	s := newMeanState(m)
	if err := checkSig(d, s.sig); err != nil {
		return nil, err
	}
	s.p, s.r, s.f = d.Sum(), d.Sum(), d.Sum()
	s.n = d.Varint()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.n < 0 || !unitSum(&s.p, s.n) || !unitSum(&s.r, s.n) || !unitSum(&s.f, s.n) {
		return nil, fmt.Errorf("%w: sums out of range", core.ErrCorruptState)
	}
	return s, nil
}

// unitSum reports whether s can be a sum of n values in [0, 1].
func unitSum(s *core.Sum, n int64) bool {
	x := s.Float()
	return x >= 0 && x <= float64(n)
}

// checkSig reads the signature a state was written with and refuses a different metric.
func checkSig(d *core.Decoder, want string) error {
	got := d.String()
	if err := d.Err(); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, got, want)
	}
	return nil
}

// pooledState is MindNLP RougeN's state: the set-based overlap and reference n-gram counts
// summed over every reference of every example. Memory: O(1).
type pooledState struct {
	m                   scorer
	sig                 string
	overlap, ref, count int64
	sc                  scratch
}

// Add implements core.State.
func (s *pooledState) Add(ex *core.Example, weight int64) {
	_, t := s.m.example(ex, &s.sc)
	s.sc.done()
	s.overlap += weight * t.match
	s.ref += weight * t.ref
	s.count += weight
}

// Merge implements core.State.
func (s *pooledState) Merge(other core.State) error {
	o, ok := other.(*pooledState)
	if !ok || o.sig != s.sig {
		return core.Incompatible(s, other)
	}
	s.overlap += o.overlap
	s.ref += o.ref
	s.count += o.count
	return nil
}

// Result implements core.State: overlap / reference n-grams (recall only).
func (s *pooledState) Result() core.Result {
	d := map[string]any{"overlap": s.overlap, "ref_ngrams": s.ref, "count": s.count}
	if s.ref == 0 {
		return core.Undefined("no reference n-grams", d)
	}
	v := float64(s.overlap) / float64(s.ref)
	d["recall"] = v
	return core.Result{Value: v, Details: d}
}

const pooledStateVersion = 1

// MarshalBinary implements core.State.
func (s *pooledState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(pooledStateVersion)
	e.String(s.sig)
	e.Varint(s.overlap)
	e.Varint(s.ref)
	e.Varint(s.count)
	return e.B, nil
}

func decodePooledState(m scorer, b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("rouge_n", pooledStateVersion)
	s := &pooledState{m: m, sig: m.Signature()}
	if err := checkSig(d, s.sig); err != nil {
		return nil, err
	}
	s.overlap, s.ref, s.count = d.Varint(), d.Varint(), d.Varint()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.overlap < 0 || s.ref < s.overlap || s.count < 0 {
		return nil, fmt.Errorf("%w: inconsistent counts", core.ErrCorruptState)
	}
	return s, nil
}
