package rank

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalstream/evalstream/metrics/core"
)

// curve is a binary curve: cumulative true and false positives at each threshold, from
// the highest score down (exact: one point per distinct score with records of either class;
// binned: one point per threshold in ascending threshold order — see binnedCurve).
type curve struct {
	tps, fps []float64
	pos, neg int64
}

// exactCurve builds the curve of column col with positives = label pos and negatives = label
// neg (neg < 0: every other label). Scores with no record of either class are skipped, as
// numpy's masking drops those records.
func exactCurve(col *column, nlab, pos, neg int) curve {
	var cv curve
	var tp, fp int64
	cv.tps = make([]float64, 0, len(col.keys))
	cv.fps = make([]float64, 0, len(col.keys))
	for i := len(col.keys) - 1; i >= 0; i-- {
		r := col.counts[i*nlab : (i+1)*nlab]
		p := r[pos]
		var n int64
		if neg >= 0 {
			n = r[neg]
		} else {
			for j, c := range r {
				if j != pos {
					n += c
				}
			}
		}
		if p == 0 && n == 0 {
			continue
		}
		tp += p
		fp += n
		cv.tps = append(cv.tps, float64(tp))
		cv.fps = append(cv.fps, float64(fp))
	}
	cv.pos, cv.neg = tp, fp
	return cv
}

// binnedCurve builds, for thresholds t_0 < ... < t_{T-1}, tp_k and fp_k = the positives and
// negatives with score >= t_k (k ascending), from bucket counts (bucket j: j thresholds <= s).
func binnedCurve(counts []int64, nlab, T, pos int) curve {
	var cv curve
	cv.tps = make([]float64, T)
	cv.fps = make([]float64, T)
	var tp, fp int64
	for j := T; j >= 1; j-- {
		r := counts[j*nlab : (j+1)*nlab]
		for l, c := range r {
			if l == pos {
				tp += c
			} else {
				fp += c
			}
		}
		cv.tps[j-1] = float64(tp)
		cv.fps[j-1] = float64(fp)
	}
	for l, c := range counts[:nlab] {
		if l == pos {
			tp += c
		} else {
			fp += c
		}
	}
	cv.pos, cv.neg = tp, fp
	return cv
}

// binnedBound bounds |binned AUROC − exact AUROC| for positives pos: Σ_j p_j·n_j / (2·P·N)
// over the bins j, half the share of positive–negative pairs whose scores share a bin.
// Between two thresholds the binned curve is a straight line, which credits every such
// pair ½ where the exact curve credits 0, ½ or 1; the top bin (scores equal to 1.0, all tied)
// is credited 0 because torchmetrics' curve does not start at (0, 0), exactly ½ too little.
// Pairs in different bins are ordered alike by both curves. 0 when a class is missing.
func binnedBound(counts []int64, nlab, pos int) float64 {
	var P, N float64
	var same float64
	for j := 0; j < len(counts)/nlab; j++ {
		var p, n int64
		for l, c := range counts[j*nlab : (j+1)*nlab] {
			if l == pos {
				p += c
			} else {
				n += c
			}
		}
		P += float64(p)
		N += float64(n)
		same += float64(p) * float64(n)
	}
	if P == 0 || N == 0 {
		return 0
	}
	return same / (2 * P * N)
}

// trapezoid is scipy.integrate.trapezoid(y, x): Σ (x[i+1]−x[i])·(y[i+1]+y[i])/2, summed as
// numpy sums. Conversions stop the compiler from fusing multiply-adds numpy rounds apart.
func trapezoid(x, y []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	terms := make([]float64, len(x)-1)
	for i := range terms {
		terms[i] = float64(float64((x[i+1]-x[i])*(y[i+1]+y[i])) / 2.0)
	}
	return pairwiseSum(terms)
}

