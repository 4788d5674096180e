package bleu

import (
	"math"
	"math/big"
)

// The reference libraries compute BLEU with C's log and exp (glibc), which are correctly
// rounded in all but very rare cases; Go's math.Log and math.Exp are only faithful (an error
// below 1 ulp), and differ from glibc for about 4% (Log) and 13% (Exp) of random inputs. To
// reproduce the libraries' values to the last bit, log and exp here evaluate in double-double
// arithmetic (about 100 bits) and round once, which is correctly rounded except for inputs
// within ~2^-45 ulp of a rounding boundary.

// dd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func ddMulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return quickTwoSum(p.hi, p.lo)
}

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddMulF(b, -q1))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddMulF(b, -q2))
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return ddAdd(q, dd{q3, 0})
}

// Tables, built once with math/big at 256 bits.
const (
	logTabMin = -38 // log table: log(1 + j/128) for j in [logTabMin, logTabMax]
	logTabMax = 54
)

// The tables (pytables.go): logTab[j-logTabMin] = log(1 + j/128), exp2Tab[j] = 2^(j/128),
// ln2 = ln 2, ln2by = ln(2)/128, all as double-doubles.
type pyTables struct {
	logTab  [logTabMax - logTabMin + 1]dd
	exp2Tab [128]dd
	ln2     dd
	ln2by   dd
}

const bigPrec = 256

func bigDD(x *big.Float) dd {
	hi, _ := x.Float64()
	r := new(big.Float).SetPrec(bigPrec).Sub(x, new(big.Float).SetFloat64(hi))
	lo, _ := r.Float64()
	return dd{hi, lo}
}

// bigLog is log(x) for x in [0.5, 2] by the atanh series, at bigPrec bits.
func bigLog(x *big.Float) *big.Float {
	one := big.NewFloat(1).SetPrec(bigPrec)
	num := new(big.Float).SetPrec(bigPrec).Sub(x, one)
	den := new(big.Float).SetPrec(bigPrec).Add(x, one)
	s := new(big.Float).SetPrec(bigPrec).Quo(num, den)
	s2 := new(big.Float).SetPrec(bigPrec).Mul(s, s)
	sum := new(big.Float).SetPrec(bigPrec)
	pow := new(big.Float).SetPrec(bigPrec).Set(s)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -bigPrec-8)
	for k := int64(1); ; k += 2 {
		term := new(big.Float).SetPrec(bigPrec).Quo(pow, new(big.Float).SetInt64(k))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
		pow.Mul(pow, s2)
	}
	return sum.Mul(sum, big.NewFloat(2))
}

// computeTables computes the tables with math/big; pytables.go holds its output, so that no
// process pays for it at run time.
func computeTables() (t pyTables) {
	two := big.NewFloat(2).SetPrec(bigPrec)
	l2 := bigLog(two)
	t.ln2 = bigDD(l2)
	t.ln2by = bigDD(new(big.Float).SetPrec(bigPrec).Quo(l2, big.NewFloat(128)))
	for j := logTabMin; j <= logTabMax; j++ {
		c := new(big.Float).SetPrec(bigPrec).SetFloat64(1 + float64(j)/128)
		t.logTab[j-logTabMin] = bigDD(bigLog(c))
	}
	// roots[i] = 2^(2^-(i+1)), by repeated square roots.
	var roots [7]*big.Float
	r := new(big.Float).SetPrec(bigPrec).Set(two)
	for i := range roots {
		r = new(big.Float).SetPrec(bigPrec).Sqrt(r)
		roots[i] = r
	}
	for j := 0; j < 128; j++ {
		v := big.NewFloat(1).SetPrec(bigPrec)
		for i := 0; i < 7; i++ {
			if j&(1<<(6-i)) != 0 {
				v.Mul(v, roots[i])
			}
		}
		t.exp2Tab[j] = bigDD(v)
	}
	return t
}

var third = dd{1.0 / 3, 1.850371707708594e-17} // 1/3 as a double-double

