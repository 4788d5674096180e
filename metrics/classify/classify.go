// Package classify implements the classification metrics — accuracy, precision, recall, F-beta,
// the confusion matrix, the Matthews correlation, Cohen's kappa and balanced accuracy — on one
// mergeable state: an int64
// confusion matrix M[true][pred] (accuracy keeps only correct/total counts, because top-k
// correctness is not a function of the argmax matrix). Presets reproduce MindNLP and
// scikit-learn; see /work/shared/spec/metrics.md §6.
//
// Metrics are immutable and safe for concurrent use; states are not.
package classify

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// stateVersion is the format version of serialized states of class ids; namedStateVersion
// that of states that have seen class names without the classes option.
const (
	stateVersion      = 1
	namedStateVersion = 2
)

type kind uint8

const (
	kAccuracy kind = iota
	kPrecision
	kRecall
	kF1
	kConfusion
	kMCC
	kKappa
	kBalanced
	kReport
)

var kindNames = [...]string{"accuracy", "precision", "recall", "f1", "confusion_matrix", "mcc", "cohen_kappa", "balanced_accuracy", "classification_report"}

// Average modes of precision, recall and f1.
const (
	avgNone     = "none"
	avgMicro    = "micro"
	avgMacro    = "macro"
	avgWeighted = "weighted"
)

// Metric is a configured classification metric. It is immutable and safe for concurrent use.
type Metric struct {
	kind       kind
	compat     string
	topK       int64   // accuracy
	average    string  // precision, recall, f1
	numClasses int     // 0 = from the data
	beta       float64 // f1
	zeroDiv    float64 // sklearn precision, recall, f1
	weights    string  // cohen_kappa: none | linear | quadratic
	adjusted   bool    // balanced_accuracy
	// names (the classes option) names the classes 0..C-1; index maps a name to its id. Set
	// only when the option is given: class names are then accepted wherever ids are.
	names []string
	index map[string]int64
	// byName says that, without the classes option, a string prediction or label is a class
	// name: the classes are then the names seen, in sorted order (see nameTable). maxNames
	// bounds how many distinct names a state keeps.
	byName   bool
	maxNames int
	sig      string
}

var classRoles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.Int, core.String, core.FloatList}},
	{Name: "label", Field: "label", Required: true, Accepts: []core.Kind{core.Int, core.String, core.FloatList}},
}

// NewAccuracy returns the `accuracy` metric (preset `mindnlp`; option `top_k` [1]).
func NewAccuracy(o *core.Options) (core.Metric, error) {
	m := &Metric{kind: kAccuracy}
	m.compat = o.String("compat", "mindnlp", "mindnlp")
	m.topK = o.Int("top_k", 1, 1, math.MaxInt32)
	m.classNames(o, MaxClasses)
	m.namesSeen(o, defaultMaxNames, MaxClasses)
	m.finish()
	return m, nil
}

// NewPrecision returns the `precision` metric (presets `mindnlp`, `sklearn`).
func NewPrecision(o *core.Options) (core.Metric, error) { return newPRF(kPrecision, o) }

// NewRecall returns the `recall` metric (presets `mindnlp`, `sklearn`).
func NewRecall(o *core.Options) (core.Metric, error) { return newPRF(kRecall, o) }

// NewF1 returns the `f1` metric, an F-beta score (presets `mindnlp`, `sklearn`; `beta` [1]).
func NewF1(o *core.Options) (core.Metric, error) { return newPRF(kF1, o) }

