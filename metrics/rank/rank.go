// Package rank implements the ranking metrics of scores against class labels: `auroc`
// (scikit-learn roc_auc_score, torchmetrics Binary/MulticlassAUROC) and `average_precision`
// (average_precision_score, Binary/MulticlassAveragePrecision). See
// /work/shared/spec/metrics.md Part 1b.
//
// The exact state keeps, for every score column, the count of records of each label per
// distinct score value: a ROC or precision-recall curve is a function of those counts alone,
// so states merge by adding counts and the result is bit-identical however records were
// sharded. The binned state (torchmetrics' `thresholds`) keeps the same counts per threshold
// bucket instead, in bounded memory.
//
// Metrics are immutable and safe for concurrent use; states are not.
package rank

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// stateVersion is the format version of serialized states of class ids; namedStateVersion
// that of states which have seen class names (the ids format is unchanged, so states written
// before names existed decode byte for byte).
const (
	stateVersion      = 1
	namedStateVersion = 2
)

type kind uint8

const (
	kAUROC kind = iota
	kAP
)

var kindNames = [...]string{"auroc", "average_precision"}

const (
	compatSklearn      = "sklearn"
	compatTorchmetrics = "torchmetrics"
)

// MaxClasses bounds the length of a score list: the exact state keeps one count per class
// per distinct score of every column (C² counts per distinct score value).
const MaxClasses = 1024

// MaxThresholds bounds the `thresholds` option.
const MaxThresholds = 1 << 20

// Metric is a configured auroc or average_precision metric. It is immutable and safe for
// concurrent use.
type Metric struct {
	kind       kind
	compat     string
	multiClass string  // ovr | ovo (auroc)
	average    string  // macro | weighted | none
	maxFPR     float64 // 0 = none (auroc, binary only)
	thresholds int     // 0 = exact; else torchmetrics' linspace(0, 1, N)
	thr        []float64
	thrList    bool // thr is the user's list, not a linspace
	posLabel   string
	hasPos     bool // average_precision's pos_label is set
	sig        string
}

var roles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.Float, core.FloatList}},
	{Name: "label", Field: "label", Required: true, Accepts: []core.Kind{core.Int, core.Bool, core.Float, core.String}},
}

// NewAUROC returns the `auroc` metric (presets sklearn, torchmetrics).
func NewAUROC(o *core.Options) (core.Metric, error) { return newMetric(kAUROC, o) }

// NewAveragePrecision returns the `average_precision` metric (presets sklearn, torchmetrics).
func NewAveragePrecision(o *core.Options) (core.Metric, error) { return newMetric(kAP, o) }

func newMetric(k kind, o *core.Options) (core.Metric, error) {
	m := &Metric{kind: k, multiClass: "ovr"}
	m.compat = o.String("compat", compatSklearn, compatSklearn, compatTorchmetrics)
	m.average = o.String("average", "macro", "macro", "weighted", "none")
	if k == kAUROC {
		if m.compat == compatTorchmetrics {
			m.multiClass = o.String("multi_class", "ovr", "ovr")
		} else {
			m.multiClass = o.String("multi_class", "ovr", "ovr", "ovo")
		}
		if m.multiClass == "ovo" && m.average == "none" {
			o.Problem("average", "none is not available with multi_class ovo (scikit-learn: not implemented)")
		}
		if o.Has("max_fpr") {
			f := o.Float("max_fpr", 1)
			if !(f > 0 && f <= 1) {
				o.Problem("max_fpr", "must be in (0, 1], got %v", f)
			} else if f != 1 {
				m.maxFPR = f
			}
			// Partial AUC is binary only: options that only mean something for multiclass
			// input cannot go with it (a multiclass record is rejected).
			if m.maxFPR != 0 && (o.Has("multi_class") || o.Has("average")) {
				o.Problem("max_fpr", "is binary only: it cannot be combined with multi_class or average (scikit-learn raises for multiclass input)")
			}
		}
	} else {
		o.Forbid("multi_class", "to average_precision (multiclass is always one-vs-rest)")
		o.Forbid("max_fpr", "to average_precision")
		if o.Has("pos_label") {
			m.posLabel, m.hasPos = o.String("pos_label", ""), true
			if m.compat == compatTorchmetrics {
				o.Problem("pos_label", "does not apply to compat torchmetrics (its positive class is always 1)")
			}
			if m.posLabel == "" {
				o.Problem("pos_label", "must be a class name or 0/1, got an empty string")
			}
		}
	}
	if m.kind == kAUROC {
		o.Forbid("pos_label", "to auroc (roc_auc_score has none: with two class names the greater in sorted order is the positive class)")
	}
	if m.compat == compatTorchmetrics {
		if raw := strings.TrimSpace(o.String("thresholds", "")); strings.HasPrefix(raw, "[") || strings.Contains(raw, ",") {
			m.thresholdList(o)
		} else if o.Has("thresholds") {
			m.thresholds = int(o.Int("thresholds", 0, 2, MaxThresholds))
			if m.thresholds >= 2 {
				m.thr = linspace32(m.thresholds)
			} else {
				m.thresholds = 0
			}
		}
	} else {
		o.Forbid("thresholds", "to compat sklearn, which is always exact (binned thresholds are torchmetrics')")
	}
	m.finish()
	return m, nil
}

