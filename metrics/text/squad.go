package text

import (
	"fmt"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

// isPunct marks Python's string.punctuation (ASCII only).
var isPunct = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		t[c] = true
	}
	return t
}()

// normalizer applies the official SQuAD v1.1 `normalize_answer` with Python semantics and
// returns the answer's tokens (`normalize_answer(s).split()`). It reuses its buffers: the
// returned tokens are valid until the next call. It is not safe for concurrent use.
type normalizer struct {
	squad bool
	a, b  []byte
}

// tokens returns the normalized tokens of s. With squad normalization: Python lower(),
// delete the ASCII string.punctuation characters, replace the words a|an|the (Python's
// Unicode-aware \b) by a space, split on Python whitespace. Without: split on whitespace.
func (nz *normalizer) tokens(s string) []string {
	if !nz.squad {
		return tokenize.PySplit(s)
	}
	l := tokenize.PyLower(s)
	// Remove punctuation. Its characters are ASCII, so bytes suffice on valid UTF-8.
	a := nz.a[:0]
	for i := 0; i < len(l); i++ {
		if c := l[i]; c >= utf8.RuneSelf || !isPunct[c] {
			a = append(a, c)
		}
	}
	nz.a = a
	// Remove articles: `re.sub(r"\b(a|an|the)\b", " ", text)` replaces exactly the maximal runs
	// of word characters that are "a", "an" or "the" (the alternatives are all word characters,
	// so both \b must fall at the ends of a run).
	b := nz.b[:0]
	for i := 0; i < len(a); {
		r, w := utf8.DecodeRune(a[i:])
		if !tokenize.PyIsWordRune(r) {
			b = append(b, a[i:i+w]...)
			i += w
			continue
		}
		j := i + w
		for j < len(a) {
			r, w := utf8.DecodeRune(a[j:])
			if !tokenize.PyIsWordRune(r) {
				break
			}
			j += w
		}
		switch string(a[i:j]) {
		case "a", "an", "the":
			b = append(b, ' ')
		default:
			b = append(b, a[i:j]...)
		}
		i = j
	}
	nz.b = b
	return tokenize.PySplit(string(b))
}

// equalTokens reports whether two normalized answers are equal (`" ".join(tokens)` of both
// match: tokens hold no whitespace, so this is token-list equality).
func equalTokens(x, y []string) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// f1Tokens is the official SQuAD v1.1 f1_score on normalized tokens: the multiset overlap,
// 0 when it is empty, else 2·P·R/(P+R).
func f1Tokens(pred, gold []string, counts map[string]int) float64 {
	clear(counts)
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if c := counts[t]; c > 0 {
			counts[t] = c - 1
			same++
		}
	}
	if same == 0 {
		return 0
	}
	p := float64(same) / float64(len(pred))
	r := float64(same) / float64(len(gold))
	return float64(float64(2*p)*r) / (p + r)
}

// SQuAD is the `exact_match` and `token_f1` metric: the official SQuAD v1.1 exact match
// (= MindNLP EmScore) or token F1 of a prediction against its gold answers, maximized over
// golds and averaged over examples, on a 0..1 scale. It is immutable and safe for concurrent
// use.
type SQuAD struct {
	typ   string // "exact_match" or "token_f1"
	squad bool   // normalize: squad
	sig   string
}

// NewExactMatch builds an `exact_match` metric from its options (see Docs). Preset: `squad`
// (= MindNLP EmScore).
func NewExactMatch(o *core.Options) (core.Metric, error) { return newSQuAD("exact_match", o), nil }

// NewTokenF1 builds a `token_f1` metric from its options (see Docs). Preset: `squad` (the
// official SQuAD v1.1 f1_score).
func NewTokenF1(o *core.Options) (core.Metric, error) { return newSQuAD("token_f1", o), nil }

func newSQuAD(typ string, o *core.Options) *SQuAD {
	o.String("compat", "squad", "squad")
	norm := o.String("normalize", "squad", "squad", "none")
	return &SQuAD{typ: typ, squad: norm == "squad",
		sig: core.NewSig(typ, "squad").Add("normalize", norm).String()}
}

