package rouge

import (
	"fmt"

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
type meanState struct {
	m       scorer
	sig     string
	p, r, f core.Sum
	n       int64
	sc      scratch
}

func newMeanState(m scorer) *meanState { return &meanState{m: m, sig: m.Signature()} }

// Add implements core.State.
func (s *meanState) Add(ex *core.Example, weight int64) {
	v, _ := s.m.example(ex, &s.sc)
	s.sc.done()
	s.p.AddWeighted(v.p, weight)
	s.r.AddWeighted(v.r, weight)
	s.f.AddWeighted(v.f, weight)
	s.n += weight
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
	s.n += o.n
	return nil
}

// Result implements core.State: the mean F, with the mean precision and recall in details.
func (s *meanState) Result() core.Result {
	if s.n == 0 {
		return core.Undefined("no records", map[string]any{"count": int64(0)})
	}
	n := float64(s.n)
	f := s.f.Float() / n
	return core.Result{Value: f, Details: map[string]any{
		"precision": s.p.Float() / n,
		"recall":    s.r.Float() / n,
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
	e.Sum(&s.p)
	e.Sum(&s.r)
	e.Sum(&s.f)
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