func (m *Metric) finish() {
	b := core.NewSig(kindNames[m.kind], m.compat).Add("average", m.average)
	if m.kind == kAUROC {
		b.Add("multi_class", m.multiClass)
		if m.maxFPR == 0 {
			b.Add("max_fpr", "none")
		} else {
			b.Float("max_fpr", m.maxFPR)
		}
	}
	if m.hasPos {
		// Only when set, so that the signatures of existing configs (and their states) stay.
		b.Add("pos_label", m.posLabel)
	}
	if m.compat == compatTorchmetrics {
		switch {
		case m.thresholds == 0:
			b.Add("thresholds", "none")
		case m.thrList:
			// Brackets tell a list of one threshold from a count of thresholds.
			ts := make([]string, len(m.thr))
			for i, t := range m.thr {
				ts[i] = core.FormatFloat(t)
			}
			b.Add("thresholds", "["+strings.Join(ts, ",")+"]")
		default:
			b.Int("thresholds", int64(m.thresholds))
		}
	}
	m.sig = b.String()
}

// thresholdList reads `thresholds` given as a list: torchmetrics' binned mode at exactly those
// thresholds, which it turns into a float32 tensor. torchmetrics requires floats in [0, 1];
// it does not sort them, and an unsorted list gives a meaningless curve (a negative AUROC),
// so the list must be strictly increasing (after rounding to float32).
func (m *Metric) thresholdList(o *core.Options) {
	xs := o.Floats("thresholds", nil)
	if len(xs) == 0 || len(xs) > MaxThresholds {
		o.Problem("thresholds", "a list needs 1 to %d thresholds", MaxThresholds)
		return
	}
	thr := make([]float64, len(xs))
	for i, x := range xs {
		if !(x >= 0 && x <= 1) {
			o.Problem("thresholds", "must be in [0, 1] (torchmetrics), got %v", x)
			return
		}
		thr[i] = float64(float32(x))
		if i > 0 && thr[i] <= thr[i-1] {
			o.Problem("thresholds", "a list must be strictly increasing (after rounding to float32, as torchmetrics holds it): %v then %v", xs[i-1], x)
			return
		}
	}
	m.thr, m.thresholds, m.thrList = thr, len(thr), true
}

// boundKnown reports whether details.bin_error_bound holds: the binned curve reaches (0, 0)
// and (1, 1) when the thresholds start at 0 and end at 1, as a linspace does.
func (m *Metric) boundKnown() bool {
	return !m.thrList || (m.thr[0] == 0 && m.thr[len(m.thr)-1] == 1)
}

// linspace32 returns torch.linspace(0, 1, n) (float32, as torch's CPU kernel computes it:
// from the start for the first half, from the end for the second) widened to float64.
func linspace32(n int) []float64 {
	out := make([]float64, n)
	step := float32(1) / float32(n-1)
	half := n / 2
	for i := range out {
		var v float32
		if i < half {
			v = float32(step * float32(i))
		} else {
			v = 1 - float32(step*float32(n-i-1))
		}
		out[i] = float64(v)
	}
	return out
}

// Roles lists prediction (scores) and label (class id or class name).
func (m *Metric) Roles() []core.Role { return roles }

// Signature identifies the metric and every resolved option.
func (m *Metric) Signature() string { return m.sig }

// NewState returns an empty state.
func (m *Metric) NewState() core.State { return &State{m: m} }

// sample is one decoded record: the score list (binary: one score, the positive class's),
// the label and the width key of its table (2 for binary, C for C ≥ 3 classes).
type sample struct {
	x      float64   // binary: the score of class 1
	scores []float64 // multiclass: aliases the record's list
	label  int
	width  int
	name   string // a class name label (named); aliases the record
	named  bool
}

