package rouge

import (
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// The optional roles of `rouge_l_dureader`.
var (
	yesnoLabelRole = core.Role{Name: "yesno_label", Field: "yesno_label", Accepts: []core.Kind{core.String}}
	yesnoRefsRole  = core.Role{Name: "yesno_refs", Field: "yesno_refs", Accepts: []core.Kind{core.StringList}}
	entityRefsRole = core.Role{Name: "entity_refs", Field: "entity_refs", Accepts: []core.Kind{core.StringList}}
)

// duReaderGamma2 is γ² for γ = 1.2: PaddleNLP passes `gamma` positionally into `trans_func`,
// so RougeLForDuReader always uses the default γ = 1.2 (QUIRK, reproduced).
const duReaderGamma2 = 1.2 * 1.2

// RougeLDuReader is the `rouge_l_dureader` metric: PaddleNLP RougeLForDuReader, Rouge-L with
// the DuReader yes/no and entity bonuses. It is immutable and safe for concurrent use.
type RougeLDuReader struct {
	alpha, beta float64
	sig         string
	pool        sync.Pool // *scratch for SentenceScore
}

// NewRougeLDuReader builds a `rouge_l_dureader` metric from its options (see Docs). Preset:
// `paddle`.
func NewRougeLDuReader(o *core.Options) (core.Metric, error) {
	o.String("compat", "paddle", "paddle")
	m := &RougeLDuReader{alpha: weight(o, "alpha"), beta: weight(o, "beta")}
	m.sig = core.NewSig("rouge_l_dureader", "paddle").Float("alpha", m.alpha).Float("beta", m.beta).Add("gamma", "1.2").String()
	return m, nil
}

// weight reads a bonus weight: a finite number >= 0 (default 1), so that precision, recall
// and F stay in [0, 1].
func weight(o *core.Options, key string) float64 {
	v := o.Float(key, 1)
	if !(v >= 0 && v <= math.MaxFloat64) {
		o.Problem(key, "must be a finite number >= 0, got %v", v)
		return 1
	}
	return v
}

// Roles implements core.Metric.
func (m *RougeLDuReader) Roles() []core.Role {
	return []core.Role{predictionRole, referencesRole, yesnoLabelRole, yesnoRefsRole, entityRefsRole}
}

// Signature implements core.Metric.
func (m *RougeLDuReader) Signature() string { return m.sig }

// Check implements core.Metric.
func (m *RougeLDuReader) Check(ex *core.Example) error {
	if err := textinput.Prediction(ex.Values[0], "prediction", ex.UTF8Checked); err != nil {
		return err
	}
	if err := textinput.References(ex.Values[1], "references", ex.UTF8Checked); err != nil {
		return err
	}
	label, yn, ent := ex.Values[2], ex.Values[3], ex.Values[4]
	switch label.Kind {
	case core.Missing, core.Null:
	case core.String:
		if !utf8.ValidString(label.Str) {
			return core.Reject("invalid utf-8", "yesno_label", "the label is not valid UTF-8")
		}
	default:
		return core.Reject("wrong type", "yesno_label", "want a string, got %s", label.Kind)
	}
	switch yn.Kind {
	case core.Missing, core.Null:
	case core.StringList:
		if label.Present() && len(yn.Strs) < textinput.Count(ex.Values[1]) {
			return core.Reject("wrong length", "yesno_refs", "%d labels for %d references", len(yn.Strs), textinput.Count(ex.Values[1]))
		}
		if !textinput.AllValid(yn.Strs) {
			return core.Reject("invalid utf-8", "yesno_refs", "a label is not valid UTF-8")
		}
	default:
		return core.Reject("wrong type", "yesno_refs", "want a list of strings, got %s", yn.Kind)
	}
	switch ent.Kind {
	case core.Missing, core.Null:
	case core.StringList:
		if !textinput.AllValid(ent.Strs) {
			return core.Reject("invalid utf-8", "entity_refs", "an entity is not valid UTF-8")
		}
	default:
		return core.Reject("wrong type", "entity_refs", "want a list of strings, got %s", ent.Kind)
	}
	return nil
}

// NewState implements core.Metric.
func (m *RougeLDuReader) NewState() core.State { return newMeanState(m) }

// DecodeState implements core.Metric.
func (m *RougeLDuReader) DecodeState(b []byte) (core.State, error) { return decodeMeanState(m, b) }

// SentenceScore implements core.SentenceScorer: the example's bonus F.
func (m *RougeLDuReader) SentenceScore(ex *core.Example) (float64, bool) {
	sc, _ := m.pool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer func() { sc.done(); m.pool.Put(sc) }()
	s, _ := m.example(ex, sc)
	return s.f, true
}

// chars returns the code points of s as one-rune strings (Python iterates a str by code
// point), appended to dst.
func chars(dst []string, s string) []string {
	for i, r := range s {
		dst = append(dst, s[i:i+utf8.RuneLen(r)])
	}
	return dst
}

// example scores one checked example the way RougeLForDuReader.add_inst does.
func (m *RougeLDuReader) example(ex *core.Example, sc *scratch) (prf, triple) {
	pred, refs, label, yn, ent := ex.Values[0], ex.Values[1], ex.Values[2], ex.Values[3], ex.Values[4]
	sc.reset()
	// A string is a Python str: compared character by character. A list is tokens.
	if pred.Kind == core.String {
		sc.push(chars(nil, pred.Str))
	} else {
		sc.push(pred.Strs)
	}
	sc.kc = sc.in.n()
	nr := textinput.Count(refs)
	for j := 0; j < nr; j++ {
		switch refs.Kind {
		case core.String:
			sc.push(chars(nil, refs.Str))
		case core.StringList:
			sc.push(chars(nil, refs.Strs[j]))
		default:
			sc.push(refs.Lists[j])
		}
	}
	useYN := label.Kind == core.String && yn.Kind == core.StringList
	entityBonus := 0.0
	if !useYN && ent.Kind == core.StringList {
		for _, e := range ent.Strs {
			if m.inCandidate(pred, e) {
				entityBonus += float64(utf8.RuneCountInString(e))
			}
		}
	}
	cand := sc.at(0)
	sc.lcs.load(cand, sc.kc, sc.in.n())
	var pMax, rMax float64
	for j := 0; j < nr; j++ {
		ref := sc.at(j + 1)
		lcs := float64(sc.lcs.length(ref))
		ynBonus, entBonus := 0.0, 0.0
		if useYN {
			if label.Str == yn.Strs[j] {
				ynBonus = lcs
			}
		} else {
			entBonus = entityBonus
		}
		a, b := float64(m.alpha*ynBonus), float64(m.beta*entBonus)
		num := lcs + a + b
		pDen := float64(len(cand)) + a + b
		rDen := float64(len(ref)) + a + b
		p, r := 0.0, 0.0
		if pDen > 0 {
			p = num / pDen
		}
		if rDen > 0 {
			r = num / rDen
		}
		if j == 0 || p > pMax {
			pMax = p
		}
		if j == 0 || r > rMax {
			rMax = r
		}
	}
	f := fmeasure{kind: 'b', beta2: duReaderGamma2}.of(pMax, rMax)
	return prf{pMax, rMax, f}, triple{}
}

// inCandidate is Python's `ent in cand`: a substring test for a str candidate, a membership
// test for a token list.
func (m *RougeLDuReader) inCandidate(pred core.Value, e string) bool {
	if pred.Kind == core.String {
		return strings.Contains(pred.Str, e)
	}
	for _, t := range pred.Strs {
		if t == e {
			return true
		}
	}
	return false
}
