package regress

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

var errTypes = []string{"mse", "rmse", "mae", "mape", "r2", "explained_variance"}

// Where sklearn's rounding decides between its force_finite branches we follow the exact
// values; the comments give sklearn 1.9.1's own answers.
func TestErrorsEdges(t *testing.T) {
	cases := []struct {
		name   string
		typ    string
		preds  []any
		labels []any
		want   any
		reason string
	}{
		{"no records", "mse", nil, nil, nil, "no records"},
		{"no records r2", "r2", nil, nil, nil, "no records"},
		{"one record r2", "r2", anys(2.0), anys(3.0), nil, "fewer than 2 records"},
		{"one record explained_variance", "explained_variance", anys(2.0), anys(3.0), 1.0, ""},
		{"one record mse", "mse", anys(2.0), anys(3.5), 2.25, ""},
		// numpy's mean of three 0.1 is 0.10000000000000002, so sklearn sees a non-constant
		// label: r2 -5.192296858534829e+31 and explained_variance 0.0.
		{"constant 0.1 r2", "r2", anys(0.2, 0.2, 0.2), anys(0.1, 0.1, 0.1), 0.0, ""},
		{"constant 0.1 explained_variance offset", "explained_variance", anys(0.2, 0.2, 0.2), anys(0.1, 0.1, 0.1), 1.0, ""},
		{"constant 0.1 r2 perfect", "r2", anys(0.1, 0.1, 0.1), anys(0.1, 0.1, 0.1), 1.0, ""},
		// sklearn: r2_score([1e200, 2e200], [1e200, 2e200]) = 1.0 (overflowing denominator)
		{"huge perfect r2", "r2", anys(1e200, 2e200), anys(1e200, 2e200), 1.0, ""},
		{"huge mse overflows", "mse", anys(1e200, -1e200), anys(-1e200, 1e200), nil, "overflow"},
		{"difference overflows", "mae", anys(1.5e308), anys(-1.5e308), nil, "overflow"},
		{"huge r2 overflows", "r2", anys(1e200, 2e200), anys(2e200, 1e200), nil, "overflow"},
		{"mape zero label", "mape", anys(0.5, 1.0), anys(0.0, 1.0), 1125899906842624.0, ""},
		{"mape huge quotient overflows", "mape", anys(1e300), anys(0.0), nil, "overflow"},
		{"ints", "mae", anys(1, 5), anys(2, 2), 2.0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, c.typ, nil)
			res := fold(t, m, c.preds, c.labels)
			require.Equal(t, c.want, res.Value)
			require.Equal(t, c.reason, res.Reason)
			if c.reason != "" {
				require.Equal(t, c.reason, res.Details["reason"])
			}
			var exs []core.Example
			for i := range c.preds {
				exs = append(exs, *ex(c.preds[i], c.labels[i]))
			}
			goldentest.CheckLaws(t, m, exs)
		})
	}
}

// The sums are exact: mse, mae, r2 and explained_variance of values at 1e15 with sub-ulp
// differences equal the exactly rounded rational value, in any record order.
func TestErrorsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	n := 500
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		ys[i] = 1e15*float64(1-2*rng.Intn(2)) + rng.Float64()
		xs[i] = ys[i] + rng.NormFloat64()*1e-3
		if i%7 == 0 {
			ys[i], xs[i] = rng.NormFloat64()*1e-9, rng.NormFloat64()*1e-9
		}
	}
	rat := func(f float64) *big.Rat { return new(big.Rat).SetFloat64(f) }
	sse, sae, sd, sy, syy := new(big.Rat), new(big.Rat), new(big.Rat), new(big.Rat), new(big.Rat)
	for i := range xs {
		d := new(big.Rat).Sub(rat(ys[i]), rat(xs[i]))
		sd.Add(sd, d)
		sse.Add(sse, new(big.Rat).Mul(d, d))
		sae.Add(sae, new(big.Rat).Abs(d))
		sy.Add(sy, rat(ys[i]))
		syy.Add(syy, new(big.Rat).Mul(rat(ys[i]), rat(ys[i])))
	}
	nr := new(big.Rat).SetInt64(int64(n))
	f := func(r *big.Rat) float64 { v, _ := r.Float64(); return v }
	// n·Σa² − (Σa)², as the state computes them
	centredR := func(saa, sa *big.Rat) *big.Rat {
		return new(big.Rat).Sub(new(big.Rat).Mul(nr, saa), new(big.Rat).Mul(sa, sa))
	}
	sdd := sse
	want := map[string]float64{
		"mse":                f(sse) / float64(n),
		"rmse":               math.Sqrt(f(sse) / float64(n)),
		"mae":                f(sae) / float64(n),
		"r2":                 1 - f(new(big.Rat).Mul(nr, sse))/f(centredR(syy, sy)),
		"explained_variance": 1 - f(centredR(sdd, sd))/f(centredR(syy, sy)),
	}
	for typ, w := range want {
		m := build(t, typ, nil)
		for _, perm := range [][]int{identity(n), rng.Perm(n)} {
			s := m.NewState()
			for _, i := range perm {
				s.Add(ex(xs[i], ys[i]), 1)
			}
			require.Equal(t, w, s.Result().Value, typ)
		}
	}
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestErrorsOptions(t *testing.T) {
	for _, typ := range errTypes {
		o := core.NewOptions(map[string]any{"multioutput": "raw_values"})
		_, err := ctor(typ, o)
		require.NoError(t, err)
		require.ErrorContains(t, o.Err(), "multioutput: does not apply", typ)
		o = core.NewOptions(map[string]any{"compat": "scipy"})
		_, _ = ctor(typ, o)
		require.ErrorContains(t, o.Err(), "compat: must be one of sklearn", typ)
		m := build(t, typ, map[string]any{"compat": "sklearn"})
		require.Contains(t, m.Signature(), "type:"+typ+"|")
		other := build(t, errTypes[(indexOf(typ)+1)%len(errTypes)], nil)
		require.ErrorIs(t, m.NewState().Merge(other.NewState()), core.ErrIncompatible)
		st := other.NewState()
		b, err := st.MarshalBinary()
		require.NoError(t, err)
		_, err = m.DecodeState(b)
		require.Error(t, err, "a state of another type must not decode")
	}
}

func indexOf(typ string) int {
	for i, t := range errTypes {
		if t == typ {
			return i
		}
	}
	return -1
}
