package core

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// exact computes the correctly rounded sum with big.Float as the reference.
func exact(xs []float64) float64 {
	acc := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetPrec(4096).SetFloat64(x))
	}
	f, _ := acc.Float64()
	return f
}

func TestSumExactAndOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := [][]float64{
		{},
		{1e100, 1, -1e100},
		{0.1, 0.2, 0.3},
		{1, 1e-16, 1e-16},
		{1e308, -1e308, 1e-308},
	}
	for i := 0; i < 200; i++ {
		n := rng.Intn(60)
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.Intn(40)-20))
		}
		cases = append(cases, xs)
	}
	for _, xs := range cases {
		want := exact(xs)
		var a Sum
		for _, x := range xs {
			a.Add(x)
		}
		require.Equal(t, math.Float64bits(want), math.Float64bits(a.Float()), "%v", xs)
		// Shuffled, split in two and merged: the same bits.
		perm := rng.Perm(len(xs))
		var l, r Sum
		for k, p := range perm {
			if k%3 == 0 {
				l.Add(xs[p])
			} else {
				r.Add(xs[p])
			}
		}
		r.Merge(&l)
		require.Equal(t, math.Float64bits(want), math.Float64bits(r.Float()))
		// Round trip through the codec.
		var e Encoder
		e.Sum(&r)
		d := NewDecoder(e.B)
		back := d.Sum()
		require.NoError(t, d.Finish())
		require.Equal(t, math.Float64bits(want), math.Float64bits(back.Float()))
	}
}

func TestSumProductsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 200; i++ {
		x, y := rng.NormFloat64()*1e9, rng.NormFloat64()
		var s Sum
		s.AddProduct(x, y)
		s.AddProduct(-x, y)
		require.Equal(t, 0.0, s.Float())
		var w Sum
		w.AddWeighted(x, 3)
		var r Sum
		for k := 0; k < 3; k++ {
			r.Add(x)
		}
		require.Equal(t, r.Float(), w.Float())
	}
	a, b := Sum{}, Sum{}
	a.Add(1e16)
	a.Add(1)
	b.Add(3)
	p := MulSum(&a, &b)
	require.Equal(t, 3e16+3, p.Float())
}

func TestSumNonFinite(t *testing.T) {
	var s Sum
	s.Add(1)
	s.Add(math.Inf(1))
	require.True(t, math.IsInf(s.Float(), 1))
	s.Add(math.Inf(-1))
	require.True(t, math.IsNaN(s.Float()))
}

func TestDecoderNeverPanics(t *testing.T) {
	for _, b := range [][]byte{nil, {0xff}, {0x05, 1, 2}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		d := NewDecoder(b)
		_ = d.String()
		_ = d.Float64s()
		_ = d.Sum()
		require.Error(t, d.Finish())
	}
}

func FuzzDecodeSum(f *testing.F) {
	var e Encoder
	var s Sum
	s.Add(1.5)
	s.Add(1e-30)
	e.Sum(&s)
	f.Add(e.B)
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(b)
		x := d.Sum()
		_ = x.Float()
	})
}

// TestSumBytesOrderIndependent: a Sum's partials depend on the order of its additions, its
// encoding does not: the same values added in any order, or split and merged, write the same
// bytes, which decode to a sum of the same value that writes them again; the terms are the
// exact value (checked with big.Float) in increasing magnitude.
func TestSumBytesOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	cases := [][]float64{
		{},
		{1, -1},
		{1e100, 1, -1e100, 1e-100},
		{0.1, 0.2, 0.3, -0.6},
		{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64},
		{1, 0x1p-53, 0x1p-53}, // a tie rounded to even, then what is left
	}
	for i := 0; i < 300; i++ {
		xs := make([]float64, rng.Intn(80))
		for j := range xs {
			xs[j] = (rng.Float64() - 0.5) * math.Pow(2, float64(rng.Intn(400)-200))
		}
		cases = append(cases, xs)
	}
	encode := func(s *Sum) []byte {
		var e Encoder
		e.Sum(s)
		return e.B
	}
	for _, xs := range cases {
		var inOrder Sum
		for _, x := range xs {
			inOrder.Add(x)
		}
		want := encode(&inOrder)
		for range 3 {
			var l, r Sum
			for k, p := range rng.Perm(len(xs)) {
				if k%2 == 0 {
					l.Add(xs[p])
				} else {
					r.Add(xs[p])
				}
			}
			r.Merge(&l)
			require.Equal(t, want, encode(&r), "%v", xs)
		}
		d := NewDecoder(want)
		back := d.Sum()
		require.NoError(t, d.Finish())
		require.Equal(t, want, encode(&back))
		terms := inOrder.canonicalTerms()
		for k := 1; k < len(terms); k++ {
			require.Less(t, math.Abs(terms[k-1]), math.Abs(terms[k]))
		}
		total, ref := new(big.Float).SetPrec(4096), new(big.Float).SetPrec(4096)
		for _, x := range terms {
			total.Add(total, new(big.Float).SetPrec(4096).SetFloat64(x))
		}
		for _, x := range xs {
			ref.Add(ref, new(big.Float).SetPrec(4096).SetFloat64(x))
		}
		require.Zero(t, total.Cmp(ref), "%v", xs)
	}
}