// interp is numpy.interp(x, [x0, x1], [y0, y1]) for x0 <= x < x1.
func interp(x, x0, x1, y0, y1 float64) float64 {
	if x == x0 {
		return y0
	}
	slope := (y1 - y0) / (x1 - x0)
	r := float64(slope*(x-x0)) + y0
	if math.IsNaN(r) {
		r = float64(slope*(x-x1)) + y1
		if math.IsNaN(r) && y0 == y1 {
			r = y0
		}
	}
	return r
}

// mcclish standardises a partial AUC up to maxFPR: 0.5 for chance, 1 for a perfect ranking.
func mcclish(partial, maxFPR float64) float64 {
	minArea := 0.5 * float64(maxFPR*maxFPR)
	return 0.5 * (1 + (partial-minArea)/(maxFPR-minArea))
}

// partialAUC adds the point at maxFPR (linear interpolation on the curve, fpr ascending)
// and integrates up to it. stop is the number of fpr values <= maxFPR (searchsorted right).
func partialAUC(fpr, tpr []float64, maxFPR float64, lerp func(a, b, w float64) float64) float64 {
	stop := 0
	for stop < len(fpr) && fpr[stop] <= maxFPR {
		stop++
	}
	if stop == 0 || stop >= len(fpr) {
		// Only reachable with maxFPR = 1 (not stored) or a curve not starting at fpr 0.
		return math.NaN()
	}
	var y float64
	if lerp == nil {
		y = interp(maxFPR, fpr[stop-1], fpr[stop], tpr[stop-1], tpr[stop])
	} else {
		w := (maxFPR - fpr[stop-1]) / (fpr[stop] - fpr[stop-1])
		y = lerp(tpr[stop-1], tpr[stop], w)
	}
	x := append(append([]float64(nil), fpr[:stop]...), maxFPR)
	t := append(append([]float64(nil), tpr[:stop]...), y)
	return trapezoid(x, t)
}

// torchLerp is torch.lerp: a + w·(b−a) for |w| < 0.5, else b − (b−a)·(1−w).
func torchLerp(a, b, w float64) float64 {
	if math.Abs(w) < 0.5 {
		return a + float64(w*(b-a))
	}
	return b - float64((b-a)*(1-w))
}

// skAUC is scikit-learn's _binary_roc_auc_score: NaN unless both classes are present; the
// curve is roc_curve's (collinear points dropped, (0, 0) prepended).
func skAUC(cv curve, maxFPR float64) float64 {
	if cv.pos == 0 || cv.neg == 0 {
		return math.NaN()
	}
	// Drop collinear points in place (the curve is ours), then prepend (0, 0) as rates.
	tps, fps := cv.tps, cv.fps
	if n := len(fps); n > 2 {
		k := 1
		for i := 1; i < n-1; i++ {
			if fps[i+1]-2*fps[i]+fps[i-1] != 0 || tps[i+1]-2*tps[i]+tps[i-1] != 0 {
				tps[k], fps[k] = tps[i], fps[i]
				k++
			}
		}
		tps[k], fps[k] = tps[n-1], fps[n-1]
		tps, fps = tps[:k+1], fps[:k+1]
	}
	fpr := make([]float64, len(fps)+1)
	tpr := make([]float64, len(tps)+1)
	P, N := tps[len(tps)-1], fps[len(fps)-1]
	for i := range fps {
		fpr[i+1] = fps[i] / N
		tpr[i+1] = tps[i] / P
	}
	if maxFPR == 0 {
		return trapezoid(fpr, tpr)
	}
	return mcclish(partialAUC(fpr, tpr, maxFPR, nil), maxFPR)
}

