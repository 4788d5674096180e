// Package prob implements the metrics of predicted probabilities: log loss and the Brier score
// as scikit-learn computes them, and the calibration error (ECE, RMSCE, MCE) as torchmetrics
// computes it. A prediction is a float column (binary: a probability) or a list<float> (one
// probability per class); the label is a class id. Every float sum in a state is an exact
// core.Sum, so a result is bit-identical however the records were split, merged or ordered.
//
// Metrics are immutable and safe for concurrent use; states are not.
package prob

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

var roles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.Float, core.FloatList}},
	{Name: "label", Field: "label", Required: true, Accepts: []core.Kind{core.Int, core.Bool}},
}

// commonInvalid are the rejection reasons every metric of the package shares.
var commonInvalid = []string{
	"missing field: prediction or label absent or null",
	"wrong type: prediction not a number or a list of numbers; label not an integer class id",
	"wrong length: an empty prediction list",
	"non-finite value: NaN or ±Inf in the prediction",
	"probability out of range: a probability < 0 or > 1 (the reference libraries raise, or treat the values as logits)",
	"label out of range: a negative class id, an id > 1 with a float (binary) prediction, or an id >= the length of the prediction list",
}

// record is one validated record. width is 1 for a binary prediction (a float column, or a
// one-element list, which scikit-learn reads the same way) and the list length otherwise.
type record struct {
	width int
	p     float64   // the probability of a binary prediction
	xs    []float64 // the per-class probabilities (aliases the record) when width >= 2
	label int64
	name  string // a class name label (named); aliases the record
	named bool
}

func value(ex *core.Example, i int) *core.Value {
	if i < len(ex.Values) {
		return &ex.Values[i]
	}
	return &core.Value{Kind: core.Missing}
}

// checkProb validates one probability; index is its position in a list, or -1.
func checkProb(x float64, index int) error {
	if x >= 0 && x <= 1 {
		return nil
	}
	at := ""
	if index >= 0 {
		at = fmt.Sprintf(" at index %d", index)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return core.Reject("non-finite value", "prediction", "%v%s", x, at)
	}
	return core.Reject("probability out of range", "prediction", "%v%s: need a probability in [0, 1]", x, at)
}

// read validates the prediction and the label (a class id) of a record.
func read(ex *core.Example) (record, error) { return readNamed(ex, false) }

// readNamed validates the prediction and the label of a record; with names, the label may be
// a class name when the prediction is binary (a float, or a list of one or two).
func readNamed(ex *core.Example, names bool) (record, error) {
	var r record
	v := value(ex, 0)
	switch v.Kind {
	case core.Missing, core.Null:
		return r, core.Reject("missing field", "prediction", "need a probability or a list of probabilities")
	case core.Int, core.Bool:
		r.width, r.p = 1, float64(v.Int)
	case core.Float:
		r.width, r.p = 1, v.Float
	case core.FloatList, core.StringList:
		if v.Kind == core.StringList && len(v.Strs) > 0 {
			return r, core.Reject("wrong type", "prediction", "need a probability or a list of probabilities, got %s", v.Kind)
		}
		switch len(v.Floats) {
		case 0:
			return r, core.Reject("wrong length", "prediction", "empty list")
		case 1:
			r.width, r.p = 1, v.Floats[0]
		default:
			r.width, r.xs = len(v.Floats), v.Floats
			for i, x := range r.xs {
				if err := checkProb(x, i); err != nil {
					return r, err
				}
			}
		}
	default:
		return r, core.Reject("wrong type", "prediction", "need a probability or a list of probabilities, got %s", v.Kind)
	}
	if r.width == 1 {
		if err := checkProb(r.p, -1); err != nil {
			return r, err
		}
	}
	l := value(ex, 1)
	switch l.Kind {
	case core.Missing, core.Null:
		return r, core.Reject("missing field", "label", "need a class id")
	case core.Int, core.Bool:
		r.label = l.Int
	case core.Float:
		f := l.Float
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return r, core.Reject("non-finite value", "label", "%v", f)
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return r, core.Reject("wrong type", "label", "class id must be an integer, got %v", f)
		}
		r.label = int64(f)
	case core.String:
		switch {
		case !names:
			return r, core.Reject("wrong type", "label", "need an integer class id, got %s", l.Kind)
		case l.Str == "":
			return r, core.Reject("missing field", "label", "empty class name")
		case !utf8.ValidString(l.Str):
			return r, core.Reject("invalid utf-8", "label", "the class name is not valid UTF-8")
		case r.width > MaxNameClasses:
			return r, core.Reject("wrong length", "prediction", "%d probabilities with a class name: at most %d classes by name", r.width, MaxNameClasses)
		}
		r.name, r.named = l.Str, true
		return r, nil
	default:
		return r, core.Reject("wrong type", "label", "need an integer class id, got %s", l.Kind)
	}
	switch {
	case r.label < 0:
		return r, core.Reject("label out of range", "label", "negative class id %d", r.label)
	case r.width == 1 && r.label > 1:
		return r, core.Reject("label out of range", "label", "class id %d with a binary (float) prediction: need 0 or 1", r.label)
	case r.width >= 2 && r.label >= int64(r.width):
		return r, core.Reject("label out of range", "label", "class id %d with %d probabilities", r.label, r.width)
	}
	return r, nil
}

