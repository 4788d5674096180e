package regress

import (
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

const errorsVersion = 1

// errKind is one of the scikit-learn regression scores.
type errKind uint8

const (
	eMSE errKind = iota
	eRMSE
	eMAE
	eMAPE
	eR2
	eEV
)

var errNames = [...]string{"mse", "rmse", "mae", "mape", "r2", "explained_variance"}

// errSums is how many exact sums each kind keeps: mse/rmse Σd²; mae Σ|d|; mape Σ|d|/max(|y|,ε);
// r2 Σd², Σy, Σy²; explained_variance Σd, Σd², Σy, Σy² (d = label − prediction).
var errSums = [...]int{eMSE: 1, eRMSE: 1, eMAE: 1, eMAPE: 1, eR2: 3, eEV: 4}

// mapeEpsilon is numpy's float64 machine epsilon, sklearn's floor of |y| in MAPE.
const mapeEpsilon = 0x1p-52

// Errors is one of the metrics `mse`, `rmse`, `mae`, `mape`, `r2` and `explained_variance`,
// scikit-learn's single-output regression scores. It is immutable and safe for concurrent use.
type Errors struct {
	kind errKind
	sig  string
}

// NewMSE returns `mse` (sklearn mean_squared_error).
func NewMSE(o *core.Options) (core.Metric, error) { return newErrors(eMSE, o) }

// NewRMSE returns `rmse` (sklearn root_mean_squared_error).
func NewRMSE(o *core.Options) (core.Metric, error) { return newErrors(eRMSE, o) }

// NewMAE returns `mae` (sklearn mean_absolute_error).
func NewMAE(o *core.Options) (core.Metric, error) { return newErrors(eMAE, o) }

// NewMAPE returns `mape` (sklearn mean_absolute_percentage_error).
func NewMAPE(o *core.Options) (core.Metric, error) { return newErrors(eMAPE, o) }

// NewR2 returns `r2` (sklearn r2_score with force_finite).
func NewR2(o *core.Options) (core.Metric, error) { return newErrors(eR2, o) }

// NewExplainedVariance returns `explained_variance` (sklearn explained_variance_score with
// force_finite).
func NewExplainedVariance(o *core.Options) (core.Metric, error) { return newErrors(eEV, o) }

func newErrors(k errKind, o *core.Options) (core.Metric, error) {
	compat := o.String("compat", "sklearn", "sklearn")
	o.Forbid("multioutput", "(not supported): a record has one prediction and one label, a single output")
	m := &Errors{kind: k}
	m.sig = core.NewSig(errNames[k], compat).String()
	return m, nil
}

// Roles lists prediction and label.
func (m *Errors) Roles() []core.Role { return numberRoles }

// Signature identifies the metric and its options.
func (m *Errors) Signature() string { return m.sig }

// Check rejects records whose prediction or label is not a finite number.
func (m *Errors) Check(ex *core.Example) error {
	_, _, err := pair(ex, false)
	return err
}

// NewState returns an empty state.
func (m *Errors) NewState() core.State {
	return &ErrorsState{m: m, sums: make([]acc, errSums[m.kind])}
}

// ErrorsState holds the weighted record count and one to four exact sums (about 600 bytes
// each). It is not safe for concurrent use.
type ErrorsState struct {
	m    *Errors
	n    int64
	sums []acc
}

// diff returns hi + lo = y − x exactly (TwoSum), with hi the rounded difference numpy computes.
// lo is 0 when hi overflows.
func diff(y, x float64) (hi, lo float64) {
	hi = y - x
	if math.IsInf(hi, 0) {
		return hi, 0
	}
	bb := hi - y
	lo = (y - (hi - bb)) + (-x - bb)
	return hi, lo
}

// addSquare adds w·(hi+lo)² exactly.
func addSquare(a *acc, hi, lo float64, w int64) {
	if math.IsInf(hi, 0) {
		a.add(math.Inf(1))
		return
	}
	a.addProduct3(hi, hi, w)
	if lo != 0 {
		a.addProduct3(hi, lo, w)
		a.addProduct3(hi, lo, w)
		a.addProduct3(lo, lo, w)
	}
}

// addDiff adds w·(hi+lo) exactly.
func addDiff(a *acc, hi, lo float64, w int64) {
	a.addWeighted(hi, w)
	if lo != 0 {
		a.addWeighted(lo, w)
	}
}

// Add folds one record weight times; records Check rejects are ignored.
func (s *ErrorsState) Add(ex *core.Example, weight int64) {
	x, y, err := pair(ex, false)
	if err != nil || weight <= 0 {
		return
	}
	s.n += weight
	hi, lo := diff(y, x)
	switch s.m.kind {
	case eMSE, eRMSE:
		addSquare(&s.sums[0], hi, lo, weight)
	case eMAE:
		// |hi + lo| = sign(hi)·(hi + lo): |lo| is at most half an ulp of hi, and lo = 0 when hi = 0.
		if hi < 0 {
			hi, lo = -hi, -lo
		}
		addDiff(&s.sums[0], hi, lo, weight)
	case eMAPE:
		// Each term rounded as numpy computes it; only the sum is exact.
		s.sums[0].addWeighted(math.Abs(x-y)/math.Max(math.Abs(y), mapeEpsilon), weight)
	case eR2:
		addSquare(&s.sums[0], hi, lo, weight)
		s.sums[1].addWeighted(y, weight)
		s.sums[2].addProduct3(y, y, weight)
	case eEV:
		addDiff(&s.sums[0], hi, lo, weight)
		addSquare(&s.sums[1], hi, lo, weight)
		s.sums[2].addWeighted(y, weight)
		s.sums[3].addProduct3(y, y, weight)
	}
}

// Merge adds other's count and sums exactly.
func (s *ErrorsState) Merge(other core.State) error {
	o, ok := other.(*ErrorsState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.n += o.n
	for i := range s.sums {
		s.sums[i].merge(&o.sums[i])
	}
	return nil
}

// MarshalBinary writes the signature, the count and the sums.
func (s *ErrorsState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(errorsVersion)
	e.String(s.m.sig)
	e.Varint(s.n)
	for i := range s.sums {
		sum := s.sums[i].sum()
		e.Sum(&sum)
	}
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Errors) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version(errNames[m.kind], errorsVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, incompatible(sig, m.sig)
	}
	s := m.NewState().(*ErrorsState)
	s.n = d.Varint()
	for i := range s.sums {
		sum := d.Sum()
		s.sums[i].fromSum(&sum)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.n < 0 {
		return nil, corrupt(errNames[m.kind] + ": negative count")
	}
	return s, nil
}

// Result computes the score. It does not change the state.
func (s *ErrorsState) Result() core.Result {
	n := s.n
	if n == 0 {
		return undefined("no records", n)
	}
	if s.m.kind == eR2 && n < 2 { // sklearn: NaN and an UndefinedMetricWarning
		return undefined("fewer than 2 records", n)
	}
	sums := make([]core.Sum, len(s.sums))
	fin := make([]bool, len(s.sums))
	for i := range s.sums {
		sums[i] = s.sums[i].sum()
		fin[i] = finite(sums[i].Float())
	}
	nf := float64(n)
	v := math.NaN()
	switch s.m.kind {
	case eMSE, eMAE, eMAPE:
		if fin[0] {
			v = sums[0].Float() / nf
		}
	case eRMSE:
		if fin[0] {
			v = math.Sqrt(sums[0].Float() / nf)
		}
	case eR2:
		// 1 − SSE/SST with SST = (nΣy² − (Σy)²)/n, both parts exact until the division. A
		// zero SSE decides alone (sklearn's 1.0 even when Σy² overflows).
		switch {
		case fin[0] && sums[0].Float() == 0:
			v = 1
		case fin[0] && fin[1] && fin[2]:
			num := core.ScaleSum(&sums[0], nf)
			den := centred(n, &sums[2], &sums[1], &sums[1])
			v = forceFinite(num.Float(), den.Float())
		}
	case eEV:
		// 1 − Var(d)/Var(y), each variance n² times as an exact sum.
		if fin[0] && fin[1] {
			num := centred(n, &sums[1], &sums[0], &sums[0])
			switch {
			case num.Float() == 0:
				v = 1
			case fin[2] && fin[3]:
				den := centred(n, &sums[3], &sums[2], &sums[2])
				v = forceFinite(num.Float(), den.Float())
			}
		}
	}
	if !finite(v) {
		return undefined("overflow", n)
	}
	return core.Result{Value: v, Details: map[string]any{"n": n}}
}

// forceFinite is sklearn's force_finite rule for 1 − num/den: a zero numerator (perfect
// predictions) gives 1.0 even for a constant label, a zero denominator otherwise 0.0.
// An overflowed part gives NaN, reported as overflow.
func forceFinite(num, den float64) float64 {
	switch {
	case !finite(num, den):
		return math.NaN()
	case num == 0:
		return 1
	case den == 0:
		return 0
	}
	return 1 - num/den
}