// skAP is scikit-learn's average_precision_score of one binary column: the step integral
// −Σ diff(recall)·precision over precision_recall_curve's reversed points, clipped at 0.
func skAP(cv curve) float64 {
	n := len(cv.tps)
	if n == 0 {
		return math.NaN()
	}
	P := cv.tps[n-1]
	prec := make([]float64, n+1)
	rec := make([]float64, n+1)
	for i := 0; i < n; i++ {
		j := n - 1 - i
		prec[i] = cv.tps[j] / (cv.tps[j] + cv.fps[j])
		if P == 0 {
			rec[i] = 1
		} else {
			rec[i] = cv.tps[j] / P
		}
	}
	prec[n], rec[n] = 1, 0
	terms := make([]float64, n)
	for i := range terms {
		terms[i] = float64((rec[i+1] - rec[i]) * prec[i])
	}
	return math.Max(0, -pairwiseSum(terms))
}

// tmAUC is torchmetrics' _binary_auroc_compute on an exact curve: no points dropped, fpr
// (tpr) all zero when there are no negatives (positives), so one class scores 0.
func tmAUC(cv curve, maxFPR float64) float64 {
	n := len(cv.tps)
	fpr := make([]float64, n+1)
	tpr := make([]float64, n+1)
	for i := 0; i < n; i++ {
		if cv.neg > 0 {
			fpr[i+1] = cv.fps[i] / float64(cv.neg)
		}
		if cv.pos > 0 {
			tpr[i+1] = cv.tps[i] / float64(cv.pos)
		}
	}
	return tmAUCFrom(fpr, tpr, maxFPR)
}