// score returns the score of column c.
func (s *sample) score(c int) float64 {
	if s.width == 2 {
		return s.x
	}
	return s.scores[c]
}

// Check validates one record.
func (m *Metric) Check(ex *core.Example) error {
	var s sample
	return m.decode(ex, &s)
}

func (m *Metric) decode(ex *core.Example, s *sample) error {
	var missing core.Value
	pv, lv := &missing, &missing
	if len(ex.Values) > 0 {
		pv = &ex.Values[0]
	}
	if len(ex.Values) > 1 {
		lv = &ex.Values[1]
	}
	switch pv.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", "prediction", "need a score or a list of scores")
	case core.Float, core.Int:
		s.x, _ = pv.Number()
		s.width = 2
	case core.FloatList:
		xs := pv.Floats
		switch {
		case len(xs) < 2:
			return core.Reject("wrong length", "prediction", "%d scores: need one score or a list of at least 2", len(xs))
		case len(xs) > MaxClasses:
			return core.Reject("wrong length", "prediction", "%d scores, at most %d classes", len(xs), MaxClasses)
		case len(xs) == 2:
			// A 2-element list is binary: its second element is P(class 1).
			s.x = xs[1]
			s.width = 2
		default:
			s.scores = xs
			s.width = len(xs)
		}
	case core.StringList:
		if len(pv.Strs) == 0 {
			return core.Reject("wrong length", "prediction", "empty list")
		}
		return core.Reject("wrong type", "prediction", "need a score or a list of numbers, got list<string>")
	default:
		return core.Reject("wrong type", "prediction", "need a score or a list of numbers, got %s", pv.Kind)
	}
	for i := range ncols(s.width) {
		x := s.score(i)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return core.Reject("non-finite value", "prediction", "score %v at index %d", x, i)
		}
		if m.compat == compatTorchmetrics && !(x >= 0 && x <= 1) {
			// torchmetrics applies sigmoid/softmax to a whole batch when any score is outside
			// [0, 1], so its result would depend on how records were batched.
			return core.Reject("probability out of range", "prediction", "score %v at index %d: compat torchmetrics needs probabilities in [0, 1]", x, i)
		}
	}
	if m.kind == kAUROC && m.compat == compatSklearn && s.width > 2 && !sumsToOne(pv.Floats) {
		return core.Reject("scores do not sum to 1", "prediction", "multiclass roc_auc needs probabilities summing to 1 (numpy allclose), got sum %v", pairwiseSum(pv.Floats))
	}
	if s.width > 2 && m.maxFPR != 0 {
		return core.Reject("wrong length", "prediction", "%d scores: max_fpr (partial AUC) is binary only", s.width)
	}
	var id int64
	switch lv.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", "label", "need a class id")
	case core.Int, core.Bool:
		id = lv.Int
	case core.Float:
		f := lv.Float
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return core.Reject("non-finite value", "label", "%v", f)
		}
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return core.Reject("wrong type", "label", "class id must be an integer, got %v", f)
		}
		id = int64(f)
	case core.String:
		switch {
		case lv.Str == "":
			return core.Reject("missing field", "label", "empty class name")
		case !utf8.ValidString(lv.Str):
			return core.Reject("invalid utf-8", "label", "the class name is not valid UTF-8")
		case m.compat == compatTorchmetrics:
			return core.Reject("wrong type", "label", "class name %q: compat torchmetrics takes integer class ids only", lv.Str)
		}
		s.name, s.named = lv.Str, true
		return nil
	default:
		return core.Reject("wrong type", "label", "need an integer class id or a class name, got %s", lv.Kind)
	}
	if id < 0 || id >= int64(s.width) {
		if s.width == 2 {
			return core.Reject("label out of range", "label", "class id %d: a binary score needs label 0 or 1", id)
		}
		return core.Reject("label out of range", "label", "class id %d with %d scores", id, s.width)
	}
	s.label = int(id)
	return nil
}

// sumsToOne is numpy's allclose(1, sum(row)): |1 − s| <= 1e-8 + 1e-5·|s|, with the row summed
// as numpy does (pairwise).
func sumsToOne(xs []float64) bool {
	s := pairwiseSum(xs)
	return math.Abs(1-s) <= 1e-8+1e-5*math.Abs(s)
}

// pairwiseSum is numpy's float64 add.reduce of a contiguous array: plain left-to-right below
// 8 elements, 8 accumulators up to 128, halves (at a multiple of 8) above.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := math.Copysign(0, -1)
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += a[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}
