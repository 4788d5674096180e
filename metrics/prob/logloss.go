package prob

import (
	"math"
	"strconv"
	"strings"

	"github.com/evalstream/evalstream/metrics/core"
)

const stateVersion = 1

// machineEps is numpy's float64 machine epsilon: scikit-learn ≥ 1.5 clips every probability to
// [eps, 1 − eps] before the logarithm.
const machineEps = 0x1p-52

// LogLoss is the `log_loss` metric (scikit-learn log_loss). It is immutable and safe for
// concurrent use.
type LogLoss struct {
	hasEps    bool
	eps       float64
	normalize bool
	sig       string
}

// NewLogLoss returns `log_loss`: preset `sklearn`; options `eps` (none, or a clip applied
// before scikit-learn's own) and `normalize` (mean, or the sum when false).
func NewLogLoss(o *core.Options) (core.Metric, error) {
	compat := o.String("compat", "sklearn", "sklearn")
	m := &LogLoss{normalize: o.Bool("normalize", true)}
	epsName := "none"
	if s := strings.TrimSpace(o.String("eps", "none")); s != "none" {
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil:
			o.Problem("eps", "must be a number or none, got %q", s)
		case !(f > 0 && f < 0.5):
			o.Problem("eps", "must be in (0, 0.5), got %v", f)
		default:
			m.hasEps, m.eps, epsName = true, f, core.FormatFloat(f)
		}
	}
	m.sig = core.NewSig("log_loss", compat).Add("eps", epsName).YesNo("normalize", m.normalize).String()
	return m, nil
}

var logLossRoles = []core.Role{
	roles[0],
	{Name: "label", Field: "label", Required: true, Accepts: []core.Kind{core.Int, core.Bool, core.String}},
}

// Roles lists prediction and label (a class id, or a class name for a binary prediction).
func (m *LogLoss) Roles() []core.Role { return logLossRoles }

// Signature identifies the metric and its options.
func (m *LogLoss) Signature() string { return m.sig }

// Check validates the prediction and the label.
func (m *LogLoss) Check(ex *core.Example) error {
	_, err := readNamed(ex, true)
	return err
}

// NewState returns an empty state.
func (m *LogLoss) NewState() core.State {
	return &LogLossState{m: m, sumState: sumState{shape: newShape()}, names: names{max: MaxNameClasses}}
}

func (m *LogLoss) clip(p float64) float64 {
	if m.hasEps {
		p = min(max(p, m.eps), 1-m.eps)
	}
	return p
}

// term is one record's −log p(label), with p rounded and clipped as scikit-learn does: a
// binary prediction p becomes the columns [1 − p, p] (1 − p rounded), and every column is
// clipped to [machineEps, 1 − machineEps]. Rows are not renormalised (sklearn only warns).
func (m *LogLoss) term(r *record) float64 {
	var q float64
	if r.width == 1 {
		q = m.clip(r.p)
		if r.label == 0 {
			q = 1 - q
		}
	} else {
		q = m.clip(r.xs[r.label])
	}
	return -math.Log(min(max(q, machineEps), 1-machineEps))
}

// LogLossState holds the record count, the exact sum of the per-record losses and the shape
// of the records (a few hundred bytes); with class names, two exact sums per name instead of
// the sum. It is not safe for concurrent use.
type LogLossState struct {
	m *LogLoss
	sumState
	names names
}

// Add folds one record weight times; records Check rejects are ignored.
func (s *LogLossState) Add(ex *core.Example, weight int64) {
	r, err := readNamed(ex, true)
	if err != nil || weight <= 0 {
		return
	}
	hadIDs := s.idRecords()
	s.n += weight
	switch {
	case r.named:
		s.shape.addWidth(r.width)
		if hadIDs {
			s.names.note(seenIDs)
		}
		if !s.names.note(seenNames) {
			break
		}
		if e := s.names.entry(r.name); e != nil {
			k := max(r.width, 2)
			e.n += weight
			e.grow(k)
			for j := range k {
				e.cols[j].AddWeighted(s.m.colTerm(&r, j), weight)
			}
		}
	case s.names.seen != 0:
		s.shape.addWidth(r.width)
		s.names.note(seenIDs)
	default:
		s.sum.AddWeighted(s.m.term(&r), weight)
		s.shape.add(&r)
	}
	s.dropIfMixed()
}

// idRecords reports whether the state has seen records of class ids. A state of ids only
// does not flag them, so that its bytes stay those of format version 1.
func (s *LogLossState) idRecords() bool {
	return s.names.seen&seenIDs != 0 || (s.names.seen == 0 && s.n > 0)
}

// dropIfMixed drops the id sums of a state that no longer counts, so that its bytes do not
// depend on the order it saw its records in.
func (s *LogLossState) dropIfMixed() {
	if s.names.dropped() {
		s.sum, s.shape.maxLabel = core.Sum{}, -1
	}
}

// Merge adds other's count and sum exactly.
func (s *LogLossState) Merge(other core.State) error {
	o, ok := other.(*LogLossState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	sIDs, oIDs := s.idRecords(), o.idRecords()
	named := s.names.seen != 0 || o.names.seen != 0
	s.merge(&o.sumState)
	if named {
		if sIDs || oIDs {
			s.names.note(seenIDs)
		}
		s.names.merge(&o.names)
	}
	s.dropIfMixed()
	return nil
}

// MarshalBinary writes the signature, the count, the sum and the shape; with class names,
// format version 2 and the per-name sums (states of class ids keep version 1 and its bytes).
func (s *LogLossState) MarshalBinary() ([]byte, error) {
	return marshalNamed(&s.sumState, &s.names, s.m.sig), nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *LogLoss) DecodeState(b []byte) (core.State, error) {
	ss, t, err := unmarshalNamed(b, "log_loss", m.sig, MaxNameClasses, logLossCols)
	if err != nil {
		return nil, err
	}
	return &LogLossState{m: m, sumState: ss, names: t}, nil
}

// logLossCols is the number of sums a name keeps for records of w probabilities: one per
// column, a binary p being the columns [1 − p, p].
func logLossCols(w int) int { return max(w, 2) }

// Result is the mean (or, with normalize false, the sum) of the per-record losses.
func (s *LogLossState) Result() core.Result {
	details := map[string]any{"n": s.n}
	if s.n == 0 {
		return core.Undefined("no records", details)
	}
	if s.names.seen != 0 {
		return s.namedResult(details)
	}
	if s.shape.ragged {
		return core.Undefined("ragged scores", details)
	}
	if reason := s.shape.classCheck(details); reason != "" {
		return core.Undefined(reason, details)
	}
	v := s.sum.Float()
	if s.m.normalize {
		v /= float64(s.n)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined("overflow", details)
	}
	return core.Result{Value: v, Details: details}
}