func tmAUCFrom(fpr, tpr []float64, maxFPR float64) float64 {
	if maxFPR == 0 || sum(fpr) == 0 || sum(tpr) == 0 {
		return trapezoid(fpr, tpr)
	}
	return mcclish(partialAUC(fpr, tpr, maxFPR, torchLerp), maxFPR)
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// tmBinnedAUC is torchmetrics' binned ROC: tpr_k = tp_k/P, fpr_k = fp_k/N (0 when the
// denominator is 0), reversed so that fpr ascends.
func tmBinnedAUC(cv curve, maxFPR float64) float64 {
	T := len(cv.tps)
	fpr := make([]float64, T)
	tpr := make([]float64, T)
	for k := 0; k < T; k++ {
		if cv.neg > 0 {
			fpr[T-1-k] = cv.fps[k] / float64(cv.neg)
		}
		if cv.pos > 0 {
			tpr[T-1-k] = cv.tps[k] / float64(cv.pos)
		}
	}
	return tmAUCFrom(fpr, tpr, maxFPR)
}

// tmAP is torchmetrics' binary average precision on an exact curve (no clipping at 0). With
// no positives recall is 0/0: torchmetrics replaces it by 1 only when every target of the
// input is 0 (recallOnes: always in binary, only when every label is 0 in multiclass);
// otherwise the class scores NaN, which the multiclass averages leave out.
func tmAP(cv curve, recallOnes bool) float64 {
	n := len(cv.tps)
	if n == 0 {
		return 0
	}
	prec := make([]float64, n+1)
	rec := make([]float64, n+1)
	for i := 0; i < n; i++ {
		j := n - 1 - i
		prec[i] = cv.tps[j] / (cv.tps[j] + cv.fps[j])
		if cv.pos == 0 {
			if !recallOnes {
				return math.NaN()
			}
			rec[i] = 1
		} else {
			rec[i] = cv.tps[j] / float64(cv.pos)
		}
	}
	prec[n], rec[n] = 1, 0
	return -stepSum(prec, rec)
}

// tmBinnedAP is torchmetrics' binned average precision: precision_k = tp_k/(tp_k+fp_k),
// recall_k = tp_k/P over ascending thresholds (0/0 counted as 0), then (1, 0) appended.
func tmBinnedAP(cv curve) float64 {
	T := len(cv.tps)
	prec := make([]float64, T+1)
	rec := make([]float64, T+1)
	for k := 0; k < T; k++ {
		if d := cv.tps[k] + cv.fps[k]; d > 0 {
			prec[k] = cv.tps[k] / d
		}
		if cv.pos > 0 {
			rec[k] = cv.tps[k] / float64(cv.pos)
		}
	}
	prec[T], rec[T] = 1, 0
	return -stepSum(prec, rec)
}

func stepSum(prec, rec []float64) float64 {
	terms := make([]float64, len(prec)-1)
	for i := range terms {
		terms[i] = float64((rec[i+1] - rec[i]) * prec[i])
	}
	return pairwiseSum(terms)
}

// Result computes the metric from the counts. It does not change the state.
func (s *State) Result() core.Result {
	m := s.m
	switch {
	case s.seen&(seenIDs|seenNames) == seenIDs|seenNames:
		return core.Undefined("mixed class ids and names", map[string]any{
			"help": "some labels are class ids, others class names: give all labels in one form"})
	case s.seen&tooMany != 0 && (len(s.tables) == 0 || s.tables[0].width == 2):
		why := "roc_auc_score raises for more than two labels with one score per record: multi_class must be in ('ovo', 'ovr')"
		if m.kind == kAP {
			why = "average_precision_score raises for more than two labels: Parameter pos_label is fixed to 1 for multiclass y_true"
		}
		return core.Undefined("more than two class names", map[string]any{
			"help": "one score per record (or a list of 2) is binary: at most two class names; scikit-learn: " + why})
	case s.seen&tooMany != 0 && len(s.tables) > 1:
		return core.Undefined("ragged scores", nil)
	case s.seen&tooMany != 0:
		return core.Undefined("class count mismatch", map[string]any{"columns": s.tables[0].width,
			"help": "more class names than score columns; scikit-learn raises: Number of classes in y_true not equal to the number of columns in 'y_score'"})
	}
	if len(s.tables) == 0 {
		return core.Undefined("no records", nil)
	}
	if len(s.tables) > 1 {
		var widths []int
		for _, t := range s.tables {
			widths = append(widths, t.width)
		}
		return core.Undefined("ragged scores", map[string]any{"widths": widths})
	}
	t := s.tables[0]
	for c := range t.cols {
		// Compacting does not change what the state represents.
		t.cols[c].compact(t.nlab)
	}
	totals := labelTotals(t)
	var n int64
	for _, c := range totals {
		n += c
	}
	details := map[string]any{"records": n, "support": totals}
	if m.kind == kAUROC && m.thresholds > 0 && m.boundKnown() {
		bounds := make([]float64, len(t.cols))
		for c := range t.cols {
			pos := c
			if t.width == 2 {
				pos = 1
			}
			bounds[c] = binnedBound(t.cols[c].counts, t.nlab, pos)
		}
		if t.width == 2 {
			details["bin_error_bound"] = bounds[0]
		} else {
			details["bin_error_bound"] = bounds
		}
	}
	if s.names != nil {
		details["classes"] = slices.Clone(s.names)
	}
	if t.width == 2 {
		pos, res, ok := s.positive(totals, details)
		if !ok {
			return res
		}
		v := m.binaryScore(t, &t.cols[0], pos, 1-pos, true)
		if math.IsNaN(v) {
			return core.Undefined("only one class present", details)
		}
		return core.Result{Value: v, Details: details}
	}
	if m.hasPos && m.posLabel != "1" {
		return core.Undefined("pos_label with multiclass scores", map[string]any{
			"help": "average_precision_score raises: Parameter pos_label is fixed to 1 for multiclass y_true. Do not set pos_label or set pos_label to 1."})
	}
	if s.names != nil && len(s.names) != t.width {
		details["columns"] = t.width
		details["help"] = "fewer class names than score columns; scikit-learn raises: Number of classes in y_true not equal to the number of columns in 'y_score'"
		return core.Undefined("class count mismatch", details)
	}
	return m.multiclass(t, totals, details)
}

// positive returns the label of the positive class of a binary table, or the result when
// scikit-learn has none. Class ids: 1, or pos_label 0 or 1. Class names: for auroc the greater
// in sorted order (label 1, which has no records when only one name was seen: only one class
// present), for average_precision pos_label, which must be given unless only one name was
// seen.
func (s *State) positive(totals []int64, details map[string]any) (int, core.Result, bool) {
	m := s.m
	// One name or id that is not pos_label: every record is negative, and scikit-learn
	// scores 0.0 with a warning only (it checks pos_label against the labels present only
	// when there are two).
	const allNegative = "scikit-learn warns: No positive class found in y_true, recall is set to one for all thresholds (every record is negative: average precision 0)"
	if s.names == nil {
		if !m.hasPos || m.posLabel == "1" {
			return 1, core.Result{}, true
		}
		if m.posLabel == "0" {
			return 0, core.Result{}, true
		}
		if absent := slices.Index(totals, 0); absent >= 0 {
			details["note"] = allNegative
			return absent, core.Result{}, true
		}
		return 0, core.Undefined("pos_label is not a class", map[string]any{
			"help": fmt.Sprintf("scikit-learn raises: pos_label=%s is not a valid label. It should be one of [0 1]", m.posLabel)}), false
	}
	if m.kind == kAUROC {
		return 1, core.Result{}, true
	}
	// Without pos_label its default, the integer 1, is no class name (not even "1"): with
	// two names it raises, with one it scores 0.0. Label 1 has no records.
	if !m.hasPos {
		if len(s.names) == 1 {
			details["note"] = allNegative
			return 1, core.Result{}, true
		}
		return 0, core.Undefined("pos_label needed", map[string]any{
			"help": fmt.Sprintf("labels are class names: set the option pos_label to the positive class (scikit-learn raises: pos_label=1 is not a valid label. It should be one of %s)", pyList(s.names))}), false
	}
	if i, ok := slices.BinarySearch(s.names, m.posLabel); ok {
		return i, core.Result{}, true
	}
	if len(s.names) == 2 {
		return 0, core.Undefined("pos_label is not a class", map[string]any{
			"help": fmt.Sprintf("scikit-learn raises: pos_label=%s is not a valid label. It should be one of %s", m.posLabel, pyList(s.names))}), false
	}
	details["note"] = allNegative
	return 1, core.Result{}, true
}

// pyList formats names as numpy prints a string array: ['a' 'b'].
func pyList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return "[" + strings.Join(q, " ") + "]"
}

