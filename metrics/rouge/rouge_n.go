package rouge

import (
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// RougeN is the `rouge_n` metric: n-gram overlap between a prediction and its references.
// It is immutable and safe for concurrent use.
type RougeN struct {
	compat string
	n      int
	text   textOpts
	multi  multiref
	fm     fmeasure
	sig    string
	pool   sync.Pool // *scratch for SentenceScore
}

// NewRougeN builds a `rouge_n` metric from its options (see Docs). Presets: `rouge-score`
// (Google rouge-score `rougeN`, default), `mindnlp` (MindNLP RougeN: set-based recall pooled
// over the corpus) and `ignite` (pytorch-ignite RougeN).
func NewRougeN(o *core.Options) (core.Metric, error) {
	m := &RougeN{compat: o.String("compat", "rouge-score", "rouge-score", "mindnlp", "ignite")}
	m.n = int(o.Int("n", 1, 1, 1<<20))
	defTok := "whitespace"
	if m.compat == "rouge-score" {
		defTok = "rouge"
	}
	m.text = readTextOpts(o, defTok, true)
	switch m.compat {
	case "rouge-score":
		m.multi = parseMultiref(o.String("multiref", "best_f", "best_f", "best_recall", "average"))
		m.fm = fmeasure{kind: 'f'}
		o.Forbid("alpha", "to compat rouge-score (F is F1); use compat ignite")
	case "ignite":
		m.multi = parseMultiref(o.String("multiref", "average", "best_recall", "average", "best_f"))
		m.fm = fmeasure{kind: 'a', alpha: readAlpha(o)}
	case "mindnlp":
		m.multi = parseMultiref(o.String("multiref", "sum", "sum"))
		o.Forbid("alpha", "to compat mindnlp (its value is recall)")
	}
	sig := m.text.addSig(core.NewSig("rouge_n", m.compat).Int("n", int64(m.n))).Add("multiref", multirefNames[m.multi])
	if m.fm.kind == 'a' {
		sig.Float("alpha", m.fm.alpha)
	}
	m.sig = sig.String()
	return m, nil
}

// readAlpha reads ignite's `alpha` in [0, 1] (default 0: F = recall).
func readAlpha(o *core.Options) float64 {
	a := o.Float("alpha", 0)
	if !(a >= 0 && a <= 1) {
		o.Problem("alpha", "must be in [0, 1], got %v", a)
		return 0
	}
	return a
}

// Roles implements core.Metric.
func (m *RougeN) Roles() []core.Role { return []core.Role{predictionRole, referencesRole} }

// Signature implements core.Metric.
func (m *RougeN) Signature() string { return m.sig }

// Check implements core.Metric.
func (m *RougeN) Check(ex *core.Example) error {
	if err := textinput.Prediction(ex.Values[0], "prediction", ex.UTF8Checked); err != nil {
		return err
	}
	return textinput.References(ex.Values[1], "references", ex.UTF8Checked)
}

// NewState implements core.Metric.
func (m *RougeN) NewState() core.State {
	if m.multi == sumPooled {
		return &pooledState{m: m, sig: m.sig}
	}
	return newMeanState(m)
}

// DecodeState implements core.Metric.
func (m *RougeN) DecodeState(b []byte) (core.State, error) {
	if m.multi == sumPooled {
		return decodePooledState(m, b)
	}
	return decodeMeanState(m, b)
}

// SentenceScore implements core.SentenceScorer: the example's F (mindnlp: its own recall,
// undefined when its references have no n-gram).
func (m *RougeN) SentenceScore(ex *core.Example) (float64, bool) {
	sc, _ := m.pool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer func() { sc.done(); m.pool.Put(sc) }()
	s, t := m.example(ex, sc)
	if m.multi == sumPooled {
		if t.ref == 0 {
			return 0, false
		}
		return t.recall(), true
	}
	return s.f, true
}

// example scores one checked example.
func (m *RougeN) example(ex *core.Example, sc *scratch) (prf, triple) {
	sc.load(m.text, ex)
	set := m.multi == sumPooled
	if !set && (m.n == 1 || m.n == 2 && sc.kc <= maxPairTokens) {
		sc.overlaps(m.n)
		return combine(sc.triples, m.multi, m.fm), triple{}
	}
	k := sc.ngrams(m.n)
	cnt, rcnt := sc.counts(k)
	cand := sc.gram(0)
	candDistinct := int64(0) // only the set semantics needs it
	if set {
		for _, g := range cand {
			if cnt[g] == 0 {
				candDistinct++
			}
			cnt[g]++
		}
	} else {
		for _, g := range cand {
			cnt[g]++
		}
	}
	for j := 1; j < len(sc.ends); j++ {
		ref := sc.gram(j)
		t := triple{cand: int64(len(cand)), ref: int64(len(ref))}
		if set {
			// MindNLP: |S(cand) ∩ S(ref)| over |S(ref)|.
			t.cand, t.ref = candDistinct, 0
			for _, g := range ref {
				if rcnt[g] == 0 {
					t.ref++
					if cnt[g] > 0 {
						t.match++
					}
				}
				rcnt[g]++
			}
		} else {
			// Σ_g min(c_cand(g), c_ref(g)).
			for _, g := range ref {
				rcnt[g]++
				if rcnt[g] <= cnt[g] {
					t.match++
				}
			}
		}
		for _, g := range ref {
			rcnt[g] = 0
		}
		sc.triples = append(sc.triples, t)
	}
	if set {
		var sum triple
		for _, t := range sc.triples {
			sum.match += t.match
			sum.ref += t.ref
		}
		return prf{r: sum.recall()}, sum
	}
	return combine(sc.triples, m.multi, m.fm), triple{}
}
