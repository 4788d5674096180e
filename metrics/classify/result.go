package classify

import (
	"math"
	"math/big"

	"github.com/evalstream/evalstream/metrics/core"
)

// Result computes the metric value from the counts. It does not change the state.
func (s *State) Result() core.Result {
	switch s.m.kind {
	case kAccuracy:
		return s.accuracy()
	case kConfusion:
		return s.confusion()
	case kMCC:
		return s.mcc()
	}
	return s.prf()
}

func (s *State) noRecords() core.Result {
	return core.Undefined("no records", map[string]any{"records": int64(0)})
}

func (s *State) accuracy() core.Result {
	if s.total == 0 {
		return s.noRecords()
	}
	return core.Result{
		Value:   float64(s.correct) / float64(s.total),
		Details: map[string]any{"correct": s.correct, "records": s.total},
	}
}

func (s *State) confusion() core.Result {
	n := s.m.numClasses
	rows := make([][]float64, n)
	for t := range rows {
		rows[t] = make([]float64, n)
	}
	s.mat.each(func(t, p int, c int64) {
		if t < n && p < n {
			rows[t][p] = float64(c)
		}
	})
	return core.Result{Value: rows, Details: map[string]any{"records": s.total}}
}

// prf computes precision, recall or F-beta per class, or averaged.
func (s *State) prf() core.Result {
	if s.total == 0 {
		return s.noRecords()
	}
	m := s.m
	size := s.mat.n
	if m.numClasses > 0 {
		size = m.numClasses
	}
	tp, pred, tru := s.mat.sums(size)
	// MindNLP reports every class 0..C-1; sklearn the sorted union of the labels present in
	// either column unless the label set is given (num_classes).
	var classes []int64
	for k := 0; k < size; k++ {
		if m.compat == "mindnlp" || m.numClasses > 0 || tru[k] > 0 || pred[k] > 0 {
			classes = append(classes, int64(k))
		}
	}
	per := make([]float64, len(classes))
	support := make([]int64, len(classes))
	var sumTP, sumPred, sumTrue int64
	for i, k := range classes {
		per[i] = m.score(tp[k], pred[k], tru[k])
		support[i] = tru[k]
		sumTP += tp[k]
		sumPred += pred[k]
		sumTrue += tru[k]
	}
	details := map[string]any{"classes": classes, "support": support, "records": s.total}
	switch m.average {
	case avgNone:
		return core.Result{Value: per, Details: details}
	case avgMicro:
		return core.Result{Value: m.score(sumTP, sumPred, sumTrue), Details: details}
	case avgWeighted:
		if sumTrue > 0 {
			var acc core.Sum
			for i, v := range per {
				acc.AddWeighted(v, support[i])
			}
			return core.Result{Value: acc.Float() / float64(sumTrue), Details: details}
		}
		// sklearn ignores all-zero weights and takes the plain mean.
	}
	var acc core.Sum
	for _, v := range per {
		acc.Add(v)
	}
	return core.Result{Value: acc.Float() / float64(len(per)), Details: details}
}

// score is the metric's ratio for one class (or for micro sums). A zero denominator gives
// zero_division (always 0 for mindnlp, whose ε-guarded division gives 0 there).
func (m *Metric) score(tp, pred, tru int64) float64 {
	div := func(a, b float64) float64 {
		if b == 0 {
			return m.zeroDiv
		}
		return a / b
	}
	ftp, fpred, ftrue := float64(tp), float64(pred), float64(tru)
	switch m.kind {
	case kPrecision:
		return div(ftp, fpred)
	case kRecall:
		return div(ftp, ftrue)
	}
	switch {
	case math.IsInf(m.beta, 1):
		return div(ftp, ftrue)
	case m.beta == 0:
		return div(ftp, fpred)
	}
	b2 := m.beta * m.beta
	return div((1+b2)*ftp, b2*ftrue+fpred)
}

// mcc computes the Matthews correlation with exact integer arithmetic, rounding only the
// final operands, as the reference implementations do for counts below 2^26.
func (s *State) mcc() core.Result {
	if s.total == 0 {
		return s.noRecords()
	}
	if s.m.compat == "mindnlp" {
		return s.mccMindNLP()
	}
	tp, pred, tru := s.mat.sums(s.mat.n)
	var c, sumTP, sumPP, sumTT big.Int
	var x, y big.Int
	for k := range tp {
		c.Add(&c, big.NewInt(tp[k]))
		sumTP.Add(&sumTP, x.Mul(big.NewInt(tru[k]), big.NewInt(pred[k])))
		sumPP.Add(&sumPP, y.Mul(big.NewInt(pred[k]), big.NewInt(pred[k])))
		sumTT.Add(&sumTT, x.Mul(big.NewInt(tru[k]), big.NewInt(tru[k])))
	}
	n := big.NewInt(s.total)
	var n2, covTP, covPP, covTT big.Int
	n2.Mul(n, n)
	covTP.Sub(x.Mul(&c, n), &sumTP)
	covPP.Sub(&n2, &sumPP)
	covTT.Sub(&n2, &sumTT)
	details := map[string]any{"records": s.total}
	var prod big.Int
	prod.Mul(&covPP, &covTT)
	if prod.Sign() == 0 {
		return core.Result{Value: 0.0, Details: details}
	}
	r := bigFloat(&covTP) / math.Sqrt(bigFloat(&prod))
	return core.Result{Value: clip(r), Details: details}
}

// mccMindNLP reproduces MindNLP's binary MCC: class 1 is positive, TN counts any correct
// non-1 prediction, and the value is 0.0 whenever TP, FP, TN or FN is 0.
func (s *State) mccMindNLP() core.Result {
	var tp, fp, tn, fn int64
	s.mat.each(func(t, p int, c int64) {
		switch {
		case p == 1 && t == 1:
			tp += c
		case p == 1:
			fp += c
		case t == p:
			tn += c
		default:
			fn += c
		}
	})
	details := map[string]any{"tp": tp, "fp": fp, "tn": tn, "fn": fn, "records": s.total}
	if tp == 0 || fp == 0 || tn == 0 || fn == 0 {
		return core.Result{Value: 0.0, Details: details}
	}
	var a, b, num, den big.Int
	num.Sub(a.Mul(big.NewInt(tp), big.NewInt(tn)), b.Mul(big.NewInt(fp), big.NewInt(fn)))
	den.Mul(big.NewInt(tp+fp), big.NewInt(tp+fn))
	den.Mul(&den, big.NewInt(tn+fp))
	den.Mul(&den, big.NewInt(tn+fn))
	r := bigFloat(&num) / math.Sqrt(bigFloat(&den))
	return core.Result{Value: r, Details: details}
}

// bigFloat rounds an integer to the nearest float64 (ties to even), as Python's int→float.
func bigFloat(x *big.Int) float64 {
	f, _ := new(big.Float).SetInt(x).Float64()
	return f
}

func clip(r float64) float64 {
	return max(-1, min(1, r))
}
