package classify

import (
	"math"
	"math/big"
	"strconv"

	"github.com/evalstream/evalstream/metrics/core"
)

// Result computes the metric value from the counts. It does not change the state.
func (s *State) Result() core.Result {
	if s.m.byName {
		if r, ok := s.namedResult(); ok {
			return r
		}
	}
	switch s.m.kind {
	case kAccuracy:
		return s.accuracy()
	case kConfusion:
		return s.confusion()
	case kMCC:
		return s.mcc()
	case kKappa:
		return s.kappa()
	case kBalanced:
		return s.balanced()
	case kReport:
		return s.report()
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
	if n == 0 {
		n = s.mat.n
	}
	rows := make([][]float64, n)
	for t := range rows {
		rows[t] = make([]float64, n)
	}
	s.mat.each(func(t, p int, c int64) {
		if t < n && p < n {
			rows[t][p] = float64(c)
		}
	})
	details := map[string]any{"records": s.total}
	if s.m.names != nil {
		details["classes"] = s.m.names
	}
	return core.Result{Value: rows, Details: details}
}

// classLabels returns the classes' names when the classes option names them, else the ids.
func (m *Metric) classLabels(ids []int64) any {
	if m.names == nil {
		return ids
	}
	out := make([]string, len(ids))
	for i, k := range ids {
		out[i] = m.names[k]
	}
	return out
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
	details := map[string]any{"classes": m.classLabels(classes), "support": support, "records": s.total}
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

// kappa computes sklearn's cohen_kappa_score 1 − Σw·C / Σw·E, E = outer(row sums, column
// sums)/n, over the sorted classes seen in either column; a linear or quadratic weight is
// |i − j| or (i − j)² for the positions i, j of the classes in that list (not their ids).
// Both weighted sums are exact integers (n·Σw·E is), so only the final ratio is rounded.
func (s *State) kappa() core.Result {
	if s.total == 0 {
		return s.noRecords()
	}
	_, pred, tru := s.mat.sums(s.mat.n)
	pos := make([]int64, s.mat.n) // position among the classes seen, -1 if unseen
	var classes []int64
	for k := range pos {
		pos[k] = -1
		if tru[k] > 0 || pred[k] > 0 {
			pos[k] = int64(len(classes))
			classes = append(classes, int64(k))
		}
	}
	weight := func(i, j int64) int64 {
		d := i - j
		switch s.m.weights {
		case weightsLinear:
			return max(d, -d)
		case weightsQuadratic:
			return d * d // positions < 2^20, so d² < 2^40
		}
		return b2i(d != 0)
	}
	// observed = Σ w(i, j)·C[i][j]
	var observed, x big.Int
	s.mat.each(func(t, p int, c int64) {
		if w := weight(pos[t], pos[p]); w != 0 {
			observed.Add(&observed, x.Mul(big.NewInt(w), big.NewInt(c)))
		}
	})
	// expected·n = Σ_i Σ_j w(i, j)·r_i·c_j, in O(classes) with the moments of the column sums:
	// Σ_j |i−j|·c_j splits at i; Σ_j (i−j)²·c_j = i²·Σc − 2i·Σj·c + Σj²·c.
	var expected big.Int
	r := make([]int64, len(classes))
	c := make([]int64, len(classes))
	for i, k := range classes {
		r[i], c[i] = tru[k], pred[k]
	}
	n := big.NewInt(s.total)
	switch s.m.weights {
	case weightsNone:
		// n² − Σ r_i·c_i
		expected.Mul(n, n)
		for i := range r {
			expected.Sub(&expected, x.Mul(big.NewInt(r[i]), big.NewInt(c[i])))
		}
	case weightsLinear:
		// Σ_i r_i·(i·C< − S< + S> − i·C>), with C, S the counts and position-weighted counts
		// of columns before (<) and after (>) position i.
		var cTot, sTot big.Int
		for j := range c {
			cTot.Add(&cTot, big.NewInt(c[j]))
			sTot.Add(&sTot, x.Mul(big.NewInt(int64(j)), big.NewInt(c[j])))
		}
		var cLo, sLo, cHi, sHi, term, y big.Int
		for i := range r {
			cHi.Sub(&cTot, &cLo)
			cHi.Sub(&cHi, big.NewInt(c[i]))
			sHi.Sub(&sTot, &sLo)
			sHi.Sub(&sHi, y.Mul(big.NewInt(int64(i)), big.NewInt(c[i])))
			bi := big.NewInt(int64(i))
			term.Mul(bi, &cLo)
			term.Sub(&term, &sLo)
			term.Add(&term, &sHi)
			term.Sub(&term, y.Mul(bi, &cHi))
			expected.Add(&expected, x.Mul(big.NewInt(r[i]), &term))
			cLo.Add(&cLo, big.NewInt(c[i]))
			sLo.Add(&sLo, y.Mul(bi, big.NewInt(c[i])))
		}
	case weightsQuadratic:
		var m0, m1, m2, term, y big.Int
		for j := range c {
			bj := big.NewInt(int64(j))
			m0.Add(&m0, big.NewInt(c[j]))
			m1.Add(&m1, x.Mul(bj, big.NewInt(c[j])))
			m2.Add(&m2, x.Mul(x.Mul(bj, bj), big.NewInt(c[j])))
		}
		for i := range r {
			bi := big.NewInt(int64(i))
			term.Mul(y.Mul(bi, bi), &m0)
			term.Sub(&term, y.Mul(y.Lsh(bi, 1), &m1))
			term.Add(&term, &m2)
			expected.Add(&expected, x.Mul(big.NewInt(r[i]), &term))
		}
	}
	details := map[string]any{"classes": s.m.classLabels(classes), "records": s.total}
	if expected.Sign() == 0 {
		// Only when both columns hold one and the same class: sklearn warns and returns NaN.
		return core.Undefined("only one class", details)
	}
	var k big.Rat
	k.SetFrac(x.Mul(&observed, n), &expected)
	kf, _ := k.Float64()
	return core.Result{Value: 1 - kf, Details: details}
}

// balanced computes sklearn's balanced_accuracy_score: the mean recall over the classes
// present in the label (a class only ever predicted is left out, as sklearn does with a
// warning); adjusted rescales it so that chance scores 0.
func (s *State) balanced() core.Result {
	if s.total == 0 {
		return s.noRecords()
	}
	tp, _, tru := s.mat.sums(s.mat.n)
	var classes []int64
	var sum core.Sum
	for k := range tru {
		if tru[k] > 0 {
			classes = append(classes, int64(k))
			sum.Add(float64(tp[k]) / float64(tru[k]))
		}
	}
	details := map[string]any{"classes": s.m.classLabels(classes), "records": s.total}
	score := sum.Float() / float64(len(classes))
	if s.m.adjusted {
		if len(classes) == 1 {
			// sklearn divides by 1 − 1/1 = 0 and returns NaN or -inf.
			return core.Undefined("adjusted with a single true class", details)
		}
		chance := 1 / float64(len(classes))
		score -= chance
		score /= 1 - chance
	}
	return core.Result{Value: score, Details: details}
}

// report computes sklearn's classification_report(output_dict=True) over the sorted classes
// seen in either field, or over every named class in the classes option's order (sklearn's
// labels=): per class (keyed by its id as a string, or its name) precision, recall, f1-score
// and support; "accuracy" (sklearn's micro average, which equals accuracy when every class
// seen is reported); "macro avg" and "weighted avg" of the per-class values, with the total
// support. Averages are exact sums rounded once.
func (s *State) report() core.Result {
	if s.total == 0 {
		return s.noRecords()
	}
	m := s.m
	size := s.mat.n
	if m.names != nil {
		size = len(m.names)
	}
	tp, pred, tru := s.mat.sums(size)
	div := func(a, b int64) float64 {
		if b == 0 {
			return m.zeroDiv
		}
		return float64(a) / float64(b)
	}
	rep := map[string]any{}
	var classes []int64
	var sumTP, sumPred, sumTrue int64
	var mean, weighted [3]core.Sum
	for k := range tp {
		if m.names == nil && tru[k] == 0 && pred[k] == 0 {
			continue
		}
		classes = append(classes, int64(k))
		v := [3]float64{div(tp[k], pred[k]), div(tp[k], tru[k]), div(2*tp[k], tru[k]+pred[k])}
		key := strconv.Itoa(k)
		if m.names != nil {
			key = m.names[k]
		}
		rep[key] = reportRow(v, tru[k])
		for i, x := range v {
			mean[i].Add(x)
			weighted[i].AddWeighted(x, tru[k])
		}
		sumTP += tp[k]
		sumPred += pred[k]
		sumTrue += tru[k]
	}
	var macro, wavg [3]float64
	for i := range macro {
		macro[i] = mean[i].Float() / float64(len(classes))
		// Every record has a true class, so the weights never all vanish.
		wavg[i] = weighted[i].Float() / float64(sumTrue)
	}
	rep["accuracy"] = div(sumTP, sumPred)
	rep["macro avg"] = reportRow(macro, sumTrue)
	rep["weighted avg"] = reportRow(wavg, sumTrue)
	return core.Result{Value: rep, Details: map[string]any{"classes": m.classLabels(classes), "records": s.total}}
}

func reportRow(v [3]float64, support int64) map[string]any {
	return map[string]any{"precision": v[0], "recall": v[1], "f1-score": v[2], "support": support}
}
