package bleu

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

const reasonCorrupt = "invalid statistics"

// lastSent is what NLTK methods 5-7 read from the last sentence of a corpus: the record with
// the largest Seq.
type lastSent struct {
	ok     bool
	seq    uint64
	hypLen int64
	m5, t5 int64 // clipped 5-gram matches and max(1, 5-gram total)
}

// after orders candidates for "last": by Seq, then by content so that equal Seqs (which a
// well-formed input never has) still give an order-independent choice.
func (a lastSent) after(b lastSent) bool {
	switch {
	case !b.ok:
		return a.ok
	case !a.ok:
		return false
	case a.seq != b.seq:
		return a.seq > b.seq
	case a.hypLen != b.hypLen:
		return a.hypLen > b.hypLen
	case a.m5 != b.m5:
		return a.m5 > b.m5
	}
	return a.t5 > b.t5
}

// work is scratch space for scoring one record. It keeps no data between records.
type work struct {
	c     counter
	pc    packedCounter
	hyp   []string
	ref   []string
	refs  []keptRef // the last record's references, by index (text references only)
	m, t  []int64
	tn    []int64   // totals as the preset sums them
	prec  []float64 // precisions of a sentence score
	cLen  int64
	rLen  int64
	nrefs int
}

func lowerAll(dst, toks []string) []string {
	for _, t := range toks {
		dst = append(dst, tokenize.PyLower(t))
	}
	return dst
}

// text appends the tokens of s to dst.
func (m *Metric) text(dst []string, s string) []string {
	if m.lower {
		s = tokenize.PyLower(s)
	}
	return m.tok(dst, s)
}

// hypTokens returns the hypothesis tokens; they may live in w.hyp.
func (m *Metric) hypTokens(w *work, v core.Value) []string {
	if v.Kind == core.String {
		w.hyp = m.text(w.hyp[:0], v.Str)
		return w.hyp
	}
	if !m.lower {
		return v.Strs
	}
	w.hyp = lowerAll(w.hyp[:0], v.Strs)
	return w.hyp
}

// refTokens returns the tokens of reference j; they may live in w.ref or w.refs, and the
// caller must not change them.
func (m *Metric) refTokens(w *work, v core.Value, j int) []string {
	switch v.Kind {
	case core.String:
		return m.keptTokens(w, j, v.Str)
	case core.StringList:
		return m.keptTokens(w, j, v.Strs[j])
	}
	if !m.lower {
		return v.Lists[j]
	}
	w.ref = lowerAll(w.ref[:0], v.Lists[j])
	return w.ref
}

// keptTokens returns the tokens of s, reference j of a record, keeping them with a copy of
// s: the next record with the same reference j (the next system of a segment, as compare
// feeds them) skips its tokenization. The tokens alias a buffer of the keptRef's own, since s
// may alias a buffer its source reuses; the buffer is rewritten when reference j changes,
// when nothing holds the old tokens any more (work keeps no other token past a record), so a
// corpus of distinct references allocates nothing per record.
func (m *Metric) keptTokens(w *work, j int, s string) []string {
	for len(w.refs) <= j {
		w.refs = append(w.refs, keptRef{})
	}
	k := &w.refs[j]
	if k.ok && string(k.raw) == s {
		return k.toks
	}
	w.ref = m.text(w.ref[:0], s)
	k.own = k.own[:0]
	for _, t := range w.ref {
		k.own = append(k.own, t...)
	}
	own := unsafe.String(unsafe.SliceData(k.own), len(k.own))
	k.toks = k.toks[:0]
	for _, t := range w.ref {
		k.toks = append(k.toks, own[:len(t)])
		own = own[len(t):]
	}
	k.raw, k.ok = append(k.raw[:0], s...), true
	clear(w.ref)
	return k.toks
}

// keptRef is a reference kept by keptTokens: a copy of its text, and its tokens, which alias
// own.
type keptRef struct {
	raw  []byte
	own  []byte
	toks []string
	ok   bool
}

func zeros(x []int64, n int) []int64 {
	if cap(x) < n {
		return make([]int64, n)
	}
	x = x[:n]
	clear(x)
	return x
}

