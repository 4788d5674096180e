// Package ter is sacreBLEU's translation edit rate (TER, Snover et al. 2006) as sacrebleu
// 2.6.0 computes it: its TercomTokenizer, its beam edit distance and its greedy shift search
// with the same limits and tie-breaking, the best edits over the references and the average
// reference length. The corpus value is Σ edits / Σ average reference length.
package ter

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

const stateVersion = 1

// Metric is a configured ter metric. It is immutable and safe for concurrent use.
type Metric struct {
	text     textOptions
	scale100 bool
	sig      string
	memoKey  string    // names the text options in a core.Memo
	scratch  sync.Pool // *work, for SentenceScore
}

var (
	_ core.Metric         = (*Metric)(nil)
	_ core.SentenceScorer = (*Metric)(nil)
)

// New builds a ter metric from its options (see Docs). It records problems in o; the caller
// reports them with o.Err().
func New(o *core.Options) (core.Metric, error) {
	m := &Metric{}
	o.String("compat", "sacrebleu", "sacrebleu")
	m.text.normalized = o.Bool("normalized", false)
	m.text.noPunct = o.Bool("no_punct", false)
	m.text.asian = o.Bool("asian_support", false)
	m.text.caseSensitive = o.Bool("case_sensitive", false)
	m.scale100 = o.String("scale", "1", "1", "100") == "100"
	m.sig = m.signature("")
	m.memoKey = fmt.Sprintf("ter|%v|%v|%v|%v", m.text.normalized, m.text.noPunct, m.text.asian, m.text.caseSensitive)
	return m, nil
}

// signature is the signature (core.Sig) with sacrebleu's TER keys in its order (case, tok,
// norm, punct, asian), then the scale; nrefs, when not empty, is the data pair that results
// show after compat, where sacrebleu puts it.
func (m *Metric) signature(nrefs string) string {
	s := core.NewSig("ter", "sacrebleu")
	if nrefs != "" {
		s.Add("nrefs", nrefs)
	}
	caseStr := "lc"
	if m.text.caseSensitive {
		caseStr = "mixed"
	}
	scale := "1"
	if m.scale100 {
		scale = "100"
	}
	s.Add("case", caseStr).Add("tok", "tercom").YesNo("norm", m.text.normalized).YesNo("punct", !m.text.noPunct).YesNo("asian", m.text.asian)
	return s.Add("scale", scale).String()
}

// Signature implements core.Metric.
func (m *Metric) Signature() string { return m.sig }

var roles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.String, core.StringList}},
	{Name: "references", Field: "references", Required: true, Accepts: []core.Kind{core.String, core.StringList, core.StringLists}},
}

// Roles implements core.Metric: prediction, then references.
func (m *Metric) Roles() []core.Role { return append([]core.Role(nil), roles...) }

// Check implements core.Metric.
func (m *Metric) Check(ex *core.Example) error { return textinput.CheckPair(ex) }

// NewState implements core.Metric.
func (m *Metric) NewState() core.State { return &state{m: m} }

// work is scratch space for scoring one record; it keeps no data between records.
type work struct {
	ids   map[string]int32
	toks  []string
	hyp   []int32
	refs  [][]int32
	align aligner
}

func newWork() *work { return &work{ids: map[string]int32{}} }

// raw returns the text of a prediction (j < 0) or of reference j; token lists are joined
// with spaces and then go through the tokenizer like text.
func raw(v core.Value, j int) string {
	switch v.Kind {
	case core.String:
		return v.Str
	case core.StringList:
		if j < 0 {
			return strings.Join(v.Strs, " ")
		}
		return v.Strs[j]
	case core.StringLists:
		return strings.Join(v.Lists[j], " ")
	}
	return ""
}