// pyLog is C's log(x) (correctly rounded).
func pyLog(x float64) float64 {
	if !(x >= 0x1p-1022 && x < math.Inf(1)) {
		return slowLog(x)
	}
	// Fast path: log1p of the reduced argument by its Taylor series, the first two terms in
	// double-double; return when the error bound cannot change the rounding (Ziv's test).
	b := math.Float64bits(x)
	e := int(b>>52) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	if m > math.Sqrt2 {
		m /= 2
		e++
	}
	j := int(math.Round((m - 1) * 128))
	c := 1 + float64(j)/128
	d := m - c // exact
	rh := d / c
	rl := math.FMA(-rh, c, d) / c
	sq := twoProd(rh, rh)
	half := quickTwoSum(-sq.hi*0.5, -sq.lo*0.5-rh*rl) // -r²/2
	// r³/3 - r⁴/4 + ... - r^12/12, |r| < 2^-7.5.
	t := rh * sq.hi * (1.0/3 - rh*(0.25-rh*(0.2-rh*(1.0/6-rh*(1.0/7-rh*(0.125-rh*(1.0/9-rh*(0.1-rh*(1.0/11-rh/12)))))))))
	l := ddAdd(quickTwoSum(rh, rl), half)
	l = ddAdd(l, dd{t, 0})
	if j != 0 {
		l = ddAdd(logTab[j-logTabMin], l)
	}
	if e != 0 {
		l = ddAdd(ddMulF(ln2, float64(e)), l)
	}
	eb := math.Abs(t)*0x1p-48 + math.Abs(l.hi)*0x1p-98
	if lo, hi := l.hi+(l.lo-eb), l.hi+(l.lo+eb); lo == hi {
		return lo
	}
	return slowLog(x)
}

// slowLog evaluates log in double-double throughout (an atanh series), for the rare inputs
// whose rounding the fast path cannot decide, and for subnormal and special inputs.
func slowLog(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	e := 0
	if x < 0x1p-1022 { // subnormal
		x *= 0x1p54
		e -= 54
	}
	b := math.Float64bits(x)
	e += int(b>>52) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m > math.Sqrt2 {
		m /= 2
		e++
	}
	j := int(math.Round((m - 1) * 128))
	c := 1 + float64(j)/128
	d := m - c // exact
	rh := d / c
	r := quickTwoSum(rh, math.FMA(-rh, c, d)/c) // d/c
	s := ddDiv(r, ddAdd(dd{2, 0}, r))           // log1p(r) = 2 atanh(s)
	s2 := ddMul(s, s)
	z := s2.hi
	tail := ((((z/13+1.0/11)*z+1.0/9)*z + 1.0/7) * z) * z * z // Σ_{k>=3} s^2k/(2k+1)
	q := ddAdd(ddMul(s2, ddAdd(third, ddMulF(s2, 0.2))), dd{tail, 0})
	q = ddAdd(dd{1, 0}, q)
	l := ddMulF(ddMul(s, q), 2)
	if j != 0 {
		l = ddAdd(logTab[j-logTabMin], l)
	}
	if e != 0 {
		l = ddAdd(ddMulF(ln2, float64(e)), l)
	}
	return l.hi + l.lo
}

// pyExp is C's exp(x) (correctly rounded for normal results).
func pyExp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 709.782712893384:
		return math.Inf(1)
	case x < -745.1332191019412:
		return 0
	case x == 0:
		return 1
	}
	n := math.Round(x / ln2by.hi)
	// r = x - n·ln2/128, |r| <= ln2/256.
	p := twoProd(n, ln2by.hi)
	r := ddAdd(twoSum(x, -p.hi), dd{-p.lo - n*ln2by.lo, 0})
	// exp(r) - 1 = r + r²/2 + r³/6 + ...; the terms from r³ on in float64.
	z := r.hi
	tail := z * z * z * (1.0/6 + z*(1.0/24+z*(1.0/120+z*(1.0/720+z*(1.0/5040+z*(1.0/40320+z/362880))))))
	e := ddAdd(r, ddAdd(ddMulF(ddMul(r, r), 0.5), dd{tail, 0}))
	e = ddAdd(dd{1, 0}, e)
	k := int(n)
	j := k & 127
	y := ddMul(exp2Tab[j], e)
	v := y.hi + y.lo
	return math.Ldexp(v, (k-j)/128)
}
