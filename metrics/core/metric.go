package core

import (
	"errors"
	"fmt"
)

// Role is one input a metric reads, such as "prediction" or "references". Field is the
// record field it reads by default; users override it with the option of the role's name.
type Role struct {
	Name     string
	Field    string
	Required bool
	// Accepts lists the value kinds the role accepts, for `evalstream list` and errors.
	Accepts []Kind
}

// Metric is a configured metric: its options are fixed at construction. A Metric is
// immutable and safe for concurrent use; its States are not.
type Metric interface {
	// Roles lists the inputs the metric reads, in the order of Example.Values.
	Roles() []Role
	// Signature is a sacrebleu-style reproducibility string in the form Sig builds
	// (type:T|compat:P|options...|version:V) covering the preset, every resolved option and
	// the evalstream release. Two metrics with the same signature compute the same
	// function, so their states merge.
	Signature() string
	// Check validates an example without changing anything. It returns a *RecordError when
	// the example cannot be scored. Add must then not be called for it.
	Check(ex *Example) error
	// NewState returns an empty state (the identity of Merge).
	NewState() State
	// DecodeState rebuilds a state written by State.MarshalBinary of a metric with the same
	// signature.
	DecodeState(b []byte) (State, error)
}

// State is a metric's mergeable sufficient statistics. A State is not safe for concurrent
// use: each worker owns its own and states are combined with Merge.
type State interface {
	// Add folds one example that passed Metric.Check, counted weight times (weight >= 1).
	// It does not retain ex or anything it points to.
	Add(ex *Example, weight int64)
	// Merge folds other (a state of the same metric) into the receiver. other is left
	// unchanged and may be used afterwards. Merge is associative and commutative: the Result
	// does not depend on how records were split or in which order states were merged.
	Merge(other State) error
	// Result computes the metric value. It does not change the state.
	Result() Result
	// MarshalBinary serializes the state (with its own format version byte).
	MarshalBinary() ([]byte, error)
}

// SentenceScorer is implemented by metrics that can score a single example (for the
// per-record `examples` sink).
type SentenceScorer interface {
	SentenceScore(ex *Example) (float64, bool)
}

// Result is a final metric value. Value is a float64, []float64 (per class), [][]float64 (a
// matrix) or nil when the metric is undefined; then Reason says why.
type Result struct {
	Value   any
	Reason  string
	Details map[string]any
	// CI is the value's confidence interval when the run computes them (config `ci`).
	CI *Interval
	// SigData holds the signature pairs that depend on the records scored, `key:value`
	// joined by "|" (sacrebleu's nrefs); empty for most metrics. The results show the
	// metric's signature with them (SigWithData).
	SigData string
}

// Undefined returns a null result with a reason.
func Undefined(reason string, details map[string]any) Result {
	if details == nil {
		details = map[string]any{}
	}
	details["reason"] = reason
	return Result{Reason: reason, Details: details}
}

// RecordError says why one record cannot be scored. Reason is a short stable phrase used to
// count rejections ("label out of range"); Field names the record field at fault.
type RecordError struct {
	Reason string
	Field  string
	Detail string
}

func (e *RecordError) Error() string {
	msg := e.Reason
	if e.Field != "" {
		msg = fmt.Sprintf("field %q: %s", e.Field, msg)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Reject returns a *RecordError.
func Reject(reason, field, detailFormat string, args ...any) error {
	return &RecordError{Reason: reason, Field: field, Detail: fmt.Sprintf(detailFormat, args...)}
}

// ErrIncompatible is wrapped by Merge and DecodeState when states come from metrics with
// different options or types.
var ErrIncompatible = errors.New("incompatible metric states")

// ErrCorruptState is wrapped by DecodeState for truncated or malformed input.
var ErrCorruptState = errors.New("corrupt metric state")

// Incompatible builds a merge error naming both sides.
func Incompatible(want, got any) error {
	return fmt.Errorf("%w: cannot merge %T into %T", ErrIncompatible, got, want)
}

// Doc describes a metric type for `evalstream list`.
type Doc struct {
	Type    string
	Presets []string // first is the default
	Value   string   // what the value is
	// Direction says which values are better: DirectionHigher, DirectionLower, or
	// DirectionNone for a value that is not a score (a confusion matrix).
	Direction string
	Options   []OptionDoc
	Invalid   []string // what makes a record invalid for this metric (rejection reasons)
	Memory    string   // state size
}

// The directions of Doc.Direction.
const (
	DirectionHigher = "higher"
	DirectionLower  = "lower"
	DirectionNone   = "none"
)

// OptionDoc documents one option.
type OptionDoc struct {
	Name    string
	Default string // may name per-preset defaults
	Help    string
}

// CopyState returns an independent copy of s, a state of m, through its serialized form: what
// a wrapper state merging into itself reads from.
func CopyState(m Metric, s State) (State, error) {
	b, err := s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return m.DecodeState(b)
}