// words appends the token ids of s, preprocessed as sacrebleu does, to dst.
func (m *Metric) words(w *work, dst []int32, s string) []int32 {
	w.toks = tokenize.PySplit(m.text.prepare(s))
	for _, t := range w.toks {
		id, ok := w.ids[t]
		if !ok {
			id = int32(len(w.ids))
			w.ids[t] = id
		}
		dst = append(dst, id)
	}
	clear(w.toks)
	return dst
}

// segment is TER._compute_segment_statistics of one usable record: the fewest edits over
// the references, and the sum of the reference lengths (the average is that over nrefs).
func (m *Metric) segment(w *work, ex *core.Example) (edits, refLen int64, nrefs int, err error) {
	clear(w.ids)
	w.hyp = m.words(w, w.hyp[:0], raw(ex.Values[0], -1))
	rv := ex.Values[1]
	nrefs = textinput.Count(rv)
	for len(w.refs) < nrefs {
		w.refs = append(w.refs, nil)
	}
	best := int64(math.MaxInt64)
	for j := 0; j < nrefs; j++ {
		ref := raw(rv, j)
		if m.text.normalized {
			// sacrebleu preprocesses references twice (TER._extract_reference_info runs
			// _preprocess_segment on what Metric._cache_references already preprocessed);
			// normalization is not idempotent ("cat's\u3000" only splits the second time).
			// Lowercasing and punctuation removal are, so only the normalized path repeats.
			ref = strings.Join(tokenize.PySplit(m.text.prepare(ref)), " ")
		}
		w.refs[j] = m.words(w, w.refs[j][:0], ref)
		e, err := w.align.edits(w.hyp, w.refs[j])
		if err != nil {
			return 0, 0, 0, err
		}
		refLen += int64(len(w.refs[j]))
		best = min(best, e)
	}
	return best, refLen, nrefs, nil
}

// segmentResult is what memoSegment stores in a core.Memo: the statistics of one record.
type segmentResult struct {
	pred, refs    core.ValueID
	edits, refLen int64
	nrefs         int
	err           error
}

// memoSegment is segment, or its result for the same values of the current record when a
// ter metric with the same text options computed it (a record folded into the overall state
// and into its slice's is scored once).
func (m *Metric) memoSegment(w *work, ex *core.Example) (edits, refLen int64, nrefs int, err error) {
	pred, refs := core.Identify(ex.Values[0]), core.Identify(ex.Values[1])
	v, current := ex.Memo.Lookup(m.memoKey)
	r, _ := v.(*segmentResult)
	if current && r != nil && r.pred == pred && r.refs == refs {
		return r.edits, r.refLen, r.nrefs, r.err
	}
	edits, refLen, nrefs, err = m.segment(w, ex)
	if ex.Memo != nil {
		if r == nil {
			r = new(segmentResult)
		}
		*r = segmentResult{pred: pred, refs: refs, edits: edits, refLen: refLen, nrefs: nrefs, err: err}
		ex.Memo.Store(m.memoKey, r)
	}
	return edits, refLen, nrefs, err
}

// finalScore is TER._compute_score_from_stats on the 0..1 scale.
func finalScore(edits, refLen float64) float64 {
	switch {
	case refLen > 0:
		return edits / refLen
	case edits > 0:
		return 1
	}
	return 0
}

func (m *Metric) scaled(v float64) float64 {
	if m.scale100 {
		return 100 * v
	}
	return v
}

// SentenceScore implements core.SentenceScorer: sacrebleu's TER.sentence_score of the record
// on the configured scale.
func (m *Metric) SentenceScore(ex *core.Example) (float64, bool) {
	if m.Check(ex) != nil {
		return 0, false
	}
	w, _ := m.scratch.Get().(*work)
	if w == nil {
		w = newWork()
	}
	defer m.scratch.Put(w)
	edits, refLen, nrefs, err := m.segment(w, ex)
	if err != nil {
		return 0, false
	}
	return m.scaled(finalScore(float64(edits), float64(refLen)/float64(nrefs))), true
}