// sentence computes the statistics of one usable record into w: c, closest r, and the raw
// m_n, t_n for orders 1..countN.
func (m *Metric) sentence(w *work, ex *core.Example) {
	hyp := m.hypTokens(w, ex.Values[0])
	rv := ex.Values[1]
	nr := textinput.Count(rv)
	N := m.countN
	w.m, w.t = zeros(w.m, N), zeros(w.t, N)
	L := len(hyp)
	for n := 1; n <= N; n++ {
		w.t[n-1] = total(L, n)
	}
	packed := false
	if L > 0 {
		packed = N <= packedMaxOrder && w.pc.startHyp(hyp)
		if !packed {
			w.c.startHyp(hyp, N)
		}
	}
	firstWins := m.preset == presetMindNLP
	best, bestLen := -1, 0
	for j := 0; j < nr; j++ {
		rt := m.refTokens(w, rv, j)
		lr := len(rt)
		d := lr - L
		if d < 0 {
			d = -d
		}
		if best < 0 || d < best || d == best && lr < bestLen && !firstWins {
			best, bestLen = d, lr
		}
		switch {
		case L == 0 || lr == 0:
		case packed:
			w.pc.addRef(rt, w.m)
		default:
			w.c.addRefMax(w.c.refIDs(rt), N, w.m)
		}
	}
	if packed {
		w.pc.finish(N, w.m)
	}
	w.c.toks.release()
	w.pc.release()
	clear(w.hyp)
	clear(w.ref)
	w.cLen, w.rLen, w.nrefs = int64(L), int64(bestLen), nr
}

// sentenceStats turns the record in w into statistics of a one-sentence corpus.
func (m *Metric) sentenceStats(w *work, seq uint64) stats {
	w.tn = append(w.tn[:0], w.t...)
	if cap(w.prec) < m.order {
		w.prec = make([]float64, m.order)
	}
	s := stats{c: w.cLen, r: w.rLen, m: w.m, t: w.tn, sentence: true, prec: w.prec}
	if m.preset == presetNLTK {
		for i, t := range s.t {
			s.t[i] = max(t, 1)
		}
	}
	if m.needLast {
		s.last = lastSent{ok: true, seq: seq, hypLen: w.cLen, m5: w.m[4], t5: max(w.t[4], 1)}
	}
	return s
}

// state is the mergeable state of a bleu metric. It is owned by one goroutine.
type state struct {
	m                *Metric
	n                int64 // records (weighted)
	minRefs, maxRefs int64
	c, r             int64
	mm, tt           []int64 // per order: Σ m_n, Σ t_n (NLTK: Σ max(1, t_n))
	sum              core.Sum
	undef            int64 // macro: records whose sentence score is undefined
	last             lastSent
	w                *work
}

func (m *Metric) newState() *state {
	return &state{m: m, mm: make([]int64, m.order), tt: make([]int64, m.order)}
}

// Add implements core.State.
func (s *state) Add(ex *core.Example, weight int64) {
	if weight < 1 || !textinput.Usable(ex) {
		return
	}
	w := s.derive(ex)
	s.fold(w, ex.Seq, weight, s.m.sentenceOutcome(w, ex.Seq))
}

// AddReplicas implements core.ReplicaAdder: the record is tokenized and counted once.
func (s *state) AddReplicas(ex *core.Example, states []core.State, weights []int64) {
	if !textinput.Usable(ex) {
		return
	}
	w := s.derive(ex)
	o := s.m.sentenceOutcome(w, ex.Seq)
	for i, st := range states {
		if weights[i] > 0 {
			st.(*state).fold(w, ex.Seq, weights[i], o)
		}
	}
}

// VectorLen implements core.SumVectorState: records, lengths, matches and totals per
// order; macro averages and the NLTK methods that read the last sentence need more.
func (s *state) VectorLen() int {
	if s.m.macro || s.m.needLast {
		return 0
	}
	return 3 + 2*len(s.mm)
}

// AddVector implements core.SumVectorState.
func (s *state) AddVector(ex *core.Example, dst []int64) bool {
	if !textinput.Usable(ex) {
		return false
	}
	w := s.derive(ex)
	s.fold(w, ex.Seq, 1, outcome{})
	n := len(s.mm)
	dst[0], dst[1], dst[2] = 1, w.cLen, w.rLen
	nltk := s.m.preset == presetNLTK
	for i := range n {
		t := w.t[i]
		if nltk {
			t = max(t, 1)
		}
		dst[3+i], dst[3+n+i] = w.m[i], t
	}
	return true
}

