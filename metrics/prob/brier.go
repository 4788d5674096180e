package prob

import (
	"fmt"
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

// Brier is the `brier` metric (scikit-learn brier_score_loss, multiclass as in ≥ 1.7 with
// scale_by_half='auto'). It is immutable and safe for concurrent use.
type Brier struct {
	posLabel    int64
	hasPosLabel bool
	posName     string // pos_label as a class name (the option's text)
	sig         string
}

// NewBrier returns `brier`: preset `sklearn`; option `pos_label` (0 or 1, or a class name:
// which class a float prediction is the probability of).
func NewBrier(o *core.Options) (core.Metric, error) {
	compat := o.String("compat", "sklearn", "sklearn")
	m := &Brier{hasPosLabel: o.Has("pos_label")}
	sig := core.NewSig("brier", compat)
	raw := ""
	if m.hasPosLabel {
		raw = o.String("pos_label", "")
	}
	switch {
	case !m.hasPosLabel:
		m.posLabel, m.posName = 1, "1"
	case raw == "0" || raw == "1":
		m.posLabel = o.Int("pos_label", 1, 0, 1)
		m.posName = raw
		sig.Int("pos_label", m.posLabel)
	default:
		// A class name, kept verbatim: "+1" or "2" name classes, as in scikit-learn.
		if raw == "" {
			o.Problem("pos_label", "must be 0, 1 or a class name, got an empty string")
		}
		m.posName, m.posLabel = raw, -1
		sig.Add("pos_label", raw)
	}
	m.sig = sig.String()
	return m, nil
}

var brierRoles = logLossRoles

// Roles lists prediction and label.
func (m *Brier) Roles() []core.Role { return brierRoles }

// Signature identifies the metric and its options.
func (m *Brier) Signature() string { return m.sig }

func (m *Brier) read(ex *core.Example) (record, error) {
	r, err := readNamed(ex, true)
	if err == nil && !r.named && m.posLabel < 0 {
		return r, core.Reject("wrong type", "label", "class id %d: pos_label %q is a class name, so labels must be class names", r.label, m.posName)
	}
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
	return &BrierState{m: m, sumState: sumState{shape: newShape()}, names: names{max: MaxNameClasses}}
}

// BrierState holds the record count, the exact sum of the per-record squared errors and the
// shape of the records (a few hundred bytes). It is not safe for concurrent use.
type BrierState struct {
	m *Brier
	sumState
	names names // class names: per name, the count and the sums of addListTerms (a float prediction: its terms in cols[0])
}

// Add folds one record weight times; records Check rejects are ignored. Each difference is
// rounded as numpy computes it (a binary p becomes the columns [1 − p, p]); the squares and
// their sum are exact.
func (s *BrierState) Add(ex *core.Example, weight int64) {
	r, err := s.m.read(ex)
	if err != nil || weight <= 0 {
		return
	}
	hadIDs := s.names.seen&seenIDs != 0 || (s.names.seen == 0 && s.n > 0)
	s.n += weight
	w := float64(weight)
	if r.named {
		s.shape.addWidth(r.width)
		if hadIDs {
			s.names.note(seenIDs)
		}
		if s.names.note(seenNames) {
			if e := s.names.entry(r.name); e != nil {
				e.n += weight
				if r.width == 1 {
					e.grow(1)
					addBinaryTerm(&e.cols[0], r.p, r.name == s.m.posName, w)
				} else {
					addListTerms(e, r.xs, w)
				}
			}
		}
		s.dropIfMixed()
		return
	}
	if s.names.seen != 0 {
		s.shape.addWidth(r.width)
		s.names.note(seenIDs)
		s.dropIfMixed()
		return
	}
	s.shape.add(&r)
	if r.width == 1 {
		addBinaryTerm(&s.sum, r.p, r.label == s.m.posLabel, w)
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
	sIDs := s.names.seen&seenIDs != 0 || (s.names.seen == 0 && s.n > 0)
	oIDs := o.names.seen&seenIDs != 0 || (o.names.seen == 0 && o.n > 0)
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

// dropIfMixed drops the id sums of a state that no longer counts, so that its bytes do not
// depend on the order it saw its records in.
func (s *BrierState) dropIfMixed() {
	if s.names.dropped() {
		s.sum, s.shape.maxLabel = core.Sum{}, -1
	}
}

// addBinaryTerm adds w times the squared error of a binary prediction p (t = 1 when the
// record is of the positive class), on the columns [1 − p, p] rounded as numpy does; the
// squares are exact.
func addBinaryTerm(sum *core.Sum, p float64, positive bool, w float64) {
	t := 0.0
	if positive {
		t = 1
	}
	for _, d := range [2]float64{(1 - t) - (1 - p), t - p} {
		sum.AddProduct(d*d, w)
		sum.AddProduct(math.FMA(d, d, -d*d), w)
	}
}

// MarshalBinary writes the signature, the count, the sum and the shape; with class names,
// format version 2 and the per-name sums (states of class ids keep version 1 and its bytes).
func (s *BrierState) MarshalBinary() ([]byte, error) {
	return marshalNamed(&s.sumState, &s.names, s.m.sig), nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Brier) DecodeState(b []byte) (core.State, error) {
	ss, t, err := unmarshalNamed(b, "brier", m.sig, MaxNameClasses, brierCols)
	if err != nil {
		return nil, err
	}
	return &BrierState{m: m, sumState: ss, names: t}, nil
}

// brierCols is the number of sums a name keeps for records of w probabilities: the sum of a
// float prediction's terms, or the base sum and one correction per column (addListTerms).
func brierCols(w int) int {
	if w == 1 {
		return 1
	}
	return 1 + w
}

// Result is the mean per-record squared error summed over the columns, halved for inputs with
// at most two columns (scale_by_half='auto').
func (s *BrierState) Result() core.Result {
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

// namedResult is the result of a state that has seen class names: the records of pos_label
// are positive, every other name negative, as brier_score_loss does with string labels.
func (s *BrierState) namedResult(details map[string]any) core.Result {
	t := &s.names
	if r, undefined := t.undefined(s.shape, details); undefined {
		return r
	}
	switch {
	case s.shape.width == 1 && len(t.entries) > 2:
		details["help"] = "a float prediction is binary: at most two class names; scikit-learn raises: The type of the target inferred from y_true is multiclass but should be binary according to the shape of y_prob."
		return core.Undefined("more than two class names", details)
	}
	cls := make([]string, len(t.entries))
	for i := range t.entries {
		cls[i] = t.entries[i].name
	}
	details["classes"] = cls
	var sum core.Sum
	if s.shape.width == 1 {
		if !s.m.hasPosLabel {
			details["help"] = fmt.Sprintf("labels are class names: set the option pos_label (scikit-learn raises: y_true takes value in %s and pos_label is not specified)", pySet(cls))
			return core.Undefined("pos_label needed", details)
		}
		for i := range t.entries {
			if len(t.entries[i].cols) > 0 {
				sum.Merge(&t.entries[i].cols[0])
			}
		}
	} else {
		switch {
		case len(t.entries) < 2:
			details["help"] = fmt.Sprintf("scikit-learn raises: y_true contains only one label (%s)", cls[0])
			return core.Undefined("fewer than 2 classes", details)
		case len(t.entries) != s.shape.width:
			details["columns"] = s.shape.width
			details["help"] = fmt.Sprintf("scikit-learn raises: y_true and y_prob contain different number of classes: %d vs %d", len(t.entries), s.shape.width)
			return core.Undefined("class count mismatch", details)
		}
		// The name at sorted position i is the one-hot column i: its records' terms are the
		// base sum plus column i's correction.
		for i := range t.entries {
			e := &t.entries[i]
			if len(e.cols) > i+1 {
				sum.Merge(&e.cols[0])
				sum.Merge(&e.cols[i+1])
			}
		}
	}
	v := sum.Float() / float64(s.n)
	if s.shape.width <= 2 {
		v *= 0.5
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined("overflow", details)
	}
	return core.Result{Value: v, Details: details}
}

// pySet formats names as Python prints a set of strings: {'a', 'b'}.
func pySet(names []string) string {
	q := ""
	for i, n := range names {
		if i > 0 {
			q += ", "
		}
		q += "'" + n + "'"
	}
	return "{" + q + "}"
}

// addListTerms adds w times a list prediction's squared errors for every column the name
// may turn out to be: cols[0] gets Σ_k p_k² (the errors if the name were no column) and
// cols[1+j] the correction (1 − p_j)² − p_j² for the name being column j. Differences are
// rounded as numpy computes them; the squares are exact.
func addListTerms(e *nameSums, xs []float64, w float64) {
	e.grow(1 + len(xs))
	for _, p := range xs {
		d := -p
		e.cols[0].AddProduct(d*d, w)
		e.cols[0].AddProduct(math.FMA(d, d, -d*d), w)
	}
	for j, p := range xs {
		d, q := 1-p, -p
		c := &e.cols[1+j]
		c.AddProduct(d*d, w)
		c.AddProduct(math.FMA(d, d, -d*d), w)
		c.AddProduct(q*q, -w)
		c.AddProduct(math.FMA(q, q, -q*q), -w)
	}
}
