package prob

import (
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

// Brier is the `brier` metric (scikit-learn brier_score_loss, multiclass as in ≥ 1.7 with
// scale_by_half='auto'). It is immutable and safe for concurrent use.
type Brier struct {
	posLabel    int64
	hasPosLabel bool
	sig         string
}

// NewBrier returns `brier`: preset `sklearn`; option `pos_label` (0 or 1: which class a float
// prediction is the probability of).
func NewBrier(o *core.Options) (core.Metric, error) {
	compat := o.String("compat", "sklearn", "sklearn")
	m := &Brier{hasPosLabel: o.Has("pos_label")}
	m.posLabel = o.Int("pos_label", 1, 0, 1)
	m.sig = core.NewSig("brier", compat).Int("pos_label", m.posLabel).String()
	return m, nil
}

// Roles lists prediction and label.
func (m *Brier) Roles() []core.Role { return roles }

// Signature identifies the metric and its options.
func (m *Brier) Signature() string { return m.sig }

func (m *Brier) read(ex *core.Example) (record, error) {
	r, err := read(ex)
	if err == nil && r.width >= 2 && m.hasPosLabel {
		// scikit-learn ignores pos_label for a probability list; an option must never be
		// silently ignored, and the input kind is only known per record.
		return r, core.Reject("wrong type", "prediction", "pos_label applies to a float (binary) prediction only, got a list of %d probabilities", r.width)
	}
	return r, err
}

// Check validates the prediction and the label.
func (m *Brier) Check(ex *core.Example) error {
	_, err := m.read(ex)
	return err
}

// NewState returns an empty state.
func (m *Brier) NewState() core.State {
	return &BrierState{m: m, sumState: sumState{shape: newShape()}}
}

// BrierState holds the record count, the exact sum of the per-record squared errors and the
// shape of the records (a few hundred bytes). It is not safe for concurrent use.
type BrierState struct {
	m *Brier
	sumState
}

// Add folds one record weight times; records Check rejects are ignored. Each difference is
// rounded as numpy computes it (a binary p becomes the columns [1 − p, p]); the squares and
// their sum are exact.
func (s *BrierState) Add(ex *core.Example, weight int64) {
	r, err := s.m.read(ex)
	if err != nil || weight <= 0 {
		return
	}
	s.n += weight
	s.shape.add(&r)
	w := float64(weight)
	if r.width == 1 {
		t := 0.0
		if r.label == s.m.posLabel {
			t = 1
		}
		for _, d := range [2]float64{(1 - t) - (1 - r.p), t - r.p} {
			s.sum.AddProduct(d*d, w)
			s.sum.AddProduct(math.FMA(d, d, -d*d), w)
		}
		return
	}
	for k, p := range r.xs {
		d := -p
		if int64(k) == r.label {
			d = 1 - p
		}
		s.sum.AddProduct(d*d, w)
		s.sum.AddProduct(math.FMA(d, d, -d*d), w)
	}
}

// Merge adds other's count and sum exactly.
func (s *BrierState) Merge(other core.State) error {
	o, ok := other.(*BrierState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.merge(&o.sumState)
	return nil
}

// MarshalBinary writes the signature, the count, the sum and the shape.
func (s *BrierState) MarshalBinary() ([]byte, error) {
	return s.marshal(s.m.sig), nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Brier) DecodeState(b []byte) (core.State, error) {
	ss, err := unmarshalSumState(b, "brier", m.sig)
	if err != nil {
		return nil, err
	}
	return &BrierState{m: m, sumState: ss}, nil
}

// Result is the mean per-record squared error summed over the columns, halved for inputs with
// at most two columns (scale_by_half='auto').
func (s *BrierState) Result() core.Result {
	details := map[string]any{"n": s.n}
	if s.n == 0 {
		return core.Undefined("no records", details)
	}
	if s.shape.ragged {
		return core.Undefined("ragged scores", details)
	}
	// The binary path of brier_score_loss ignores the class count; the list path checks it.
	if s.shape.width >= 2 {
		if reason := s.shape.classCheck(details); reason != "" {
			return core.Undefined(reason, details)
		}
	}
	v := s.sum.Float() / float64(s.n)
	if s.shape.width <= 2 {
		v *= 0.5
	}
	if math.IsNaN(v) || math.IsInf(v, 0) { // only from a corrupt state: terms are at most 2
		return core.Undefined("overflow", details)
	}
	return core.Result{Value: v, Details: details}
}
