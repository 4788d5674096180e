package asr

import (
	"fmt"
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

// State is the state of every metric of this package: the summed alignment counts of the
// records (hits, substitutions, deletions, insertions), the summed longer length of each
// pair (torchmetrics' MER/WIL/WIP denominator) and the number of records. Integer counts:
// merges are exact, so the result does not depend on how records were split. Memory: O(1)
// plus per-state scratch (the alignment's bit matrix, sized by the largest pair). A State
// is not safe for concurrent use.
type State struct {
	m                    *Metric
	hits, subs, dels, in int64
	longer               int64 // Σ max(reference length, hypothesis length)
	n                    int64 // records
	sc                   scratch
}

// Add implements core.State.
func (s *State) Add(ex *core.Example, weight int64) { s.add(s.m.measure(ex, &s.sc), weight) }

// AddReplicas implements core.ReplicaAdder: the record is aligned once.
func (s *State) AddReplicas(ex *core.Example, states []core.State, weights []int64) {
	c := s.m.measure(ex, &s.sc)
	for i, st := range states {
		if weights[i] > 0 {
			st.(*State).add(c, weights[i])
		}
	}
}

func (s *State) add(c counts, weight int64) {
	s.hits += c.hits * weight
	s.subs += c.subs * weight
	s.dels += c.dels * weight
	s.in += c.ins * weight
	s.longer += max(c.hits+c.subs+c.dels, c.hits+c.subs+c.ins) * weight
	s.n += weight
}

// Merge implements core.State.
func (s *State) Merge(other core.State) error {
	o, ok := other.(*State)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.hits += o.hits
	s.subs += o.subs
	s.dels += o.dels
	s.in += o.in
	s.longer += o.longer
	s.n += o.n
	return nil
}

// Result implements core.State.
func (s *State) Result() core.Result {
	refLen := s.hits + s.subs + s.dels
	hypLen := s.hits + s.subs + s.in
	details := map[string]any{
		"hits": s.hits, "substitutions": s.subs, "deletions": s.dels, "insertions": s.in,
		"reference_length": refLen, "hypothesis_length": hypLen, "count": s.n,
	}
	if s.n == 0 {
		return core.Undefined("no records", details)
	}
	if s.m.text.torch {
		return s.torchmetrics(details)
	}
	errs := s.subs + s.dels + s.in
	var v float64
	switch s.m.typ {
	case "wer", "cer":
		if refLen == 0 {
			// jiwer 4's edge case for empty references: the rate is the number of insertions.
			v = float64(s.in)
			details["note"] = "every reference is empty: jiwer returns the number of insertions"
		} else {
			v = float64(errs) / float64(refLen)
		}
	case "mer":
		switch {
		case refLen > 0:
			v = float64(errs) / float64(s.hits+errs)
		case hypLen > 0:
			v = 1
		}
	case "wip", "wil":
		wip := s.jiwerWIP(refLen, hypLen)
		v = wip
		if s.m.typ == "wil" {
			v = 1 - wip
		}
	}
	return core.Result{Value: v, Details: details}
}

// jiwerWIP is jiwer 4's word information preserved, with its edge cases: 1 when both sides
// are empty everywhere, 0 when only the references are, 0 when the hypotheses are.
func (s *State) jiwerWIP(refLen, hypLen int64) float64 {
	switch {
	case refLen == 0 && hypLen == 0:
		return 1
	case refLen == 0 || hypLen == 0:
		return 0
	}
	h := float64(s.hits)
	// The explicit conversion keeps the compiler from fusing the product into 1 - wip.
	return float64((h / float64(refLen)) * (h / float64(hypLen)))
}

// torchmetrics computes the torchmetrics 1.9 value in float32, as its tensors do (exact for
// counts below 2^24, where torchmetrics' float32 running sums are exact too).
func (s *State) torchmetrics(details map[string]any) core.Result {
	refLen := s.hits + s.subs + s.dels
	hypLen := s.hits + s.subs + s.in
	errs := float32(s.subs + s.dels + s.in)
	details["errors"] = s.subs + s.dels + s.in
	var v float32
	switch s.m.typ {
	case "wer", "cer":
		v = errs / float32(refLen)
	case "mer":
		v = errs / float32(s.longer)
	case "wil", "wip":
		x := errs - float32(s.longer)
		v = float32(float32(x/float32(refLen)) * float32(x/float32(hypLen)))
		if s.m.typ == "wil" {
			v = 1 - v
		}
	}
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		unit := "reference words"
		if s.m.text.chars {
			unit = "reference characters"
		}
		switch {
		case s.m.typ == "mer":
			return core.Undefined("every reference and prediction is empty (torchmetrics returns NaN)", details)
		case (s.m.typ == "wil" || s.m.typ == "wip") && refLen > 0:
			return core.Undefined("no prediction words (torchmetrics returns NaN)", details)
		}
		return core.Undefined(fmt.Sprintf("no %s (torchmetrics divides by zero: %v)", unit, v), details)
	}
	return core.Result{Value: float64(v), Details: details}
}

const stateVersion = 1

// MarshalBinary implements core.State.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	e.Int64s([]int64{s.hits, s.subs, s.dels, s.in, s.longer, s.n})
	return e.B, nil
}

// DecodeState implements core.Metric.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version(m.typ, stateVersion)
	sig := d.String()
	xs := d.Int64s()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	if len(xs) != 6 {
		return nil, fmt.Errorf("%w: %s state has %d counts, want 6", core.ErrCorruptState, m.typ, len(xs))
	}
	s := &State{m: m, hits: xs[0], subs: xs[1], dels: xs[2], in: xs[3], longer: xs[4], n: xs[5]}
	for _, x := range xs {
		if x < 0 {
			return nil, fmt.Errorf("%w: negative count in %s state", core.ErrCorruptState, m.typ)
		}
	}
	if s.longer < max(s.hits+s.subs+s.dels, s.hits+s.subs+s.in) || s.longer > s.hits+s.subs+s.dels+s.in {
		return nil, fmt.Errorf("%w: %s state lengths are inconsistent", core.ErrCorruptState, m.typ)
	}
	return s, nil
}