func labelTotals(t *table) []int64 {
	totals := make([]int64, t.nlab)
	for i, c := range t.cols[0].counts {
		totals[i%t.nlab] += c
	}
	return totals
}

// binaryScore scores one column with positives pos and negatives neg (neg < 0: the rest).
func (m *Metric) binaryScore(t *table, col *column, pos, neg int, recallOnes bool) float64 {
	if m.thresholds > 0 {
		cv := binnedCurve(col.counts, t.nlab, m.thresholds, pos)
		if m.kind == kAUROC {
			return tmBinnedAUC(cv, m.maxFPR)
		}
		return tmBinnedAP(cv)
	}
	cv := exactCurve(col, t.nlab, pos, neg)
	switch {
	case m.kind == kAUROC && m.compat == compatSklearn:
		return skAUC(cv, m.maxFPR)
	case m.kind == kAUROC:
		return tmAUC(cv, m.maxFPR)
	case m.compat == compatSklearn:
		return skAP(cv)
	default:
		return tmAP(cv, recallOnes)
	}
}

func (m *Metric) multiclass(t *table, totals []int64, details map[string]any) core.Result {
	C := t.width
	present := 0
	for _, c := range totals {
		if c > 0 {
			present++
		}
	}
	if m.compat == compatSklearn && present < 2 {
		return core.Undefined("only one class present", details)
	}
	if m.compat == compatSklearn && m.kind == kAP {
		for c, n := range totals {
			if n == 0 {
				return core.Undefined(fmt.Sprintf("class %d has no positive records (scikit-learn raises: y_true must hold every class of the score list)", c), details)
			}
		}
	}
	if m.multiClass == "ovo" {
		return m.ovo(t, totals, details)
	}
	// torchmetrics' average precision sets recall to 1 for a class without positives only
	// when every target is 0: it tests the class ids, not the class.
	recallOnes := true
	for _, n := range totals[1:] {
		recallOnes = recallOnes && n == 0
	}
	scores := make([]float64, C)
	for c := range scores {
		scores[c] = m.binaryScore(t, &t.cols[c], c, -1, recallOnes)
	}
	if m.compat == compatTorchmetrics {
		return tmReduce(scores, totals, m.average, details)
	}
	firstNaN := -1
	for c, v := range scores {
		if math.IsNaN(v) && firstNaN < 0 && !(m.average == "weighted" && totals[c] == 0) {
			firstNaN = c
		}
	}
	if firstNaN >= 0 {
		return core.Undefined(fmt.Sprintf("class %d has no positive records (scikit-learn: NaN)", firstNaN), details)
	}
	switch m.average {
	case "none":
		return core.Result{Value: scores, Details: details}
	case "weighted":
		w := make([]float64, C)
		for c := range w {
			w[c] = float64(totals[c])
			if totals[c] == 0 {
				scores[c] = 0
			}
		}
		return core.Result{Value: weightedAverage(scores, w), Details: details}
	}
	return core.Result{Value: pairwiseSum(scores) / float64(C), Details: details}
}

