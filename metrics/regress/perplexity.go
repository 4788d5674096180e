package regress

import (
	"math"
	"strconv"
	"strings"

	"github.com/evalstream/evalstream/metrics/core"
)

const perplexityVersion = 1

// probFloor is MindNLP's lower clip of a probability before the logarithm.
const probFloor = 1e-10

// Input kinds of the perplexity metric.
const (
	inProbs    = "probs"
	inLogits   = "logits"
	inLogprobs = "logprobs"
)

// Perplexity is the `perplexity` metric. It is immutable and safe for concurrent use.
type Perplexity struct {
	compat    string // mindnlp | ignite
	input     string // probs | logits | logprobs
	hasIgnore bool
	ignore    int64
	roles     []core.Role
	sig       string
}

// NewPerplexity returns the `perplexity` metric: presets `mindnlp` (default; probabilities) and
// `ignite` (logits, ignore_label -100); options `input` probs|logits|logprobs and
// `ignore_label` (an integer or none).
func NewPerplexity(o *core.Options) (core.Metric, error) {
	m := &Perplexity{}
	m.compat = o.String("compat", "mindnlp", "mindnlp", "ignite")
	defInput, defIgnore := inProbs, "none"
	if m.compat == "ignite" {
		defInput, defIgnore = inLogits, "-100"
	}
	m.input = o.String("input", defInput, inProbs, inLogits, inLogprobs)
	if m.input == inLogprobs {
		o.Forbid("ignore_label", "to input logprobs, which has no label")
	} else {
		s := strings.TrimSpace(o.String("ignore_label", defIgnore))
		if s != "none" {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				o.Problem("ignore_label", "must be an integer or none, got %q", s)
			} else {
				m.hasIgnore, m.ignore = true, v
			}
		}
	}
	pred := core.Role{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.FloatList}}
	m.roles = []core.Role{pred}
	ignore := "none"
	if m.input != inLogprobs {
		m.roles = append(m.roles, core.Role{Name: "label", Field: "label", Required: true, Accepts: []core.Kind{core.Int, core.FloatList}})
		if m.hasIgnore {
			ignore = strconv.FormatInt(m.ignore, 10)
		}
	}
	m.sig = core.NewSig("perplexity", m.compat).Add("input", m.input).Add("ignore_label", ignore).String()
	return m, nil
}

// Roles lists prediction, and label unless the input is logprobs.
func (m *Perplexity) Roles() []core.Role { return m.roles }

// Signature identifies the metric and its options.
func (m *Perplexity) Signature() string { return m.sig }

// NewState returns an empty state.
func (m *Perplexity) NewState() core.State { return &PerplexityState{m: m} }

// floats reads a list of numbers (an empty JSON list arrives as an empty StringList).
func floats(v *core.Value, field string) ([]float64, error) {
	switch v.Kind {
	case core.FloatList:
		return v.Floats, nil
	case core.StringList:
		if len(v.Strs) == 0 {
			return nil, nil
		}
	case core.Missing, core.Null:
		return nil, core.Reject("missing field", field, "need a list of numbers")
	}
	return nil, core.Reject("wrong type", field, "need a list of numbers, got %s", v.Kind)
}

// label reads a class id from an integer (or integral float) or a one-hot list.
func label(v *core.Value) (int64, error) {
	switch v.Kind {
	case core.Missing, core.Null:
		return 0, core.Reject("missing field", "label", "need a class id")
	case core.Int:
		return v.Int, nil
	case core.Float:
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return 0, core.Reject("non-finite value", "label", "%v", v.Float)
		}
		if v.Float != math.Trunc(v.Float) || math.Abs(v.Float) > 1<<53 {
			return 0, core.Reject("wrong type", "label", "class id must be an integer, got %v", v.Float)
		}
		return int64(v.Float), nil
	case core.FloatList:
		id := -1
		for i, x := range v.Floats {
			switch {
			case x == 0:
			case x == 1 && id == -1:
				id = i
			default:
				id = -2
			}
		}
		if id < 0 {
			return 0, core.Reject("wrong type", "label", "a list label must be one-hot (0/1 values, exactly one 1)")
		}
		return int64(id), nil
	}
	return 0, core.Reject("wrong type", "label", "need a class id, got %s", v.Kind)
}

