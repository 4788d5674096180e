package asr

import (
	"fmt"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// The roles every metric of this package reads.
var (
	predictionRole = core.Role{Name: "prediction", Field: "prediction", Required: true,
		Accepts: []core.Kind{core.String}}
	referencesRole = core.Role{Name: "references", Field: "references", Required: true,
		Accepts: []core.Kind{core.String, core.StringList}}
)

// Metric is one of `wer`, `cer`, `mer`, `wil` and `wip`: a corpus rate over the alignments
// of every prediction with its single reference. It is immutable and safe for concurrent
// use; its states are not.
type Metric struct {
	typ     string
	text    textOpts
	sig     string
	memoKey string
}

// NewWER builds a `wer` metric (word error rate) from its options (see Docs).
func NewWER(o *core.Options) (core.Metric, error) { return newMetric("wer", o), nil }

// NewCER builds a `cer` metric (character error rate) from its options (see Docs).
func NewCER(o *core.Options) (core.Metric, error) { return newMetric("cer", o), nil }

// NewMER builds a `mer` metric (match error rate) from its options (see Docs).
func NewMER(o *core.Options) (core.Metric, error) { return newMetric("mer", o), nil }

// NewWIL builds a `wil` metric (word information lost) from its options (see Docs).
func NewWIL(o *core.Options) (core.Metric, error) { return newMetric("wil", o), nil }

// NewWIP builds a `wip` metric (word information preserved) from its options (see Docs).
func NewWIP(o *core.Options) (core.Metric, error) { return newMetric("wip", o), nil }

func newMetric(typ string, o *core.Options) *Metric {
	preset := o.String("compat", "jiwer", "jiwer", "torchmetrics")
	m := &Metric{typ: typ, text: textOpts{torch: preset == "torchmetrics", chars: typ == "cer"}}
	if m.text.torch {
		const why = "with compat: torchmetrics (its text metrics split on whitespace and never normalize)"
		o.Forbid("lowercase", why)
		o.Forbid("remove_punctuation", why)
		m.sig = core.NewSig(typ, "torchmetrics").String()
	} else {
		m.text.lower = o.Bool("lowercase", false)
		m.text.punct = o.Bool("remove_punctuation", false)
		m.sig = core.NewSig(typ, "jiwer").YesNo("lc", m.text.lower).YesNo("remove_punctuation", m.text.punct).String()
	}
	// wer, mer, wil and wip of one record with the same options share one alignment.
	unit := "words"
	if m.text.chars {
		unit = "chars"
	}
	m.memoKey = fmt.Sprintf("asr.align|%s|%s|lc:%s|punct:%s", preset, unit, yesNo(m.text.lower), yesNo(m.text.punct))
	return m
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Roles implements core.Metric.
func (m *Metric) Roles() []core.Role { return []core.Role{predictionRole, referencesRole} }

// Signature implements core.Metric.
func (m *Metric) Signature() string { return m.sig }

// Check implements core.Metric: a string prediction and exactly one reference string.
func (m *Metric) Check(ex *core.Example) error {
	pred, refs := ex.Values[0], ex.Values[1]
	switch pred.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", predictionRole.Name, "a prediction is required")
	case core.String:
		if !ex.UTF8Checked && !utf8.ValidString(pred.Str) {
			return core.Reject("invalid utf-8", predictionRole.Name, "the prediction is not valid UTF-8")
		}
	default:
		return core.Reject("wrong type", predictionRole.Name, "want a transcript string, got %s", pred.Kind)
	}
	switch refs.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", referencesRole.Name, "a reference is required")
	case core.String:
		if !ex.UTF8Checked && !utf8.ValidString(refs.Str) {
			return core.Reject("invalid utf-8", referencesRole.Name, "the reference is not valid UTF-8")
		}
	case core.StringList:
		switch {
		case len(refs.Strs) == 0:
			return core.Reject("empty references", referencesRole.Name, "one reference transcript is required")
		case len(refs.Strs) > 1:
			return core.Reject("multiple references", referencesRole.Name,
				"%s scores one reference per prediction (as jiwer and torchmetrics do), got %d", m.typ, len(refs.Strs))
		}
		if !ex.UTF8Checked && !utf8.ValidString(refs.Strs[0]) {
			return core.Reject("invalid utf-8", referencesRole.Name, "the reference is not valid UTF-8")
		}
	default:
		return core.Reject("wrong type", referencesRole.Name, "want a reference string or a list of one string, got %s", refs.Kind)
	}
	return nil
}

// reference returns the single reference of a checked example.
func reference(v core.Value) string {
	if v.Kind == core.String {
		return v.Str
	}
	return v.Strs[0]
}

// memoEntry is what one record's alignment leaves in a core.Memo, with the texts it came
// from (metrics of one record may read different fields).
type memoEntry struct {
	pred, ref string
	c         counts
}

// measure returns the alignment counts of a checked example, through ex.Memo when set.
func (m *Metric) measure(ex *core.Example, sc *scratch) counts {
	pred, ref := ex.Values[0].Str, reference(ex.Values[1])
	if ex.Memo == nil {
		return m.text.pair(sc, pred, ref)
	}
	v, current := ex.Memo.Lookup(m.memoKey)
	e, ok := v.(*memoEntry)
	if ok && current && e.pred == pred && e.ref == ref {
		return e.c
	}
	if !ok {
		e = new(memoEntry)
	}
	// The strings may alias the source's buffers, which are reused after the record: the
	// entry is only read while the record is current, when they are still valid.
	*e = memoEntry{pred: pred, ref: ref, c: m.text.pair(sc, pred, ref)}
	ex.Memo.Store(m.memoKey, e)
	return e.c
}

// NewState implements core.Metric.
func (m *Metric) NewState() core.State { return &State{m: m} }

// SentenceScore implements core.SentenceScorer: the metric of the one example as a corpus of
// one (jiwer.wer(reference, prediction) and so on); false when that is undefined.
func (m *Metric) SentenceScore(ex *core.Example) (float64, bool) {
	var sc scratch
	s := State{m: m}
	s.add(m.text.pair(&sc, ex.Values[0].Str, reference(ex.Values[1])), 1)
	v, ok := s.Result().Value.(float64)
	return v, ok
}
