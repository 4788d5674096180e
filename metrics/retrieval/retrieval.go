// Package retrieval implements the ranked-retrieval metrics `mrr`, `ndcg`, `map`,
// `precision_at_k`, `recall_at_k` and `hit_rate` as trec_eval computes them (through
// pytrec_eval: recip_rank, ndcg / ndcg_cut_k, map / map_cut_k, P_k, recall_k, success_k). See
// /work/shared/spec/metrics.md Part 1b.
//
// One record is one query: `prediction` is the ranking (document ids in rank order, strings
// or integers), and the judgments are either `references` (a list of relevant ids, grade 1)
// or `relevance` (a map id → integer grade). Every query's score depends on that record
// alone, so a state is the number of queries and the exact sum (core.Sum) of their scores:
// merges are exact and results bit-identical however the records were split.
//
// Metrics are immutable and safe for concurrent use; states are not.
package retrieval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
)

// stateVersion is the format version of serialized states.
const stateVersion = 1

// implVersion is part of every signature; bump it when a result changes.
const implVersion = "1"

const compatTrecEval = "trec_eval"

// MaxK bounds the `k` option.
const MaxK = 1 << 30

// maxExactID is the largest integer document id a float64 holds exactly: integer ids arrive
// as list<float> (core widens integer lists), so larger ones may already have been rounded.
const maxExactID = 1 << 53

type kind uint8

const (
	kMRR kind = iota
	kNDCG
	kMAP
	kPrecision
	kRecall
	kHitRate
)

var kindNames = [...]string{"mrr", "ndcg", "map", "precision_at_k", "recall_at_k", "hit_rate"}

// Metric is a configured retrieval metric. It is immutable and safe for concurrent use (its
// scratch pool is).
type Metric struct {
	kind      kind
	k         int   // 0 = the whole ranking
	threshold int64 // trec_eval's relevance_level
	sig       string
	pool      sync.Pool // *scratch
}

var roles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.StringList, core.FloatList}},
	{Name: "references", Field: "references", Accepts: []core.Kind{core.StringList, core.FloatList}},
	{Name: "relevance", Field: "relevance", Accepts: []core.Kind{core.Map}},
}

// NewMRR returns `mrr` (trec_eval recip_rank, on the ranking cut to k when k is set).
func NewMRR(o *core.Options) (core.Metric, error) { return newMetric(kMRR, o) }

// NewNDCG returns `ndcg` (trec_eval ndcg, or ndcg_cut_k with k).
func NewNDCG(o *core.Options) (core.Metric, error) { return newMetric(kNDCG, o) }

// NewMAP returns `map` (trec_eval map, or map_cut_k with k).
func NewMAP(o *core.Options) (core.Metric, error) { return newMetric(kMAP, o) }

// NewPrecisionAtK returns `precision_at_k` (trec_eval P_k; k is required).
func NewPrecisionAtK(o *core.Options) (core.Metric, error) { return newMetric(kPrecision, o) }

// NewRecallAtK returns `recall_at_k` (trec_eval recall_k; k is required).
func NewRecallAtK(o *core.Options) (core.Metric, error) { return newMetric(kRecall, o) }

// NewHitRate returns `hit_rate` (trec_eval success_k; k is required).
func NewHitRate(o *core.Options) (core.Metric, error) { return newMetric(kHitRate, o) }

func newMetric(k kind, o *core.Options) (core.Metric, error) {
	m := &Metric{kind: k}
	compat := o.String("compat", compatTrecEval, compatTrecEval)
	if ks := strings.TrimSpace(o.String("k", "none")); ks != "none" {
		n, err := strconv.ParseInt(ks, 10, 64)
		switch {
		case err != nil:
			o.Problem("k", "must be none or an integer cutoff >= 1, got %q", ks)
		case n < 1 || n > MaxK:
			o.Problem("k", "must be in 1..%d, got %d", MaxK, n)
		default:
			m.k = int(n)
		}
	}
	if m.k == 0 && (k == kPrecision || k == kRecall || k == kHitRate) {
		o.Problem("k", "%s needs k (a cutoff >= 1): trec_eval has no %s without one", kindNames[k], measure(k, 0))
	}
	m.threshold = o.Int("relevance_threshold", 1, 1, math.MaxInt32)
	kName := "none"
	if m.k > 0 {
		kName = strconv.Itoa(m.k)
	}
	m.sig = fmt.Sprintf("type:%s|compat:%s|k:%s|relevance_threshold:%d|version:%s", kindNames[k], compat, kName, m.threshold, implVersion)
	m.pool.New = func() any { return &scratch{judged: map[string]int64{}, seen: map[string]struct{}{}} }
	return m, nil
}

// measure names the trec_eval measure a kind computes at cutoff k (0: none).
func measure(k kind, cut int) string {
	c := strconv.Itoa(cut)
	switch k {
	case kMRR:
		return "recip_rank"
	case kNDCG:
		if cut == 0 {
			return "ndcg"
		}
		return "ndcg_cut_" + c
	case kMAP:
		if cut == 0 {
			return "map"
		}
		return "map_cut_" + c
	case kPrecision:
		return "P_" + c
	case kRecall:
		return "recall_" + c
	}
	return "success_" + c
}