// VectorResult implements core.SumVectorState.
func (s *state) VectorResult(v []int64) core.Result {
	if v[0] == 0 {
		return core.Undefined("no records", nil)
	}
	n := len(s.mm)
	st := stats{c: v[1], r: v[2], m: v[3 : 3+n], t: v[3+n : 3+2*n]}
	o := s.m.final(&st)
	if o.undefined != "" {
		return core.Undefined(o.undefined, nil)
	}
	x := s.m.scaled(o.score)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return core.Undefined(reasonCorrupt, nil)
	}
	return core.Result{Value: x}
}

// derive computes the record's statistics into the state's scratch space.
func (s *state) derive(ex *core.Example) *work {
	if s.w == nil {
		s.w = &work{}
	}
	s.m.sentence(s.w, ex)
	return s.w
}

// sentenceOutcome is the record's sentence score for macro averaging (zero otherwise).
func (m *Metric) sentenceOutcome(w *work, seq uint64) outcome {
	if !m.macro {
		return outcome{}
	}
	st := m.sentenceStats(w, seq)
	return m.final(&st)
}

// fold adds the statistics derived in w, weight times.
func (s *state) fold(w *work, seq uint64, weight int64, o outcome) {
	m := s.m
	if s.n == 0 || int64(w.nrefs) < s.minRefs {
		s.minRefs = int64(w.nrefs)
	}
	s.maxRefs = max(s.maxRefs, int64(w.nrefs))
	s.n += weight
	s.c += weight * w.cLen
	s.r += weight * w.rLen
	nltk := m.preset == presetNLTK
	for i := range s.mm {
		s.mm[i] += weight * w.m[i]
		t := w.t[i]
		if nltk {
			t = max(t, 1)
		}
		s.tt[i] += weight * t
	}
	if m.needLast {
		if cand := (lastSent{ok: true, seq: seq, hypLen: w.cLen, m5: w.m[4], t5: max(w.t[4], 1)}); cand.after(s.last) {
			s.last = cand
		}
	}
	if m.macro {
		if o.undefined != "" {
			s.undef += weight
		} else {
			s.sum.AddWeighted(o.score, weight)
		}
	}
}

// Merge implements core.State.
func (s *state) Merge(other core.State) error {
	o, ok := other.(*state)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	if o.n == 0 {
		return nil
	}
	if o == s { // merging a state into itself: read from a copy
		c := *o
		c.mm, c.tt, c.sum = append([]int64(nil), o.mm...), append([]int64(nil), o.tt...), o.sum.Clone()
		o = &c
	}
	if s.n == 0 || o.minRefs < s.minRefs {
		s.minRefs = o.minRefs
	}
	s.maxRefs = max(s.maxRefs, o.maxRefs)
	s.n += o.n
	s.c += o.c
	s.r += o.r
	for i := range s.mm {
		s.mm[i] += o.mm[i]
		s.tt[i] += o.tt[i]
	}
	s.sum.Merge(&o.sum)
	s.undef += o.undef
	if o.last.after(s.last) {
		s.last = o.last
	}
	return nil
}

// scaled converts a value from the preset's native scale to the configured one.
func (m *Metric) scaled(v float64) float64 {
	native100 := m.preset == presetSacre
	switch {
	case native100 && !m.scale100:
		return v / 100
	case !native100 && m.scale100:
		return v * 100
	}
	return v
}

func (s *state) nrefs() string {
	if s.minRefs != s.maxRefs {
		return "var"
	}
	return fmt.Sprint(s.maxRefs)
}

// Result implements core.State: the value, and nrefs as the signature's data pair once a
// record was scored (sacrebleu's nrefs: the references per record, or var when it varies).
func (s *state) Result() core.Result {
	r := s.result()
	if s.n > 0 {
		r.SigData = "nrefs:" + s.nrefs()
	}
	return r
}

