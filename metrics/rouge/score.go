package rouge

// triple is one candidate/reference comparison: matches, candidate total and reference total
// (n-gram counts, or LCS and lengths).
type triple struct{ match, cand, ref int64 }

// ratio is a/b, or 0 when b is 0 (every library guards this division).
func ratio(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (t triple) precision() float64 { return ratio(t.match, t.cand) }
func (t triple) recall() float64    { return ratio(t.match, t.ref) }

// prf is a per-example precision, recall and F.
type prf struct{ p, r, f float64 }

// fmeasure combines precision and recall the way a preset does.
type fmeasure struct {
	kind  byte    // 'f' rouge-score F1, 'a' ignite alpha, 'b' MindNLP/Paddle F-beta
	alpha float64 // ignite
	beta2 float64 // MindNLP/Paddle β² (Python `beta**2`)
}

// of returns F for precision p and recall r. The explicit float64 conversions keep the
// compiler from fusing multiply-adds, so the rounding matches Python's step by step.
func (fm fmeasure) of(p, r float64) float64 {
	switch fm.kind {
	case 'a':
		// ignite: P·R / ((1−α)·P + α·R) when P·R > 0.
		pr := float64(p * r)
		if pr > 0 {
			return pr / (float64((1-fm.alpha)*p) + float64(fm.alpha*r))
		}
		return 0
	case 'b':
		// MindNLP/Paddle: (1+β²)·P·R / (R + β²·P) when P ≠ 0 and R ≠ 0.
		if p != 0 && r != 0 {
			return float64(float64((1+fm.beta2)*p)*r) / (r + float64(fm.beta2*p))
		}
		return 0
	default:
		// rouge-score scoring.fmeasure: 2·P·R / (P + R) when P + R > 0.
		if p+r > 0 {
			return float64(float64(2*p)*r) / (p + r)
		}
		return 0
	}
}

// multiref is how per-reference comparisons of one example are combined.
type multiref byte

const (
	bestF      multiref = iota // the reference with the largest F (rouge-score score_multi); first on ties
	bestRecall                 // the reference with the largest recall (ignite "best"); first on ties
	average                    // pooled counts Σmatch/Σcand/Σref (ignite "average")
	maxPR                      // max P and max R taken independently (MindNLP/Paddle RougeL)
	sumPooled                  // corpus-level pooled set counts (MindNLP RougeN)
)

var multirefNames = map[multiref]string{bestF: "best_f", bestRecall: "best_recall", average: "average", maxPR: "max_pr", sumPooled: "sum"}

func parseMultiref(s string) multiref {
	for k, v := range multirefNames {
		if v == s {
			return k
		}
	}
	return bestF
}

// combine reduces the per-reference triples of one example (len(ts) >= 1) to P, R and F.
func combine(ts []triple, mode multiref, fm fmeasure) prf {
	switch mode {
	case average:
		var sum triple
		for _, t := range ts {
			sum.match += t.match
			sum.cand += t.cand
			sum.ref += t.ref
		}
		return score(sum, fm)
	case bestRecall:
		best := 0
		for i := 1; i < len(ts); i++ {
			if ts[i].recall() > ts[best].recall() {
				best = i
			}
		}
		return score(ts[best], fm)
	case maxPR:
		p, r := ts[0].precision(), ts[0].recall()
		for _, t := range ts[1:] {
			p = max(p, t.precision())
			r = max(r, t.recall())
		}
		return prf{p, r, fm.of(p, r)}
	default: // bestF
		best := score(ts[0], fm)
		for _, t := range ts[1:] {
			if s := score(t, fm); s.f > best.f {
				best = s
			}
		}
		return best
	}
}

func score(t triple, fm fmeasure) prf {
	p, r := t.precision(), t.recall()
	return prf{p, r, fm.of(p, r)}
}