func newPRF(k kind, o *core.Options) (core.Metric, error) {
	m := &Metric{kind: k, beta: 1}
	m.compat = o.String("compat", "mindnlp", "mindnlp", "sklearn")
	m.average = o.String("average", avgNone, avgNone, avgMicro, avgMacro, avgWeighted)
	m.numClasses = int(o.Int("num_classes", 0, 1, MaxClasses))
	m.classNames(o, MaxClasses)
	m.namesSeen(o, defaultMaxNames, MaxClasses)
	if k == kF1 {
		m.beta = o.Float("beta", 1)
		if !(m.beta >= 0) || math.IsNaN(m.beta) {
			o.Problem("beta", "must be >= 0 (or inf), got %v", m.beta)
			m.beta = 1
		}
	}
	if m.compat == "sklearn" {
		m.zeroDiv = float64(o.Int("zero_division", 0, 0, 1))
	} else {
		o.Forbid("zero_division", "to compat mindnlp, which always reports 0 for an undefined ratio")
	}
	m.finish()
	return m, nil
}

// NewConfusionMatrix returns the `confusion_matrix` metric (preset `mindnlp`; `num_classes`
// [the largest id + 1 seen], as every other classification metric infers it).
func NewConfusionMatrix(o *core.Options) (core.Metric, error) {
	m := &Metric{kind: kConfusion}
	m.compat = o.String("compat", "mindnlp", "mindnlp")
	m.numClasses = int(o.Int("num_classes", 0, 1, maxMatrixClasses))
	m.classNames(o, maxMatrixClasses)
	m.namesSeen(o, maxMatrixClasses, maxMatrixClasses)
	m.finish()
	return m, nil
}

// maxMatrixClasses bounds confusion_matrix's num_classes: its value is a dense C×C matrix.
const maxMatrixClasses = 1024

// NewMCC returns the `mcc` metric (presets `sklearn`, `mindnlp`).
func NewMCC(o *core.Options) (core.Metric, error) {
	m := &Metric{kind: kMCC}
	m.compat = o.String("compat", "sklearn", "sklearn", "mindnlp")
	m.namesSeen(o, defaultMaxNames, MaxClasses)
	m.finish()
	return m, nil
}

// Weightings of cohen_kappa's disagreements.
const (
	weightsNone      = "none"
	weightsLinear    = "linear"
	weightsQuadratic = "quadratic"
)

// NewCohenKappa returns the `cohen_kappa` metric (preset `sklearn`; `weights`
// none|linear|quadratic [none]).
func NewCohenKappa(o *core.Options) (core.Metric, error) {
	m := &Metric{kind: kKappa}
	m.compat = o.String("compat", "sklearn", "sklearn")
	m.weights = o.String("weights", weightsNone, weightsNone, weightsLinear, weightsQuadratic)
	m.namesSeen(o, defaultMaxNames, MaxClasses)
	m.finish()
	return m, nil
}

// NewBalancedAccuracy returns the `balanced_accuracy` metric (preset `sklearn`; `adjusted`
// [false]).
func NewBalancedAccuracy(o *core.Options) (core.Metric, error) {
	m := &Metric{kind: kBalanced}
	m.compat = o.String("compat", "sklearn", "sklearn")
	m.adjusted = o.Bool("adjusted", false)
	m.namesSeen(o, defaultMaxNames, MaxClasses)
	m.finish()
	return m, nil
}

// NewClassificationReport returns the `classification_report` metric (preset `sklearn`;
// `zero_division` [0]): per-class precision, recall, F1 and support with accuracy and the
// macro and weighted averages, keyed as sklearn's classification_report(output_dict=True).
func NewClassificationReport(o *core.Options) (core.Metric, error) {
	m := &Metric{kind: kReport, beta: 1}
	m.compat = o.String("compat", "sklearn", "sklearn")
	m.zeroDiv = float64(o.Int("zero_division", 0, 0, 1))
	m.classNames(o, MaxClasses)
	m.namesSeen(o, defaultMaxNames, MaxClasses)
	m.finish()
	return m, nil
}

