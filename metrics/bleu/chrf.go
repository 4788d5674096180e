package bleu

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

// CHRF is a configured chrf metric (sacreBLEU's CHRF, §5). It is immutable and safe for
// concurrent use.
type CHRF struct {
	charOrder, wordOrder int
	beta                 int64
	lower, whitespace    bool
	eps                  bool
	scale100             bool
	sig                  string
	segKey               string    // names the options in a core.Memo of segment statistics
	scratch              sync.Pool // *chrfWork, for SentenceScore
}

var (
	_ core.Metric         = (*CHRF)(nil)
	_ core.SentenceScorer = (*CHRF)(nil)
)

// NewCHRF builds a chrf metric from its options (see Docs). It records problems in o; the
// caller reports them with o.Err().
func NewCHRF(o *core.Options) (core.Metric, error) {
	m := &CHRF{}
	o.String("compat", "sacrebleu", "sacrebleu")
	m.charOrder = int(o.Int("char_order", 6, 0, maxOrder))
	m.wordOrder = int(o.Int("word_order", 0, 0, maxOrder))
	if m.charOrder+m.wordOrder == 0 {
		o.Problem("char_order", "char_order + word_order must be at least 1")
		m.charOrder = 6
	}
	m.beta = o.Int("beta", 2, 0, 1000)
	m.lower = o.Bool("lowercase", false)
	m.whitespace = o.Bool("whitespace", false)
	m.eps = o.Bool("eps_smoothing", false)
	m.scale100 = o.String("scale", "1", "1", "100") == "100"
	m.sig = m.signature("")
	m.segKey = "chrf segment|" + m.sig
	return m, nil
}

func (m *CHRF) signature(nrefs string) string {
	s := core.NewSig("chrf", "sacrebleu")
	if nrefs != "" {
		s.Add("nrefs", nrefs)
	}
	caseStr := "mixed"
	if m.lower {
		caseStr = "lc"
	}
	scale := "1"
	if m.scale100 {
		scale = "100"
	}
	// sacrebleu's own keys in its order, then ours.
	s.Add("case", caseStr).YesNo("eff", !m.eps).Int("nc", int64(m.charOrder)).Int("nw", int64(m.wordOrder)).YesNo("space", m.whitespace)
	return s.Int("beta", m.beta).Add("scale", scale).String()
}

// Signature implements core.Metric.
func (m *CHRF) Signature() string { return m.sig }

// Roles implements core.Metric: prediction, then references.
func (m *CHRF) Roles() []core.Role { return append([]core.Role(nil), textRoles...) }

// Check implements core.Metric.
func (m *CHRF) Check(ex *core.Example) error { return textinput.CheckPair(ex) }

// NewState implements core.Metric.
func (m *CHRF) NewState() core.State { return m.newState() }

func (m *CHRF) order() int { return m.charOrder + m.wordOrder }

// wordBit marks word token ids so that they never equal a character (rune) id.
const wordBit = 1 << 31

// chrfWork is scratch space for one record.
type chrfWork struct {
	c      counter
	cp     charPacked
	refs   []string // the record's prepared references
	chars  []uint32
	words  []string
	wids   []uint32
	hypTot []int64 // per order
	match  []int64
	cur    []int64 // stats of the current reference (3 per order)
	best   []int64
}

// prepare lowercases (optionally) a prediction or reference; token lists are joined by spaces.
func (m *CHRF) prepare(v core.Value, j int) string {
	var s string
	switch v.Kind {
	case core.String:
		s = v.Str
	case core.StringList:
		if j < 0 { // a tokenized prediction
			s = strings.Join(v.Strs, " ")
		} else {
			s = v.Strs[j]
		}
	case core.StringLists:
		s = strings.Join(v.Lists[j], " ")
	}
	if m.lower {
		s = tokenize.PyLower(s)
	}
	return s
}