func (s *state) result() core.Result {
	m := s.m
	d := map[string]any{
		"sys_len":   s.c,
		"ref_len":   s.r,
		"counts":    append([]int64(nil), s.mm...),
		"totals":    append([]int64(nil), s.tt...),
		"signature": m.signature(s.nrefs()),
	}
	if s.n == 0 {
		return core.Undefined("no records", d)
	}
	if m.macro {
		if s.undef > 0 {
			return core.Undefined(fmt.Sprintf("%s (%d records)", m.undefinedReason(), s.undef), d)
		}
		v := m.scaled(s.sum.Float() / float64(s.n))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return core.Undefined(reasonCorrupt, d)
		}
		return core.Result{Value: v, Details: d}
	}
	st := stats{c: s.c, r: s.r, m: s.mm, t: s.tt, last: s.last}
	o := m.final(&st)
	prec := make([]float64, len(o.prec))
	for i, p := range o.prec {
		prec[i] = m.scaled(p)
	}
	d["precisions"] = prec
	d["bp"] = o.bp
	if o.undefined != "" {
		return core.Undefined(o.undefined, d)
	}
	v := m.scaled(o.score)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined(reasonCorrupt, d)
	}
	return core.Result{Value: v, Details: d}
}

func (m *Metric) undefinedReason() string {
	if m.preset == presetPaddle {
		return reasonPaddleEmpty
	}
	return reasonNLTK6
}

// stateVersion is the format version of MarshalBinary.
const stateVersion = 1

// MarshalBinary implements core.State.
func (s *state) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	for _, x := range []int64{s.n, s.minRefs, s.maxRefs, s.c, s.r, s.undef} {
		e.Varint(x)
	}
	e.Int64s(s.mm)
	e.Int64s(s.tt)
	e.Sum(&s.sum)
	e.Bool(s.last.ok)
	e.Uvarint(s.last.seq)
	e.Varint(s.last.hypLen)
	e.Varint(s.last.m5)
	e.Varint(s.last.t5)
	return e.B, nil
}

// DecodeState implements core.Metric.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("bleu", stateVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := m.newState()
	var xs [6]int64
	for i := range xs {
		xs[i] = d.Varint()
	}
	s.n, s.minRefs, s.maxRefs, s.c, s.r, s.undef = xs[0], xs[1], xs[2], xs[3], xs[4], xs[5]
	mm, tt := d.Int64s(), d.Int64s()
	s.sum = d.Sum()
	s.last.ok = d.Bool()
	s.last.seq = d.Uvarint()
	s.last.hypLen, s.last.m5, s.last.t5 = d.Varint(), d.Varint(), d.Varint()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(mm) != m.order || len(tt) != m.order {
		return nil, fmt.Errorf("%w: bleu state has %d/%d orders, want %d", core.ErrCorruptState, len(mm), len(tt), m.order)
	}
	copy(s.mm, mm)
	copy(s.tt, tt)
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// validate rejects decoded statistics that no sequence of Adds can produce.
func (s *state) validate() error {
	bad := s.n < 0 || s.c < 0 || s.r < 0 || s.undef < 0 || s.undef > s.n ||
		s.minRefs < 0 || s.minRefs > s.maxRefs || (s.n > 0) != (s.minRefs > 0) ||
		s.last.hypLen < 0 || s.last.m5 < 0 || s.last.t5 < 0 || s.last.m5 > s.last.t5
	for i := range s.mm {
		bad = bad || s.mm[i] < 0 || s.mm[i] > s.tt[i]
		if s.m.preset == presetNLTK {
			bad = bad || s.tt[i] < s.n
		}
	}
	if s.n == 0 {
		bad = bad || s.c != 0 || s.r != 0 || s.maxRefs != 0 || !s.sum.IsZero() || s.last.ok
		for i := range s.mm {
			bad = bad || s.tt[i] != 0
		}
	}
	if bad {
		return fmt.Errorf("%w: inconsistent bleu statistics", core.ErrCorruptState)
	}
	return nil
}

// SentenceScore implements core.SentenceScorer: the preset's BLEU of the record alone, as
// sacrebleu's sentence_score (or ignite's per-sentence score) computes it, on the configured
// scale. It is false for a record Check rejects or whose score is undefined.
func (m *Metric) SentenceScore(ex *core.Example) (float64, bool) {
	if textinput.CheckPair(ex) != nil {
		return 0, false
	}
	w, _ := m.scratch.Get().(*work)
	if w == nil {
		w = &work{}
	}
	defer m.scratch.Put(w)
	m.sentence(w, ex)
	st := m.sentenceStats(w, ex.Seq)
	o := m.final(&st)
	v := m.scaled(o.score)
	if o.undefined != "" || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}