// classNames reads the classes option: the names of classes 0..C-1, in that order. It fixes
// the class count (num_classes, which may be given too only with the same count) and makes
// the metric accept a name wherever it accepts an id; results then name the classes.
func (m *Metric) classNames(o *core.Options, max int) {
	if !o.Has("classes") {
		return
	}
	names := o.Strings("classes")
	if len(names) == 0 {
		o.Problem("classes", "must list at least one class name")
		return
	}
	if len(names) > max {
		o.Problem("classes", "%d names, at most %d classes", len(names), max)
		return
	}
	index := make(map[string]int64, len(names))
	for i, n := range names {
		if n == "" {
			o.Problem("classes", "name %d is empty", i)
			return
		}
		if _, dup := index[n]; dup {
			o.Problem("classes", "%q is listed twice", n)
			return
		}
		index[n] = int64(i)
	}
	if o.Has("num_classes") && m.numClasses != len(names) {
		o.Problem("num_classes", "is %d but classes names %d classes", m.numClasses, len(names))
		return
	}
	m.names, m.index, m.numClasses = names, index, len(names)
}

// defaultMaxNames is max_classes' default: far more classes than a classifier has, few
// enough that a free-text column given as the label cannot make a state grow without bound.
const defaultMaxNames = 10000

// namesSeen reads max_classes and decides whether class names are taken without the classes
// option. They are unless classes names them or num_classes is set (which fixes the classes
// to ids 0..C-1: a name cannot be one of them).
func (m *Metric) namesSeen(o *core.Options, def, max int) {
	if m.names != nil {
		o.Forbid("max_classes", "with classes, which fixes the class set")
		return
	}
	if o.Has("num_classes") {
		o.Forbid("max_classes", "with num_classes, which fixes the classes to the ids 0..num_classes-1")
		return
	}
	m.byName = true
	m.maxNames = int(o.Int("max_classes", int64(def), 1, int64(max)))
}

func (m *Metric) finish() {
	b := core.NewSig(kindNames[m.kind], m.compat)
	switch m.kind {
	case kAccuracy:
		b.Int("top_k", m.topK)
	case kPrecision, kRecall, kF1:
		b.Add("average", m.average).Add("num_classes", classesString(m.numClasses))
		if m.kind == kF1 {
			b.Float("beta", m.beta)
		}
		if m.compat == "sklearn" {
			b.Float("zero_division", m.zeroDiv)
		}
	case kConfusion:
		b.Add("num_classes", classesString(m.numClasses))
	case kKappa:
		b.Add("weights", m.weights)
	case kBalanced:
		b.YesNo("adjusted", m.adjusted)
	case kReport:
		b.Float("zero_division", m.zeroDiv)
	}
	if m.names != nil {
		b.List("classes", m.names)
	}
	if m.byName && m.maxNames != m.defaultMaxNames() {
		b.Int("max_classes", int64(m.maxNames))
	}
	m.sig = b.String()
}

// defaultMaxNames is the metric's default max_classes (a signature leaves it out, so that
// signatures stay those of the releases before class names).
func (m *Metric) defaultMaxNames() int {
	if m.kind == kConfusion {
		return maxMatrixClasses
	}
	return defaultMaxNames
}

func classesString(n int) string {
	if n == 0 {
		return "data"
	}
	return fmt.Sprint(n)
}

// Roles lists prediction and label.
func (m *Metric) Roles() []core.Role { return classRoles }

// Signature identifies the metric and every resolved option.
func (m *Metric) Signature() string { return m.sig }

// NewState returns an empty state.
func (m *Metric) NewState() core.State { return &State{m: m} }

// class is a decoded class value: an id, plus the width of the list it came from (0 for a
// plain id); or, without the classes option, a name (which aliases the record's buffers).
type class struct {
	id    int64
	width int
	name  string
	named bool
}