// weightedAverage is numpy.average(a, weights=w): Σ a·w / Σ w, both sums as numpy sums.
func weightedAverage(a, w []float64) float64 {
	prod := make([]float64, len(a))
	for i := range a {
		prod[i] = float64(a[i] * w[i])
	}
	return pairwiseSum(prod) / pairwiseSum(w)
}

// ovo is scikit-learn's Hand & Till one-vs-one average over the pairs of classes present.
func (m *Metric) ovo(t *table, totals []int64, details map[string]any) core.Result {
	var labels []int
	var n int64
	for c, k := range totals {
		if k > 0 {
			labels = append(labels, c)
		}
		n += k
	}
	var pairs, prev []float64
	for i, a := range labels {
		for _, b := range labels[i+1:] {
			sa := m.binaryScore(t, &t.cols[a], a, b, false)
			sb := m.binaryScore(t, &t.cols[b], b, a, false)
			pairs = append(pairs, (sa+sb)/2)
			prev = append(prev, float64(totals[a]+totals[b])/float64(n))
		}
	}
	var v float64
	if m.average == "weighted" {
		v = weightedAverage(pairs, prev)
	} else {
		v = pairwiseSum(pairs) / float64(len(pairs))
	}
	if math.IsNaN(v) {
		return core.Undefined("only one class present", details)
	}
	return core.Result{Value: v, Details: details}
}

// tmReduce is torchmetrics' _reduce_auroc / _reduce_average_precision: NaN classes are left
// out of macro and weighted averages; weighted uses the positives per class.
func tmReduce(scores []float64, totals []int64, average string, details map[string]any) core.Result {
	if average == "none" {
		for c, v := range scores {
			if math.IsNaN(v) {
				return core.Undefined(fmt.Sprintf("class %d has an undefined score (torchmetrics: NaN)", c), details)
			}
		}
		return core.Result{Value: scores, Details: details}
	}
	var vs, ws []float64
	for c, v := range scores {
		if !math.IsNaN(v) {
			vs = append(vs, v)
			ws = append(ws, float64(totals[c]))
		}
	}
	if len(vs) == 0 {
		return core.Undefined("every class has an undefined score (torchmetrics: NaN)", details)
	}
	if average == "macro" {
		return core.Result{Value: pairwiseSum(vs) / float64(len(vs)), Details: details}
	}
	tw := pairwiseSum(ws)
	var acc float64
	for i := range vs {
		if tw != 0 {
			acc += vs[i] * (ws[i] / tw)
		}
	}
	return core.Result{Value: acc, Details: details}
}