// state is the mergeable state of a ter metric: Σ edits (an integer) and the exact sum of
// the per-record average reference lengths. It is owned by one goroutine.
type state struct {
	m                *Metric
	n                int64 // records (weighted)
	minRefs, maxRefs int64
	edits            int64
	refLen           core.Sum
	failed           int64 // records whose alignment failed (see errBeam)
	w                *work
}

// Add implements core.State.
func (s *state) Add(ex *core.Example, weight int64) {
	if weight < 1 || !textinput.Usable(ex) {
		return
	}
	if s.w == nil {
		s.w = newWork()
	}
	edits, refLen, nr, err := s.m.memoSegment(s.w, ex)
	if s.n == 0 || int64(nr) < s.minRefs {
		s.minRefs = int64(nr)
	}
	s.maxRefs = max(s.maxRefs, int64(nr))
	s.n += weight
	if err != nil {
		s.failed += weight
		return
	}
	s.edits += weight * edits
	// sacrebleu's avg_ref_len = ref_lengths / len(ref_words), a float division.
	s.refLen.AddWeighted(float64(refLen)/float64(nr), weight)
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
		c.refLen = o.refLen.Clone()
		o = &c
	}
	if s.n == 0 || o.minRefs < s.minRefs {
		s.minRefs = o.minRefs
	}
	s.maxRefs = max(s.maxRefs, o.maxRefs)
	s.n += o.n
	s.edits += o.edits
	s.failed += o.failed
	s.refLen.Merge(&o.refLen)
	return nil
}

// Result implements core.State: the value, and nrefs as the signature's data pair once a
// record was scored (sacrebleu's nrefs: the references per record, or var when it varies).
func (s *state) Result() core.Result {
	r := s.result()
	if s.n > 0 {
		r.SigData = "nrefs:" + nrefsOf(s.minRefs, s.maxRefs)
	}
	return r
}

func (s *state) result() core.Result {
	m := s.m
	nrefs := "var"
	if s.minRefs == s.maxRefs {
		nrefs = fmt.Sprint(s.maxRefs)
	}
	refLen := s.refLen.Float()
	d := map[string]any{"num_edits": s.edits, "ref_length": refLen, "signature": m.signature(nrefs)}
	switch {
	case s.n == 0:
		return core.Undefined("no records", d)
	case s.failed > 0:
		d["failed_records"] = s.failed
		return core.Undefined("alignment failed", d)
	}
	v := m.scaled(finalScore(float64(s.edits), refLen))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined("invalid statistics", d)
	}
	return core.Result{Value: v, Details: d}
}

// MarshalBinary implements core.State.
func (s *state) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	for _, x := range []int64{s.n, s.minRefs, s.maxRefs, s.edits, s.failed} {
		e.Varint(x)
	}
	e.Sum(&s.refLen)
	return e.B, nil
}

// DecodeState implements core.Metric.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("ter", stateVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := &state{m: m}
	s.n, s.minRefs, s.maxRefs, s.edits, s.failed = d.Varint(), d.Varint(), d.Varint(), d.Varint(), d.Varint()
	s.refLen = d.Sum()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	rl := s.refLen.Float()
	bad := s.n < 0 || s.minRefs < 0 || s.minRefs > s.maxRefs || (s.n > 0) != (s.minRefs > 0) ||
		s.edits < 0 || s.failed < 0 || s.failed > s.n || math.IsNaN(rl) || math.IsInf(rl, 0) || rl < 0 ||
		s.n == 0 && (s.edits != 0 || rl != 0)
	if bad {
		return nil, fmt.Errorf("%w: inconsistent ter statistics", core.ErrCorruptState)
	}
	return s, nil
}

// nrefsOf is sacrebleu's nrefs of records with lo to hi references: the count, or var when
// it varies.
func nrefsOf(lo, hi int64) string {
	if lo != hi {
		return "var"
	}
	return strconv.FormatInt(hi, 10)
}