// shape is what a state knows of the records' layout: the prediction width seen (0 before the
// first record), whether two widths were seen (scikit-learn and torchmetrics cannot score
// ragged inputs), and the largest class id. Merging is a commutative, associative join.
type shape struct {
	width    int
	ragged   bool
	maxLabel int64
}

func newShape() shape { return shape{maxLabel: -1} }

func (s *shape) add(r *record) {
	s.addWidth(r.width)
	s.maxLabel = max(s.maxLabel, r.label)
}

func (s *shape) addWidth(w int) {
	switch {
	case w == 0:
	case s.width == 0:
		s.width = w
	case s.width != w:
		s.ragged = true
	}
}

func (s *shape) merge(o *shape) {
	s.addWidth(o.width)
	s.ragged = s.ragged || o.ragged
	s.maxLabel = max(s.maxLabel, o.maxLabel)
}

func (s *shape) encode(e *core.Encoder) {
	e.Uvarint(uint64(s.width))
	e.Bool(s.ragged)
	e.Varint(s.maxLabel)
}

func (s *shape) decode(d *core.Decoder) error {
	w := d.Uvarint()
	s.ragged = d.Bool()
	s.maxLabel = d.Varint()
	if d.Err() != nil {
		return d.Err()
	}
	if w > math.MaxInt32 || s.maxLabel < -1 {
		return corrupt("bad shape")
	}
	s.width = int(w)
	return nil
}

// fitsIDs reports whether s can be the shape of n records of class ids, as read checks
// them: none has no width and no label; otherwise a width and a label, which is 0 or 1 for a
// float prediction and a column of a list (of the first width seen, unless ragged).
func (s *shape) fitsIDs(n int64) bool {
	switch {
	case n == 0:
		return s.width == 0 && !s.ragged && s.maxLabel == -1
	case s.width == 0 || s.maxLabel < 0:
		return false
	case s.ragged:
		return true
	case s.width == 1:
		return s.maxLabel <= 1
	}
	return s.maxLabel < int64(s.width)
}

// classCheck is scikit-learn's check with labels=range(C), C the largest class id + 1: at
// least two classes, and a probability list must have exactly C columns. It returns the
// reason for a null result, or "".
func (s *shape) classCheck(details map[string]any) string {
	c := s.maxLabel + 1
	details["classes"] = c
	switch {
	case c < 2:
		return "fewer than 2 classes"
	case s.width >= 2 && int64(s.width) != c:
		details["columns"] = s.width
		return "class count mismatch"
	}
	return ""
}

func corrupt(what string) error {
	return fmt.Errorf("%w: %s", core.ErrCorruptState, what)
}

func incompatible(got, want string) error {
	return fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, got, want)
}

// decodeHeader reads the version and the signature of a state.
func decodeHeader(d *core.Decoder, what string, version byte, sig string) error {
	d.Version(what, version)
	got := d.String()
	if d.Err() == nil && got != sig {
		return incompatible(got, sig)
	}
	return d.Err()
}