// charIDs appends the characters of s as ids, without Python whitespace unless whitespace.
func (m *CHRF) charIDs(dst []uint32, s string) []uint32 {
	for _, r := range s {
		if !m.whitespace && tokenize.PyIsSpace(r) {
			continue
		}
		dst = append(dst, uint32(r))
	}
	return dst
}

// isPunct reports whether b is in sacrebleu's CHRF._PUNCTS (ASCII punctuation).
func isPunct(b byte) bool {
	return b >= '!' && b <= '/' || b >= ':' && b <= '@' || b >= '[' && b <= '`' || b >= '{' && b <= '~'
}

// appendWords is CHRF._remove_punctuation: whitespace tokens with one ASCII punctuation mark
// split off their end (checked first) or their start.
func appendWords(dst []string, s string) []string {
	for _, w := range tokenize.PySplit(s) {
		if utf8.RuneCountInString(w) == 1 {
			dst = append(dst, w)
			continue
		}
		switch {
		case isPunct(w[len(w)-1]):
			dst = append(dst, w[:len(w)-1], w[len(w)-1:])
		case isPunct(w[0]):
			dst = append(dst, w[:1], w[1:])
		default:
			dst = append(dst, w)
		}
	}
	return dst
}

// fscore is CHRF._compute_f_score on the 0..100 scale.
func (m *CHRF) fscore(st []int64) float64 {
	const eps = 1e-16
	factor := float64(m.beta * m.beta)
	score, avgP, avgR := 0.0, 0.0, 0.0
	eff := 0
	order := len(st) / 3
	for i := 0; i < order; i++ {
		nh, nr, nm := st[3*i], st[3*i+1], st[3*i+2]
		prec, rec := eps, eps
		if nh > 0 {
			prec = float64(nm) / float64(nh)
		}
		if nr > 0 {
			rec = float64(nm) / float64(nr)
		}
		denom := float64(factor*prec) + rec
		if denom > 0 {
			score += (1 + factor) * prec * rec / denom
		} else {
			score += eps
		}
		if nh > 0 && nr > 0 {
			avgP += prec
			avgR += rec
			eff++
		}
	}
	if m.eps {
		return 100 * score / float64(order)
	}
	if eff == 0 {
		avgP, avgR = 0, 0
	} else {
		avgP /= float64(eff)
		avgR /= float64(eff)
	}
	if avgP+avgR != 0 {
		score = (1 + factor) * avgP * avgR
		score /= float64(factor*avgP) + avgR
		return 100 * score
	}
	return 0
}

