// Package regress implements the regression and language-model metrics: Pearson and Spearman
// correlation and perplexity, with presets reproducing SciPy, MindNLP and pytorch-ignite (see
// /work/shared/spec/metrics.md §7–§9). Every float sum in a state is an exact core.Sum, so a
// result is bit-identical however the records were split, merged or ordered.
//
// Metrics are immutable and safe for concurrent use; states are not.
package regress

import (
	"fmt"
	"math"

	"github.com/evalstream/evalstream/metrics/core"
)

var numberRoles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.Int, core.Float}},
	{Name: "label", Field: "label", Required: true, Accepts: []core.Kind{core.Int, core.Float}},
}

func value(ex *core.Example, i int) *core.Value {
	if i < len(ex.Values) {
		return &ex.Values[i]
	}
	return &core.Value{Kind: core.Missing}
}

// number reads a finite float from an Int or a Float, optionally rounded to float32 first.
func number(v *core.Value, field string, f32 bool) (float64, error) {
	var x float64
	switch v.Kind {
	case core.Missing, core.Null:
		return 0, core.Reject("missing field", field, "need a number")
	case core.Int:
		x = float64(v.Int)
	case core.Float:
		x = v.Float
	default:
		return 0, core.Reject("wrong type", field, "need a number, got %s", v.Kind)
	}
	if f32 {
		x = float64(float32(x))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		if f32 && !math.IsNaN(v.Float) && !math.IsInf(v.Float, 0) {
			return 0, core.Reject("non-finite value", field, "%v overflows float32", v.Float)
		}
		return 0, core.Reject("non-finite value", field, "%v", x)
	}
	return x, nil
}

// pair reads the prediction and the label of a record.
func pair(ex *core.Example, f32 bool) (x, y float64, err error) {
	if x, err = number(value(ex, 0), "prediction", f32); err != nil {
		return 0, 0, err
	}
	if y, err = number(value(ex, 1), "label", f32); err != nil {
		return 0, 0, err
	}
	return x, y, nil
}

// moments are exact weighted sums of x, y, x², y² and xy.
type moments struct {
	n                     int64
	sx, sy, sxx, syy, sxy acc
}

func (m *moments) add(x, y float64, w int64) {
	m.n += w
	m.sx.addWeighted(x, w)
	m.sy.addWeighted(y, w)
	m.sxx.addProduct3(x, x, w)
	m.syy.addProduct3(y, y, w)
	m.sxy.addProduct3(x, y, w)
}

func (m *moments) merge(o *moments) {
	m.n += o.n
	for i, a := range m.accs() {
		a.merge(o.accs()[i])
	}
}

func (m *moments) accs() [5]*acc { return [5]*acc{&m.sx, &m.sy, &m.sxx, &m.syy, &m.sxy} }

func (m *moments) encode(e *core.Encoder) {
	e.Varint(m.n)
	for _, a := range m.accs() {
		s := a.sum()
		e.Sum(&s)
	}
}

func (m *moments) decode(d *core.Decoder) {
	m.n = d.Varint()
	for _, a := range m.accs() {
		s := d.Sum()
		a.fromSum(&s)
	}
}

// exact is the moments as exact core.Sums, for the final computations.
type exact struct {
	n                     int64
	sx, sy, sxx, syy, sxy core.Sum
}

func (m *moments) exact() exact {
	return exact{n: m.n, sx: m.sx.sum(), sy: m.sy.sum(), sxx: m.sxx.sum(), syy: m.syy.sum(), sxy: m.sxy.sum()}
}

func (x *exact) finite() bool {
	for _, s := range []*core.Sum{&x.sx, &x.sy, &x.sxx, &x.syy, &x.sxy} {
		if f := s.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// centred returns n·sab − sa·sb exactly: n² times the centred co-moment Σ(a−ā)(b−b̄).
func centred(n int64, sab, sa, sb *core.Sum) core.Sum {
	out := core.ScaleSum(sab, float64(n))
	p := core.MulSum(sa, sb)
	neg := core.ScaleSum(&p, -1)
	out.Merge(&neg)
	return out
}

// comoments returns n² times the centred sums of squares and products, each as an exact sum.
func (x *exact) comoments() (dxx, dyy, dxy core.Sum) {
	return centred(x.n, &x.sxx, &x.sx, &x.sx), centred(x.n, &x.syy, &x.sy, &x.sy), centred(x.n, &x.sxy, &x.sx, &x.sy)
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func clip(r float64) float64 { return max(-1, min(1, r)) }

func undefined(reason string, n int64) core.Result {
	return core.Undefined(reason, map[string]any{"n": n})
}

func incompatible(got, want string) error {
	return fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, got, want)
}

func corrupt(what string) error {
	return fmt.Errorf("%w: %s", core.ErrCorruptState, what)
}
