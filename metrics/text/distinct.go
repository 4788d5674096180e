package text

import (
	"fmt"
	"slices"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

// Distinct is the `distinct` metric: distinct n-grams over total n-grams of every prediction
// of the corpus (MindNLP Distinct = PaddleNLP Distinct). It is immutable and safe for
// concurrent use.
type Distinct struct {
	n       int
	tokName string
	tok     tokenize.Func
	sig     string
}

// NewDistinct builds a `distinct` metric from its options (see Docs). Preset: `mindnlp`.
func NewDistinct(o *core.Options) (core.Metric, error) {
	o.String("compat", "mindnlp", "mindnlp")
	m := &Distinct{n: int(o.Int("n", 2, 1, 1<<20))}
	m.tokName = o.String("tokenize", "whitespace", tokenize.Names()...)
	fn, err := tokenize.New(m.tokName)
	if err != nil {
		o.Problem("tokenize", "%v", err)
	}
	m.tok = fn
	m.sig = core.NewSig("distinct", "mindnlp").Int("n", int64(m.n)).Add("tok", m.tokName).String()
	return m, nil
}

// Roles implements core.Metric.
func (m *Distinct) Roles() []core.Role { return []core.Role{predictionRole} }

// Signature implements core.Metric.
func (m *Distinct) Signature() string { return m.sig }

// Check implements core.Metric.
func (m *Distinct) Check(ex *core.Example) error { return checkPrediction(ex) }

// NewState implements core.Metric.
func (m *Distinct) NewState() core.State { return &distinctState{m: m, set: map[string]struct{}{}} }

// SentenceScore implements core.SentenceScorer: Distinct-n of the example alone (undefined
// when it has no n-gram).
func (m *Distinct) SentenceScore(ex *core.Example) (float64, bool) {
	s := &distinctState{m: m, set: map[string]struct{}{}}
	s.Add(ex, 1)
	if s.total == 0 {
		return 0, false
	}
	return float64(len(s.set)) / float64(s.total), true
}

func (m *Distinct) tokens(v core.Value) []string {
	if v.Kind == core.StringList {
		return v.Strs
	}
	return m.tok(v.Str)
}

// distinctState is the exact set of n-gram keys seen and the number of n-grams. A key is the
// n tokens joined by single spaces (QUIRK of MindNLP/Paddle, reproduced: ["a b", "c"] and
// ["a", "b c"] are the same bigram). Memory: one string per distinct n-gram.
type distinctState struct {
	m       *Distinct
	set     map[string]struct{}
	total   int64 // n-grams, weighted
	records int64
	buf     []byte
}

// Add implements core.State.
func (s *distinctState) Add(ex *core.Example, weight int64) {
	toks := s.m.tokens(ex.Values[0])
	n := s.m.n
	for i := 0; i+n <= len(toks); i++ {
		b := s.buf[:0]
		for j, t := range toks[i : i+n] {
			if j > 0 {
				b = append(b, ' ')
			}
			b = append(b, t...)
		}
		s.buf = b
		if _, ok := s.set[string(b)]; !ok {
			s.set[string(b)] = struct{}{}
		}
	}
	if k := len(toks) - n + 1; k > 0 {
		s.total += weight * int64(k)
	}
	s.records += weight
}

// Merge implements core.State: the union of the sets and the sum of the counts.
func (s *distinctState) Merge(other core.State) error {
	o, ok := other.(*distinctState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	for k := range o.set {
		s.set[k] = struct{}{}
	}
	s.total += o.total
	s.records += o.records
	return nil
}

// Result implements core.State.
func (s *distinctState) Result() core.Result {
	d := map[string]any{"distinct": int64(len(s.set)), "total": s.total, "count": s.records}
	if s.total == 0 {
		return core.Undefined("no n-grams", d)
	}
	return core.Result{Value: float64(len(s.set)) / float64(s.total), Details: d}
}

const distinctStateVersion = 1

// MarshalBinary implements core.State. Keys are written sorted, so equal states serialize to
// equal bytes.
func (s *distinctState) MarshalBinary() ([]byte, error) {
	keys := make([]string, 0, len(s.set))
	for k := range s.set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var e core.Encoder
	e.Byte(distinctStateVersion)
	e.String(s.m.sig)
	e.Varint(s.total)
	e.Varint(s.records)
	e.Uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.String(k)
	}
	return e.B, nil
}

// DecodeState implements core.Metric.
func (m *Distinct) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("distinct", distinctStateVersion)
	if err := checkSig(d, m.sig); err != nil {
		return nil, err
	}
	s := &distinctState{m: m, set: map[string]struct{}{}}
	s.total, s.records = d.Varint(), d.Varint()
	n := d.Len(1)
	for i := 0; i < n && d.Err() == nil; i++ {
		s.set[d.String()] = struct{}{}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.total < int64(len(s.set)) || s.records < 0 {
		return nil, fmt.Errorf("%w: inconsistent counts", core.ErrCorruptState)
	}
	return s, nil
}
