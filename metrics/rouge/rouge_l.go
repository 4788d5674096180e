package rouge

import (
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// RougeL is the `rouge_l` metric: longest-common-subsequence overlap, averaged per example.
// It is immutable and safe for concurrent use.
type RougeL struct {
	compat string
	text   textOpts
	multi  multiref
	fm     fmeasure
	sig    string
	pool   sync.Pool // *scratch for SentenceScore
}

// NewRougeL builds a `rouge_l` metric from its options (see Docs). Presets: `mindnlp`
// (MindNLP RougeL = PaddleNLP RougeL, default), `rouge-score` (`rougeL`) and `ignite`.
func NewRougeL(o *core.Options) (core.Metric, error) {
	m := &RougeL{compat: o.String("compat", "mindnlp", "mindnlp", "rouge-score", "ignite")}
	defTok, defMulti := "whitespace", "max_pr"
	switch m.compat {
	case "rouge-score":
		defTok, defMulti = "rouge", "best_f"
	case "ignite":
		defMulti = "average"
	}
	m.text = readTextOpts(o, defTok, true)
	m.multi = parseMultiref(o.String("multiref", defMulti, "max_pr", "best_f", "best_recall", "average"))
	switch m.compat {
	case "mindnlp":
		beta := o.Float("beta", 1.2)
		if !(beta >= 0 && beta <= 1e100) {
			o.Problem("beta", "must be a number in [0, 1e100], got %v", beta)
			beta = 1.2
		}
		m.fm = fmeasure{kind: 'b', beta2: beta * beta}
		o.Forbid("alpha", "to compat mindnlp (use beta)")
	case "rouge-score":
		m.fm = fmeasure{kind: 'f'}
		o.Forbid("beta", "to compat rouge-score (F is F1)")
		o.Forbid("alpha", "to compat rouge-score (F is F1)")
	case "ignite":
		m.fm = fmeasure{kind: 'a', alpha: readAlpha(o)}
		o.Forbid("beta", "to compat ignite (use alpha = 1/(1+beta²))")
	}
	sig := m.text.addSig(core.NewSig("rouge_l", m.compat)).Add("multiref", multirefNames[m.multi])
	switch m.fm.kind {
	case 'a':
		sig.Float("alpha", m.fm.alpha)
	case 'b':
		sig.Float("beta2", m.fm.beta2)
	}
	m.sig = sig.String()
	return m, nil
}

// Roles implements core.Metric.
func (m *RougeL) Roles() []core.Role { return []core.Role{predictionRole, referencesRole} }

// Signature implements core.Metric.
func (m *RougeL) Signature() string { return m.sig }

// Check implements core.Metric.
func (m *RougeL) Check(ex *core.Example) error {
	if err := textinput.Prediction(ex.Values[0], "prediction", ex.UTF8Checked); err != nil {
		return err
	}
	return textinput.References(ex.Values[1], "references", ex.UTF8Checked)
}

// NewState implements core.Metric.
func (m *RougeL) NewState() core.State { return newMeanState(m) }

// DecodeState implements core.Metric.
func (m *RougeL) DecodeState(b []byte) (core.State, error) { return decodeMeanState(m, b) }

// SentenceScore implements core.SentenceScorer: the example's F.
func (m *RougeL) SentenceScore(ex *core.Example) (float64, bool) {
	sc, _ := m.pool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer func() { sc.done(); m.pool.Put(sc) }()
	s, _ := m.example(ex, sc)
	return s.f, true
}

// example scores one checked example: one LCS per reference, combined per multiref.
func (m *RougeL) example(ex *core.Example, sc *scratch) (prf, triple) {
	sc.load(m.text, ex)
	cand := sc.at(0)
	for j, n := range sc.lcsLengths() {
		sc.triples = append(sc.triples, triple{match: int64(n), cand: int64(len(cand)), ref: int64(len(sc.at(j + 1)))})
	}
	return combine(sc.triples, m.multi, m.fm), triple{}
}
