package regress

import (
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

const pearsonVersion = 1

// Pearson is the `pearson` metric. It is immutable and safe for concurrent use.
type Pearson struct {
	compat string // scipy | mindnlp
	f32    bool   // dtype float32: inputs are rounded to float32 first
	sig    string
}

// NewPearson returns the `pearson` metric: presets `scipy` (default) and `mindnlp`; option
// `dtype` float64|float32 [float64].
func NewPearson(o *core.Options) (core.Metric, error) {
	m := &Pearson{}
	m.compat = o.String("compat", "scipy", "scipy", "mindnlp")
	m.f32 = o.String("dtype", "float64", "float64", "float32") == "float32"
	dtype := "float64"
	if m.f32 {
		dtype = "float32"
	}
	m.sig = core.NewSig("pearson", m.compat).Add("dtype", dtype).String()
	return m, nil
}

// Roles lists prediction and label.
func (m *Pearson) Roles() []core.Role { return numberRoles }

// Signature identifies the metric and its options.
func (m *Pearson) Signature() string { return m.sig }

// Check rejects records whose prediction or label is not a finite number.
func (m *Pearson) Check(ex *core.Example) error {
	_, _, err := pair(ex, m.f32)
	return err
}

// NewState returns an empty state.
func (m *Pearson) NewState() core.State { return &PearsonState{m: m} }

// PearsonState holds the record count and exact sums of x, y, x², y² and xy (about 2.8 KB
// whatever the number of records). It is not safe for concurrent use.
type PearsonState struct {
	m   *Pearson
	mom moments
}

// Add folds one record weight times; records Check rejects are ignored.
func (s *PearsonState) Add(ex *core.Example, weight int64) {
	x, y, err := pair(ex, s.m.f32)
	if err != nil || weight <= 0 {
		return
	}
	s.mom.add(x, y, weight)
}

// Merge adds other's sums exactly.
func (s *PearsonState) Merge(other core.State) error {
	o, ok := other.(*PearsonState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.mom.merge(&o.mom)
	return nil
}

// MarshalBinary writes the signature, the count and the sums.
func (s *PearsonState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(pearsonVersion)
	e.String(s.m.sig)
	s.mom.encode(&e)
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Pearson) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("pearson", pearsonVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, incompatible(sig, m.sig)
	}
	s := &PearsonState{m: m}
	s.mom.decode(d)
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.mom.n < 0 {
		return nil, corrupt("pearson: negative count")
	}
	return s, nil
}

// Result computes r. It does not change the state.
func (s *PearsonState) Result() core.Result {
	n := s.mom.n
	if n < 2 {
		return undefined("fewer than 2 records", n)
	}
	ex := s.mom.exact()
	if !ex.finite() {
		return undefined("overflow", n)
	}
	if s.m.compat == "mindnlp" {
		return mindnlpPearson(&ex)
	}
	// scipy: the centred co-moments, computed exactly from the exact sums and rounded once.
	dxxS, dyyS, dxyS := ex.comoments()
	dxx, dyy, dxy := dxxS.Float(), dyyS.Float(), dxyS.Float()
	if !finite(dxx, dyy, dxy) {
		return undefined("overflow", n)
	}
	if dxx == 0 || dyy == 0 {
		return undefined("constant input", n)
	}
	details := map[string]any{"n": n}
	if n == 2 { // scipy: exactly ±1
		return core.Result{Value: math.Copysign(1, dxy), Details: details}
	}
	var r float64
	prodS := core.MulSum(&dxxS, &dyyS)
	if prod := prodS.Float(); prod >= 0x1p-1022 && !math.IsInf(prod, 0) {
		r = dxy / math.Sqrt(prod)
	} else {
		r = dxy / (math.Sqrt(dxx) * math.Sqrt(dyy))
	}
	if !finite(r) {
		return undefined("overflow", n)
	}
	return core.Result{Value: clip(r), Details: details}
}

// mindnlp applies MindNLP's one-pass formula to the (exactly rounded) sums.
func mindnlpPearson(ex *exact) core.Result {
	n := ex.n
	nf := float64(n)
	sx, sy := ex.sx.Float(), ex.sy.Float()
	sxx, syy, sxy := ex.sxx.Float(), ex.syy.Float(), ex.sxy.Float()
	num := sxy - (sx * sy / nf)
	prod := (sxx - sx*sx/nf) * (syy - sy*sy/nf)
	details := map[string]any{"n": n}
	if prod < 0 {
		return core.Undefined("negative variance from rounding", details)
	}
	den := math.Sqrt(prod)
	if den == 0 {
		return core.Result{Value: 0.0, Details: details}
	}
	r := num / den
	if !finite(r) {
		return core.Undefined("overflow", details)
	}
	return core.Result{Value: r, Details: details}
}