// decode validates a record and, when compute is set, returns what it adds: a negative
// log-likelihood and a token count (for logprobs, the token list itself: each term is added to
// the state exactly). A record whose label is ignore_label counts 0 tokens.
func (m *Perplexity) decode(ex *core.Example, compute bool) (xs []float64, ce float64, count int64, err error) {
	xs, err = floats(value(ex, 0), "prediction")
	if err != nil {
		return nil, 0, 0, err
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, 0, 0, core.Reject("non-finite value", "prediction", "%v at index %d", x, i)
		}
		switch m.input {
		case inProbs:
			if x < 0 || x > 1 {
				return nil, 0, 0, core.Reject("probability out of range", "prediction", "%v at index %d (MindNLP does not clip p > 1; we reject it)", x, i)
			}
		case inLogprobs:
			if x > 0 {
				return nil, 0, 0, core.Reject("probability out of range", "prediction", "log-probability %v > 0 at index %d", x, i)
			}
		}
	}
	if m.input == inLogprobs {
		return xs, 0, int64(len(xs)), nil
	}
	if len(xs) == 0 {
		return nil, 0, 0, core.Reject("wrong length", "prediction", "empty list")
	}
	id, err := label(value(ex, 1))
	if err != nil {
		return nil, 0, 0, err
	}
	if m.hasIgnore && id == m.ignore {
		return nil, 0, 0, nil
	}
	if id < 0 || id >= int64(len(xs)) {
		return nil, 0, 0, core.Reject("label out of range", "label", "class %d with %d scores", id, len(xs))
	}
	if !compute {
		return nil, 0, 1, nil
	}
	if m.input == inProbs {
		return nil, -math.Log(max(probFloor, xs[id])), 1, nil
	}
	// logits: logsumexp − logit, computed stably around the maximum.
	mx := xs[0]
	for _, x := range xs[1:] {
		mx = max(mx, x)
	}
	var sum float64
	for _, x := range xs {
		sum += math.Exp(x - mx)
	}
	return nil, mx + math.Log(sum) - xs[id], 1, nil
}

// Check validates the prediction list and the label.
func (m *Perplexity) Check(ex *core.Example) error {
	_, _, _, err := m.decode(ex, false)
	return err
}

// PerplexityState holds the exact sum of the negative log-likelihoods and the token count
// (about 600 bytes). It is not safe for concurrent use.
type PerplexityState struct {
	m     *Perplexity
	nll   acc
	count int64
}

// Add folds one record weight times; records Check rejects are ignored.
func (s *PerplexityState) Add(ex *core.Example, weight int64) {
	xs, ce, count, err := s.m.decode(ex, true)
	if err != nil || weight <= 0 || count == 0 {
		return
	}
	if s.m.input == inLogprobs {
		for _, x := range xs {
			s.nll.addWeighted(-x, weight)
		}
	} else {
		s.nll.addWeighted(ce, weight)
	}
	s.count += count * weight
}

// Merge adds other's sum and count.
func (s *PerplexityState) Merge(other core.State) error {
	o, ok := other.(*PerplexityState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.nll.merge(&o.nll)
	s.count += o.count
	return nil
}

// MarshalBinary writes the signature, the count and the sum.
func (s *PerplexityState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(perplexityVersion)
	e.String(s.m.sig)
	e.Varint(s.count)
	nll := s.nll.sum()
	e.Sum(&nll)
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Perplexity) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("perplexity", perplexityVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, incompatible(sig, m.sig)
	}
	s := &PerplexityState{m: m}
	s.count = d.Varint()
	nll := d.Sum()
	s.nll.fromSum(&nll)
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.count < 0 {
		return nil, corrupt("perplexity: negative count")
	}
	return s, nil
}

// Result is exp(Σ NLL / count).
func (s *PerplexityState) Result() core.Result {
	details := map[string]any{"tokens": s.count}
	if s.count == 0 {
		return core.Undefined("no records", details)
	}
	mean := s.nll.float() / float64(s.count)
	ppl := math.Exp(mean)
	if !finite(mean, ppl) {
		return core.Undefined("overflow", details)
	}
	details["mean_nll"] = mean
	return core.Result{Value: ppl, Details: details}
}