// record computes the statistics of the best reference of one usable record into w.best.
func (m *CHRF) record(w *chrfWork, ex *core.Example) int {
	nc, nw := m.charOrder, m.wordOrder
	order := nc + nw
	hyp := m.prepare(ex.Values[0], -1)
	rv := ex.Values[1]
	nr := textinput.Count(rv)
	w.refs = w.refs[:0]
	for j := 0; j < nr; j++ {
		w.refs = append(w.refs, m.prepare(rv, j))
	}
	packed := w.cp.useRefs(w.refs, nc, m.whitespace)
	nHypChars := -1 // packed: counted by the first reference's match
	if !packed {
		w.chars = m.charIDs(w.chars[:0], hyp)
		nHypChars = len(w.chars)
	}
	w.words = w.words[:0]
	if nw > 0 {
		w.words = appendWords(w.words, hyp)
	}
	w.c.toks.reset(w.words)
	w.wids = w.wids[:0]
	for i := range w.words {
		w.wids = append(w.wids, w.c.toks.intern(i)|wordBit)
	}
	if packed {
		w.c.startGrams(len(w.wids) * nw)
	} else {
		w.c.startGrams(len(w.chars)*nc + len(w.wids)*nw)
		w.c.countHyp(w.chars, nc)
	}
	w.c.countHyp(w.wids, nw)
	w.hypTot = zeros(w.hypTot, order)
	for n := 1; n <= nw; n++ {
		w.hypTot[nc+n-1] = total(len(w.wids), n)
	}

	w.best = zeros(w.best, 3*order)
	bestF := -1.0
	for j, ref := range w.refs {
		w.match = zeros(w.match, order)
		w.c.newRef()
		var nRefChars int
		if packed {
			nHypChars = w.cp.match(j, hyp, w.match[:nc])
			nRefChars = w.cp.refChars(j)
		} else {
			w.chars = m.charIDs(w.chars[:0], ref)
			w.c.refMatch(w.chars, nc, w.match[:nc])
			nRefChars = len(w.chars)
		}
		if j == 0 {
			for n := 1; n <= nc; n++ {
				w.hypTot[n-1] = total(nHypChars, n)
			}
		}
		nRefWords := 0
		if nw > 0 {
			words := appendWords(w.words[len(w.words):], ref)
			w.wids = w.wids[:0]
			for _, t := range words {
				id := w.c.toks.lookup(t)
				if id != noID {
					id |= wordBit
				}
				w.wids = append(w.wids, id)
			}
			nRefWords = len(words)
			clear(words)
			w.c.refMatch(w.wids, nw, w.match[nc:])
		}
		w.cur = zeros(w.cur, 3*order)
		for i := 0; i < order; i++ {
			var rt int64
			if i < nc {
				rt = total(nRefChars, i+1)
			} else {
				rt = total(nRefWords, i-nc+1)
			}
			if rt > 0 {
				w.cur[3*i] = w.hypTot[i]
			}
			w.cur[3*i+1] = rt
			w.cur[3*i+2] = w.match[i]
		}
		if f := m.fscore(w.cur); f > bestF {
			bestF = f
			w.best, w.cur = w.cur, w.best
		}
	}
	w.c.toks.release()
	clear(w.words)
	clear(w.refs)
	return nr
}

// chrfState is the mergeable state of a chrf metric: per order, Σ hypothesis n-grams,
// Σ reference n-grams and Σ matches of each record's best reference. One owner.
type chrfState struct {
	m                *CHRF
	n                int64
	minRefs, maxRefs int64
	st               []int64
	w                *chrfWork
}

func (m *CHRF) newState() *chrfState {
	return &chrfState{m: m, st: make([]int64, 3*m.order())}
}

// Add implements core.State.
func (s *chrfState) Add(ex *core.Example, weight int64) {
	if weight < 1 || !textinput.Usable(ex) {
		return
	}
	if s.w == nil {
		s.w = &chrfWork{}
	}
	s.fold(int64(s.m.record(s.w, ex)), s.w.best, weight)
}

// AddReplicas implements core.ReplicaAdder: the record's n-grams are counted once.
func (s *chrfState) AddReplicas(ex *core.Example, states []core.State, weights []int64) {
	if !textinput.Usable(ex) {
		return
	}
	if s.w == nil {
		s.w = &chrfWork{}
	}
	nr := int64(s.m.record(s.w, ex))
	for i, st := range states {
		if weights[i] > 0 {
			st.(*chrfState).fold(nr, s.w.best, weights[i])
		}
	}
}

// VectorLen implements core.SumVectorState: records, then the statistics.
func (s *chrfState) VectorLen() int { return 1 + len(s.st) }

// AddVector implements core.SumVectorState.
func (s *chrfState) AddVector(ex *core.Example, dst []int64) bool {
	if !textinput.Usable(ex) {
		return false
	}
	s.Add(ex, 1)
	dst[0] = 1
	copy(dst[1:], s.w.best)
	return true
}

// VectorResult implements core.SumVectorState.
func (s *chrfState) VectorResult(v []int64) core.Result {
	if v[0] == 0 {
		return core.Undefined("no records", nil)
	}
	x := s.m.scaled(s.m.fscore(v[1:]))
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return core.Undefined(reasonCorrupt, nil)
	}
	return core.Result{Value: x}
}

// fold adds one record's best-reference statistics (of nr references), weight times.
func (s *chrfState) fold(nr int64, best []int64, weight int64) {
	if s.n == 0 || nr < s.minRefs {
		s.minRefs = nr
	}
	s.maxRefs = max(s.maxRefs, nr)
	s.n += weight
	for i, x := range best {
		s.st[i] += weight * x
	}
}