// decodeClass reads a class id from an Int (or an integral Float/Bool) or from a list:
// scores (argmax, first maximum) for the prediction, a one-hot vector for the label.
func (m *Metric) decodeClass(v *core.Value, field string, isLabel, utf8Checked bool) (class, error) {
	switch v.Kind {
	case core.Missing, core.Null:
		return class{}, core.Reject("missing field", field, "need a class id, a class name or a list of scores")
	case core.Int, core.Bool:
		return m.checkID(v.Int, field, 0)
	case core.String:
		if m.byName {
			if v.Str == "" {
				return class{}, core.Reject("missing field", field, "empty class name")
			}
			if !utf8Checked && !utf8.ValidString(v.Str) {
				return class{}, core.Reject("invalid utf-8", field, "the class name is not valid UTF-8")
			}
			return class{name: v.Str, named: true}, nil
		}
		if m.index == nil {
			return class{}, core.Reject("wrong type", field, "class name %q: num_classes fixes the classes to the ids 0..%d; to use names, list them with the metric's classes option instead (e.g. classes: [neg, pos])", v.Str, m.numClasses-1)
		}
		id, ok := m.index[v.Str]
		if !ok {
			return class{}, core.Reject("unknown class", field, "%q is not one of the classes %s", v.Str, strings.Join(m.names, ", "))
		}
		return class{id: id}, nil
	case core.Float:
		f := v.Float
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return class{}, core.Reject("non-finite value", field, "%v", f)
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return class{}, core.Reject("wrong type", field, "class id must be an integer, got %v", f)
		}
		return m.checkID(int64(f), field, 0)
	case core.FloatList, core.StringList:
		if v.Kind == core.StringList && len(v.Strs) > 0 {
			break
		}
		xs := v.Floats
		if len(xs) == 0 {
			return class{}, core.Reject("wrong length", field, "empty list")
		}
		if m.kind != kAccuracy && len(xs) > MaxClasses {
			return class{}, core.Reject("wrong length", field, "%d scores, at most %d classes", len(xs), MaxClasses)
		}
		if isLabel {
			id := -1
			for i, x := range xs {
				switch x {
				case 0:
				case 1:
					if id >= 0 {
						id = -2
					} else if id == -1 {
						id = i
					}
				default:
					id = -2
				}
			}
			if id < 0 {
				return class{}, core.Reject("wrong type", field, "a list label must be one-hot (0/1 values, exactly one 1)")
			}
			if m.numClasses > 0 && len(xs) != m.numClasses {
				return class{}, core.Reject("wrong length", field, "one-hot label of length %d, num_classes is %d", len(xs), m.numClasses)
			}
			return class{id: int64(id), width: len(xs)}, nil
		}
		if m.numClasses > 0 && len(xs) != m.numClasses {
			return class{}, core.Reject("ragged scores", field, "%d scores, num_classes is %d", len(xs), m.numClasses)
		}
		best := 0
		for i, x := range xs {
			if math.IsNaN(x) {
				return class{}, core.Reject("non-finite value", field, "NaN score at index %d", i)
			}
			if x > xs[best] {
				best = i
			}
		}
		return class{id: int64(best), width: len(xs)}, nil
	}
	return class{}, core.Reject("wrong type", field, "need an integer class id, a class name or a list of numbers, got %s", v.Kind)
}

func (m *Metric) checkID(id int64, field string, width int) (class, error) {
	if id < 0 {
		return class{}, core.Reject("label out of range", field, "negative class id %d", id)
	}
	if m.numClasses > 0 && id >= int64(m.numClasses) {
		return class{}, core.Reject("label out of range", field, "class id %d, num_classes is %d", id, m.numClasses)
	}
	if m.kind == kConfusion && id >= maxMatrixClasses {
		return class{}, core.Reject("label out of range", field, "class id %d, a confusion matrix has at most %d classes", id, maxMatrixClasses)
	}
	if id >= MaxClasses {
		return class{}, core.Reject("label out of range", field, "class id %d, ids must be < %d", id, MaxClasses)
	}
	return class{id: id, width: width}, nil
}

