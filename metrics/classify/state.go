package classify

import (
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
)

// State is the mergeable state of every classification metric: the confusion matrix (unused
// by accuracy) plus the correct and total counts. All counts are int64, so merging is exact
// and order-independent. A State is not safe for concurrent use.
type State struct {
	m       *Metric
	mat     matrix
	correct int64
	total   int64
}

// Add counts one checked record weight times. A record Check rejects is ignored.
func (s *State) Add(ex *core.Example, weight int64) {
	if weight <= 0 {
		return
	}
	o, err := s.m.decode(ex)
	if err != nil {
		return
	}
	s.total += weight
	if s.m.kind == kAccuracy {
		if o.correct {
			s.correct += weight
		}
		return
	}
	if w := max(o.pred.width, o.label.width); w > s.mat.n {
		s.mat.grow(w)
	}
	s.mat.add(int(o.label.id), int(o.pred.id), weight)
}

// Merge adds other's counts (the matrix is padded to the larger size).
func (s *State) Merge(other core.State) error {
	o, ok := other.(*State)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.mat.merge(&o.mat)
	s.correct += o.correct
	s.total += o.total
	return nil
}

// MarshalBinary writes the signature, the counts and the non-zero cells in row-major order:
// equal states give equal bytes.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	e.Varint(s.correct)
	e.Varint(s.total)
	s.mat.encode(&e)
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary of a metric with the same signature.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("classify", stateVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := &State{m: m}
	s.correct = d.Varint()
	s.total = d.Varint()
	var bad string
	fail := func(why string) {
		if bad == "" {
			bad = why
		}
	}
	if d.Err() == nil && (s.total < 0 || s.correct < 0 || s.correct > s.total) {
		fail("counts out of range")
	}
	if bad == "" {
		s.mat.decode(d, fail)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if bad != "" {
		return nil, fmt.Errorf("%w: classify: %s", core.ErrCorruptState, bad)
	}
	if m.kind != kAccuracy {
		var sum int64
		over := false
		s.mat.each(func(_, _ int, c int64) {
			sum += c
			if sum < 0 {
				over = true
			}
		})
		if over || sum != s.total || s.correct != 0 {
			return nil, fmt.Errorf("%w: classify: matrix does not add up to the record count", core.ErrCorruptState)
		}
		if m.numClasses > 0 && s.mat.n > m.numClasses {
			return nil, fmt.Errorf("%w: classify: %d classes, num_classes is %d", core.ErrCorruptState, s.mat.n, m.numClasses)
		}
	} else if s.mat.n != 0 {
		return nil, fmt.Errorf("%w: classify: accuracy state with a confusion matrix", core.ErrCorruptState)
	}
	return s, nil
}
