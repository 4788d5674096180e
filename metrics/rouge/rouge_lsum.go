package rouge

import (
	"math/bits"
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// RougeLsum is the `rouge_lsum` metric: rouge-score's summary-level LCS (`rougeLsum`) over
// newline-separated sentences, averaged per example; with several references the one with
// the best F wins (`score_multi`). It is immutable and safe for concurrent use.
type RougeLsum struct {
	text textOpts
	sig  string
	pool sync.Pool // *scratch for SentenceScore
}

// NewRougeLsum builds a `rouge_lsum` metric from its options (see Docs). Preset:
// `rouge-score`.
func NewRougeLsum(o *core.Options) (core.Metric, error) {
	o.String("compat", "rouge-score", "rouge-score")
	m := &RougeLsum{text: readTextOpts(o, "rouge", false)}
	o.String("split", "newline", "newline")
	m.sig = m.text.addSig(core.NewSig("rouge_lsum", "rouge-score")).Add("split", "newline").Add("multiref", "best_f").String()
	return m, nil
}

// Roles implements core.Metric.
func (m *RougeLsum) Roles() []core.Role { return []core.Role{predictionRole, referencesRole} }

// Signature implements core.Metric.
func (m *RougeLsum) Signature() string { return m.sig }

// Check implements core.Metric.
func (m *RougeLsum) Check(ex *core.Example) error {
	if err := textinput.Prediction(ex.Values[0], "prediction", ex.UTF8Checked); err != nil {
		return err
	}
	return textinput.References(ex.Values[1], "references", ex.UTF8Checked)
}

// NewState implements core.Metric.
func (m *RougeLsum) NewState() core.State { return newMeanState(m) }

// DecodeState implements core.Metric.
func (m *RougeLsum) DecodeState(b []byte) (core.State, error) { return decodeMeanState(m, b) }

// SentenceScore implements core.SentenceScorer: the example's F.
func (m *RougeLsum) SentenceScore(ex *core.Example) (float64, bool) {
	sc, _ := m.pool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer func() { sc.done(); m.pool.Put(sc) }()
	s, _ := m.example(ex, sc)
	return s.f, true
}

// pushSentences loads a text as sentences: a string is split on "\n" (empty pieces dropped,
// as rouge-score's get_sents) and each piece tokenized; pre-tokenized input is one sentence.
// It returns the number of sentences pushed.
func (m *RougeLsum) pushSentences(sc *scratch, s string) int {
	n := 0
	for line := range lines(s) {
		sc.push(m.text.text(sc, line))
		n++
	}
	return n
}

// pushAll loads the sentences of the prediction and of each reference with a tokenizer
// other than rouge's: it returns the number of prediction sentences and the sentence ranges
// of each reference, [bounds[j], bounds[j+1]).
func (m *RougeLsum) pushAll(sc *scratch, pred, refs core.Value) (np int, bounds []int) {
	sc.reset()
	if pred.Kind == core.StringList {
		sc.push(m.text.tokens(pred.Strs))
		np = 1
	} else {
		np = m.pushSentences(sc, pred.Str)
	}
	sc.kc = sc.nIDs()
	bounds = append(sc.bounds[:0], np)
	for j, k := 0, textinput.Count(refs); j < k; j++ {
		switch refs.Kind {
		case core.String:
			m.pushSentences(sc, refs.Str)
		case core.StringList:
			m.pushSentences(sc, refs.Strs[j])
		default:
			sc.push(m.text.tokens(refs.Lists[j]))
		}
		bounds = append(bounds, len(sc.ends))
	}
	sc.distinct = sc.nIDs()
	return np, bounds
}

// example scores one checked example.
func (m *RougeLsum) example(ex *core.Example, sc *scratch) (prf, triple) {
	var np int
	var bounds []int
	var sents []int // sentence i is sc.span(sents, i)
	if m.text.fn == nil {
		// The rouge tokenizer: load's lines are the sentences (and rouge_n and rouge_l
		// share them through ex.Memo).
		sc.load(m.text, ex)
		np = sc.textLines[0]
		bounds = append(sc.bounds[:0], sc.textLines...)
		sents = sc.lines
	} else {
		np, bounds = m.pushAll(sc, ex.Values[0], ex.Values[1])
		sents = sc.ends
	}
	sc.bounds = bounds
	k := sc.kc
	// The prediction's sentences are the columns of every LCS: their masks are built once.
	// Its tokens are the ids below kc (interned first).
	if np == 1 && oneSentenceEach(bounds) {
		// One LCS per reference, of one sentence against one: each of its tokens occurs in
		// both sentences at least as often as in the LCS, so the token pools never run out
		// and the hits are the LCS length, whichever LCS rouge-score reads out.
		c := sc.span(sents, 0)
		if m.text.fn == nil {
			// Then each text is one line, and its line is its sequence of load: the LCS
			// lengths are rouge_l's (computed once per record through the memo).
			for j, n := range sc.lcsLengths() {
				sc.triples = append(sc.triples, triple{match: int64(n), cand: int64(len(c)), ref: int64(len(sc.span(sents, bounds[j])))})
			}
		} else {
			sc.lcs.load(c, k, sc.distinct)
			for j := 0; j+1 < len(bounds); j++ {
				r := sc.span(sents, bounds[j])
				sc.triples = append(sc.triples, triple{match: int64(sc.lcs.length(r)), cand: int64(len(c)), ref: int64(len(r))})
			}
		}
		return combine(sc.triples, bestF, fmeasure{kind: 'f'}), triple{}
	}
	sc.lsum.reset(k, sc.distinct)
	for p := 0; p < np; p++ {
		sc.lsum.addSentence(sc.span(sents, p))
	}
	// rouge-score's token pools: a token of the union is a hit while both the prediction's
	// and the reference's pool hold it, and a hit takes it from both. A reference token is
	// in the union at most once per occurrence, so its reference pool never runs out
	// before the union's occurrences do: only the prediction's pool counts. Its counts
	// are kept in poolP (a count per prediction token: the union holds no other); each
	// reference but the last takes from a copy.
	poolP := zeroed(sc.cnt, k)
	predTokens := int64(0)
	for i := 0; i < np; i++ {
		for _, t := range sc.span(sents, i) {
			poolP[t]++
		}
		predTokens += int64(len(sc.span(sents, i)))
	}
	sc.cnt = poolP
	for j := 0; j+1 < len(bounds); j++ {
		pool := poolP
		if j+2 < len(bounds) {
			sc.rcnt = append(sc.rcnt[:0], poolP...)
			pool = sc.rcnt
		}
		refTokens := int64(0)
		for i := bounds[j]; i < bounds[j+1]; i++ {
			refTokens += int64(len(sc.span(sents, i)))
		}
		hits := int32(0)
		if np > 0 && predTokens > 0 && refTokens > 0 {
			cs := func(p int) []int32 { return sc.span(sents, p) }
			for i := bounds[j]; i < bounds[j+1]; i++ {
				// The union of the LCS index sets of r against every prediction sentence.
				// Which sentence of the reference takes a token from the pool first does
				// not change the hits (each token's is min(its occurrences in the unions,
				// its count in the prediction)).
				r := sc.span(sents, i)
				if i+1 < bounds[j+1] {
					if r2 := sc.span(sents, i+1); len(r) > 0 && len(r) <= 64 && len(r2) > 0 && len(r2) <= 64 {
						m1, m2 := sc.lsum.union2(r, r2, cs)
						hits += takeMarked(pool, r, m1) + takeMarked(pool, r2, m2)
						i++
						continue
					}
				}
				sc.marks = zeroed(sc.marks, (len(r)+63)>>6)
				sc.lsum.union(sc.marks, r, cs)
				for w, word := range sc.marks {
					hits += takeMarked(pool, r[w<<6:], word)
				}
			}
		}
		sc.triples = append(sc.triples, triple{match: int64(hits), cand: predTokens, ref: refTokens})
	}
	return combine(sc.triples, bestF, fmeasure{kind: 'f'}), triple{}
}

// takeMarked takes from pool the tokens of r at the bits of marks, while any is left, and
// returns how many it took.
func takeMarked(pool []int32, r []int32, marks uint64) (hits int32) {
	for ; marks != 0; marks &= marks - 1 {
		t := r[bits.TrailingZeros64(marks)]
		c := pool[t]
		take := int32(uint32(-c) >> 31) // c > 0, without a branch
		hits += take
		pool[t] = c - take
	}
	return hits
}

// oneSentenceEach reports whether every reference has exactly one sentence.
func oneSentenceEach(bounds []int) bool {
	for j := 0; j+1 < len(bounds); j++ {
		if bounds[j+1]-bounds[j] != 1 {
			return false
		}
	}
	return true
}