// Roles lists prediction (the ranking), references (relevant ids) and relevance (graded
// judgments); a record gives exactly one of the last two.
func (m *Metric) Roles() []core.Role { return roles }

// Signature identifies the metric and every resolved option.
func (m *Metric) Signature() string { return m.sig }

// NewState returns an empty state.
func (m *Metric) NewState() core.State { return &State{m: m} }

// scratch is the per-call working memory of decode, reused through Metric.pool.
type scratch struct {
	judged map[string]int64    // id → grade; keys alias the record or buf
	seen   map[string]struct{} // ranked ids, for duplicates
	rels   []int64             // grade of each ranked document (0 when unjudged)
	ideal  []int64             // positive grades, for nDCG's ideal ranking
	numRel int64               // judged documents with grade >= threshold
	nJudge int                 // judged documents
}

func (s *scratch) reset() {
	clear(s.judged)
	clear(s.seen)
	s.rels, s.ideal = s.rels[:0], s.ideal[:0]
	s.numRel, s.nJudge = 0, 0
}

func (m *Metric) get() *scratch {
	s := m.pool.Get().(*scratch)
	s.reset()
	return s
}

func (m *Metric) put(s *scratch) {
	s.reset()
	m.pool.Put(s)
}

// Check validates one record.
func (m *Metric) Check(ex *core.Example) error {
	s := m.get()
	defer m.put(s)
	return m.decode(ex, s)
}

func value(ex *core.Example, i int) *core.Value {
	if i < len(ex.Values) {
		return &ex.Values[i]
	}
	return &core.Value{Kind: core.Missing}
}

// intID renders an integer document id given as a float (core widens integer lists) in
// decimal, as a user feeding pytrec_eval would with str(id).
func intID(x float64, field string, i int) (string, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "", core.Reject("non-finite value", field, "%v at index %d", x, i)
	}
	if x != math.Trunc(x) || math.Abs(x) > maxExactID {
		return "", core.Reject("wrong type", field, "document id %v at index %d: need a string or an integer of at most 2^53 in magnitude", x, i)
	}
	return strconv.FormatInt(int64(x), 10), nil
}

// ids calls fn with every document id of a list value (strings as they are, integers in
// decimal). A string id aliases the record: the scratch maps that keep it are cleared before
// the call that filled them returns.
func ids(v *core.Value, field string, fn func(id string, i int) error) error {
	if v.Kind == core.StringList {
		for i, id := range v.Strs {
			if err := fn(id, i); err != nil {
				return err
			}
		}
		return nil
	}
	for i, x := range v.Floats {
		id, err := intID(x, field, i)
		if err != nil {
			return err
		}
		if err := fn(id, i); err != nil {
			return err
		}
	}
	return nil
}

// decode validates a record and fills s: the judgments, then the grade of every ranked
// document. It reports the first problem as a *core.RecordError.
func (m *Metric) decode(ex *core.Example, s *scratch) error {
	pv, rv, gv := value(ex, 0), value(ex, 1), value(ex, 2)
	switch pv.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", "prediction", "need the ranking: a list of document ids in rank order")
	case core.StringList, core.FloatList:
	default:
		return core.Reject("wrong type", "prediction", "need a list of document ids (strings or integers) in rank order, got %s", pv.Kind)
	}
	hasRefs, hasRel := rv.Present(), gv.Present()
	switch {
	case hasRefs && hasRel:
		return core.Reject("ambiguous relevance", "relevance", "both references and relevance are set: give one (references: relevant ids; relevance: a map id → grade)")
	case !hasRefs && !hasRel:
		return core.Reject("missing field", "references", "need references (a list of relevant ids) or relevance (a map id → graded relevance)")
	case hasRefs:
		if rv.Kind != core.StringList && rv.Kind != core.FloatList {
			return core.Reject("wrong type", "references", "need a list of relevant document ids (strings or integers), got %s", rv.Kind)
		}
		// A repeated relevant id is the same judgment twice ({id: 1 for id in refs}).
		err := ids(rv, "references", func(id string, _ int) error {
			if _, ok := s.judged[id]; !ok {
				s.judged[id] = 1
			}
			return nil
		})
		if err != nil {
			return err
		}
	default:
		if gv.Kind != core.Map {
			return core.Reject("wrong type", "relevance", "need a map of document id → integer grade (a JSON object, an Arrow map or list<struct<key, value>>), got %s", gv.Kind)
		}
		for i, id := range gv.Strs {
			g := gv.Floats[i]
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return core.Reject("non-finite value", "relevance", "grade %v of document %q", g, id)
			}
			if g != math.Trunc(g) || math.Abs(g) > math.MaxInt32 {
				return core.Reject("wrong type", "relevance", "grade %v of document %q: trec_eval grades are integers", g, id)
			}
			if _, dup := s.judged[id]; dup {
				return core.Reject("duplicate id", "relevance", "document %q is judged twice", id)
			}
			s.judged[id] = int64(g)
		}
	}
	s.nJudge = len(s.judged)
	for _, g := range s.judged {
		if g >= m.threshold {
			s.numRel++
		}
		if m.kind == kNDCG && g > 0 {
			s.ideal = append(s.ideal, g)
		}
	}
	return ids(pv, "prediction", func(id string, i int) error {
		if _, dup := s.seen[id]; dup {
			return core.Reject("duplicate id", "prediction", "document %q is retrieved twice (at index %d)", id, i)
		}
		s.seen[id] = struct{}{}
		s.rels = append(s.rels, s.judged[id])
		return nil
	})
}