// Roles implements core.Metric.
func (m *SQuAD) Roles() []core.Role { return []core.Role{predictionRole, referencesRole} }

// Signature implements core.Metric.
func (m *SQuAD) Signature() string { return m.sig }

// Check implements core.Metric.
func (m *SQuAD) Check(ex *core.Example) error {
	if err := checkPrediction(ex); err != nil {
		return err
	}
	return checkReferences(ex)
}

// NewState implements core.Metric.
func (m *SQuAD) NewState() core.State { return &meanState{m: m, sig: m.sig} }

// DecodeState implements core.Metric.
func (m *SQuAD) DecodeState(b []byte) (core.State, error) { return decodeMeanState(m, m.sig, b) }

// SentenceScore implements core.SentenceScorer: the example's best EM (0 or 1) or token F1.
func (m *SQuAD) SentenceScore(ex *core.Example) (float64, bool) {
	var sc squadScratch
	return m.score(ex, &sc), true
}

// squadScratch holds the reusable buffers of one state.
type squadScratch struct {
	pn, gn normalizer
	pred   []string
	counts map[string]int
}

// score returns max over golds of EM or F1 for one checked example.
func (m *SQuAD) score(ex *core.Example, sc *squadScratch) float64 {
	refs := ex.Values[1]
	pred := answer(ex.Values[0])
	if m.typ == "exact_match" && !m.squad {
		// normalize: none compares the raw strings.
		for i, n := 0, textinput.Count(refs); i < n; i++ {
			if gold(refs, i) == pred {
				return 1
			}
		}
		return 0
	}
	sc.pn.squad, sc.gn.squad = m.squad, m.squad
	predTokens := sc.pn.tokens(pred)
	best := 0.0
	for i, n := 0, textinput.Count(refs); i < n; i++ {
		g := sc.gn.tokens(gold(refs, i))
		var s float64
		if m.typ == "exact_match" {
			if equalTokens(predTokens, g) {
				s = 1
			}
		} else {
			if sc.counts == nil {
				sc.counts = make(map[string]int)
			}
			s = f1Tokens(predTokens, g, sc.counts)
		}
		if i == 0 || s > best {
			best = s
		}
	}
	return best
}

// meanState is the state of `exact_match` and `token_f1`: the exact sum of the per-example
// scores and their number. Memory: O(1).
type meanState struct {
	m   *SQuAD
	sig string
	sum core.Sum
	n   int64
	sc  squadScratch
}

// Add implements core.State.
func (s *meanState) Add(ex *core.Example, weight int64) {
	s.sum.AddWeighted(s.m.score(ex, &s.sc), weight)
	s.n += weight
}

// Merge implements core.State.
func (s *meanState) Merge(other core.State) error {
	o, ok := other.(*meanState)
	if !ok || o.sig != s.sig {
		return core.Incompatible(s, other)
	}
	s.sum.Merge(&o.sum)
	s.n += o.n
	return nil
}

// Result implements core.State: the mean per-example score.
func (s *meanState) Result() core.Result {
	if s.n == 0 {
		return core.Undefined("no records", map[string]any{"count": int64(0)})
	}
	return core.Result{Value: s.sum.Float() / float64(s.n), Details: map[string]any{"count": s.n}}
}

const meanStateVersion = 1

// MarshalBinary implements core.State.
func (s *meanState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(meanStateVersion)
	e.String(s.sig)
	e.Sum(&s.sum)
	e.Varint(s.n)
	return e.B, nil
}

func decodeMeanState(m *SQuAD, sig string, b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version(m.typ, meanStateVersion)
	if err := checkSig(d, sig); err != nil {
		return nil, err
	}
	s := &meanState{m: m, sig: sig, sum: d.Sum(), n: d.Varint()}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if x := s.sum.Float(); s.n < 0 || !(x >= 0 && x <= float64(s.n)) {
		return nil, fmt.Errorf("%w: sum out of range", core.ErrCorruptState)
	}
	return s, nil
}

// checkSig reads the signature a state was written with and refuses a different metric.
func checkSig(d *core.Decoder, want string) error {
	got := d.String()
	if err := d.Err(); err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, got, want)
	}
	return nil
}