// Merge implements core.State.
func (s *chrfState) Merge(other core.State) error {
	o, ok := other.(*chrfState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	if o.n == 0 {
		return nil
	}
	if o == s { // merging a state into itself: read from a copy
		c := *o
		c.st = append([]int64(nil), o.st...)
		o = &c
	}
	if s.n == 0 || o.minRefs < s.minRefs {
		s.minRefs = o.minRefs
	}
	s.maxRefs = max(s.maxRefs, o.maxRefs)
	s.n += o.n
	for i := range s.st {
		s.st[i] += o.st[i]
	}
	return nil
}

func (m *CHRF) scaled(v float64) float64 {
	if m.scale100 {
		return v
	}
	return v / 100
}

// Result implements core.State: the value, and nrefs as the signature's data pair once a
// record was scored (sacrebleu's nrefs: the references per record, or var when it varies).
func (s *chrfState) Result() core.Result {
	r := s.result()
	if s.n > 0 {
		r.SigData = "nrefs:" + nrefsOf(s.minRefs, s.maxRefs)
	}
	return r
}

func (s *chrfState) result() core.Result {
	m := s.m
	order := m.order()
	hyp, ref, match := make([]int64, order), make([]int64, order), make([]int64, order)
	for i := 0; i < order; i++ {
		hyp[i], ref[i], match[i] = s.st[3*i], s.st[3*i+1], s.st[3*i+2]
	}
	nrefs := "var"
	if s.minRefs == s.maxRefs {
		nrefs = fmt.Sprint(s.maxRefs)
	}
	d := map[string]any{"hyp_counts": hyp, "ref_counts": ref, "matches": match, "signature": m.signature(nrefs)}
	if s.n == 0 {
		return core.Undefined("no records", d)
	}
	v := m.scaled(m.fscore(s.st))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined(reasonCorrupt, d)
	}
	return core.Result{Value: v, Details: d}
}

// MarshalBinary implements core.State.
func (s *chrfState) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	e.Varint(s.n)
	e.Varint(s.minRefs)
	e.Varint(s.maxRefs)
	e.Int64s(s.st)
	return e.B, nil
}

// DecodeState implements core.Metric.
func (m *CHRF) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("chrf", stateVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := m.newState()
	s.n, s.minRefs, s.maxRefs = d.Varint(), d.Varint(), d.Varint()
	st := d.Int64s()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	bad := len(st) != len(s.st) || s.n < 0 || s.minRefs < 0 || s.minRefs > s.maxRefs || (s.n > 0) != (s.minRefs > 0)
	if !bad {
		copy(s.st, st)
		for i := 0; i < len(st); i += 3 {
			bad = bad || st[i] < 0 || st[i+1] < 0 || st[i+2] < 0 || st[i+2] > st[i+1] || s.n == 0 && (st[i]|st[i+1]) != 0
		}
	}
	if bad {
		return nil, fmt.Errorf("%w: inconsistent chrf statistics", core.ErrCorruptState)
	}
	return s, nil
}

// SentenceScore implements core.SentenceScorer: sacrebleu's CHRF.sentence_score of the record
// on the configured scale.
func (m *CHRF) SentenceScore(ex *core.Example) (float64, bool) {
	if textinput.CheckPair(ex) != nil {
		return 0, false
	}
	w, _ := m.scratch.Get().(*chrfWork)
	if w == nil {
		w = &chrfWork{}
	}
	defer m.scratch.Put(w)
	m.record(w, ex)
	return m.scaled(m.fscore(w.best)), true
}

// nrefsOf is sacrebleu's nrefs of records with lo to hi references: the count, or var when
// it varies.
func nrefsOf(lo, hi int64) string {
	if lo != hi {
		return "var"
	}
	return strconv.FormatInt(hi, 10)
}