// score is the query's trec_eval measure, computed as trec_eval does it (same operations in
// the same order), or ok false for a query without judged documents, which trec_eval leaves
// out (it evaluates only the queries of the qrels).
func (m *Metric) score(s *scratch) (v float64, ok bool) {
	if s.nJudge == 0 {
		return 0, false
	}
	rels := s.rels
	if m.k > 0 && len(rels) > m.k {
		rels = rels[:m.k]
	}
	switch m.kind {
	case kMRR:
		for i, g := range rels {
			if g >= m.threshold {
				return 1 / float64(i+1), true
			}
		}
		return 0, true
	case kNDCG:
		return m.ndcg(rels, s.ideal), true
	case kMAP:
		var sum float64
		var relSoFar int64
		for i, g := range rels {
			if g >= m.threshold {
				relSoFar++
				sum += float64(relSoFar) / float64(i+1)
			}
		}
		if s.numRel == 0 {
			return 0, true
		}
		return sum / float64(s.numRel), true
	}
	var relRet int64
	for _, g := range rels {
		if g >= m.threshold {
			relRet++
		}
	}
	switch m.kind {
	case kPrecision:
		return float64(relRet) / float64(m.k), true
	case kRecall:
		if s.numRel == 0 {
			return 0, true
		}
		return float64(relRet) / float64(s.numRel), true
	}
	if relRet > 0 {
		return 1, true
	}
	return 0, true
}

// ndcg is trec_eval's ndcg (k = 0) or ndcg_cut_k: the gain of a document is its grade when
// positive (relevance_threshold plays no part), discounted by log2(rank + 1); the ideal ranking
// sorts every positive grade in decreasing order; 0 when the ideal gain is 0.
func (m *Metric) ndcg(rels, ideal []int64) float64 {
	var dcg float64
	for i, g := range rels {
		if g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	slices.Sort(ideal)
	n := len(ideal)
	if m.k > 0 {
		n = min(n, m.k)
	}
	var idcg float64
	for i := range n {
		idcg += float64(ideal[len(ideal)-1-i]) / math.Log2(float64(i+2))
	}
	if idcg > 0 {
		return dcg / idcg
	}
	return 0
}

// SentenceScore is the query's own score; false for a record Check rejects or a query
// without judged documents.
func (m *Metric) SentenceScore(ex *core.Example) (float64, bool) {
	s := m.get()
	defer m.put(s)
	if m.decode(ex, s) != nil {
		return 0, false
	}
	return m.score(s)
}

// State holds the number of judged queries, the number of queries left out (no judged
// document), and the exact sum of the judged queries' scores: about 100 bytes whatever the
// number of queries. It is not safe for concurrent use.
type State struct {
	m        *Metric
	queries  int64
	unjudged int64
	sum      core.Sum
}

// Add folds one query weight times; records Check rejects are ignored.
func (s *State) Add(ex *core.Example, weight int64) {
	if weight <= 0 {
		return
	}
	sc := s.m.get()
	defer s.m.put(sc)
	if s.m.decode(ex, sc) != nil {
		return
	}
	v, ok := s.m.score(sc)
	if !ok {
		s.unjudged += weight
		return
	}
	s.queries += weight
	s.sum.AddWeighted(v, weight)
}

// Merge adds other's counts and sum exactly.
func (s *State) Merge(other core.State) error {
	o, ok := other.(*State)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	s.queries += o.queries
	s.unjudged += o.unjudged
	s.sum.Merge(&o.sum)
	return nil
}

// MarshalBinary writes the version, the signature, the counts and the sum.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	e.Varint(s.queries)
	e.Varint(s.unjudged)
	e.Sum(&s.sum)
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version(kindNames[m.kind], stateVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := &State{m: m}
	s.queries = d.Varint()
	s.unjudged = d.Varint()
	s.sum = d.Sum()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if s.queries < 0 || s.unjudged < 0 {
		return nil, fmt.Errorf("%w: %s: negative count", core.ErrCorruptState, kindNames[m.kind])
	}
	return s, nil
}

// Result is the mean score over the judged queries.
func (s *State) Result() core.Result {
	details := map[string]any{"queries": s.queries, "unjudged_queries": s.unjudged, "measure": measure(s.m.kind, s.m.k)}
	if s.queries == 0 {
		if s.unjudged == 0 {
			return core.Undefined("no records", details)
		}
		return core.Undefined("no judged queries", details)
	}
	v := s.sum.Float() / float64(s.queries)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined("overflow", details)
	}
	return core.Result{Value: v, Details: details}
}