func values(ex *core.Example) (pred, label *core.Value) {
	var missing core.Value
	pred, label = &missing, &missing
	if len(ex.Values) > 0 {
		pred = &ex.Values[0]
	}
	if len(ex.Values) > 1 {
		label = &ex.Values[1]
	}
	return pred, label
}

// Check validates the prediction and the label of one record.
func (m *Metric) Check(ex *core.Example) error {
	_, err := m.decode(ex)
	return err
}

// outcome is what one record contributes.
type outcome struct {
	pred, label class
	correct     bool // accuracy only
}

func (m *Metric) decode(ex *core.Example) (outcome, error) {
	pv, lv := values(ex)
	label, err := m.decodeClass(lv, "label", true, ex.UTF8Checked)
	if err != nil {
		return outcome{}, err
	}
	if m.kind == kAccuracy {
		return m.decodeAccuracy(pv, label, ex.UTF8Checked)
	}
	pred, err := m.decodeClass(pv, "prediction", false, ex.UTF8Checked)
	if err != nil {
		return outcome{}, err
	}
	if pred.named != label.named {
		return outcome{}, mixedRecord(pred, label)
	}
	return outcome{pred: pred, label: label}, nil
}

// mixedRecord is the rejection of a record whose prediction and label are not both names or
// both ids: without the classes option nothing says which name an id stands for (scikit-learn
// raises "Mix of label input types (string and number)").
func mixedRecord(pred, label class) error {
	what := func(c class) string {
		if c.named {
			return fmt.Sprintf("the class name %q", c.name)
		}
		if c.width > 0 {
			return "a list of scores"
		}
		return fmt.Sprintf("the class id %d", c.id)
	}
	return core.Reject("mixed class types", "prediction", "prediction is %s but label is %s: give both as names or both as ids (or list the names with the classes option, which maps ids to names)", what(pred), what(label))
}

// decodeAccuracy decides whether the prediction is correct: an id must equal the label; a
// single score p predicts round-half-even(p) (MindNLP's C == 1 rule); a longer score list is
// correct when the label is among the top_k scores, ties going to the lower index.
func (m *Metric) decodeAccuracy(pv *core.Value, label class, utf8Checked bool) (outcome, error) {
	if pv.Kind == core.FloatList && len(pv.Floats) > 0 {
		xs := pv.Floats
		if label.named {
			return outcome{}, mixedRecord(class{width: len(xs)}, label)
		}
		for i, x := range xs {
			if math.IsNaN(x) {
				return outcome{}, core.Reject("non-finite value", "prediction", "NaN score at index %d", i)
			}
		}
		if len(xs) == 1 {
			return outcome{label: label, correct: math.RoundToEven(xs[0]) == float64(label.id)}, nil
		}
		l := label.id
		if l >= int64(len(xs)) {
			return outcome{label: label}, nil
		}
		s := xs[l]
		var rank int64
		for i, x := range xs {
			if x > s || (x == s && int64(i) < l) {
				rank++
				if rank >= m.topK {
					break
				}
			}
		}
		return outcome{label: label, correct: rank < m.topK}, nil
	}
	if pv.Kind == core.FloatList || (pv.Kind == core.StringList && len(pv.Strs) == 0) {
		return outcome{}, core.Reject("wrong length", "prediction", "empty list")
	}
	if m.topK > 1 && pv.Present() {
		if k := pv.Kind; k == core.Int || k == core.Float || k == core.Bool || k == core.String {
			return outcome{}, core.Reject("wrong type", "prediction", "top_k %d needs a list of scores, got a single class (%s)", m.topK, k)
		}
	}
	pred, err := m.decodeClass(pv, "prediction", false, utf8Checked)
	if err != nil {
		return outcome{}, err
	}
	if pred.named != label.named {
		return outcome{}, mixedRecord(pred, label)
	}
	return outcome{pred: pred, label: label, correct: pred.id == label.id && pred.name == label.name}, nil
}
