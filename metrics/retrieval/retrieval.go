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
// pool of decoding scratch is).
type Metric struct {
	kind      kind
	k         int   // 0 = the whole ranking
	threshold int64 // trec_eval's relevance_level
	sig       string
	pool      sync.Pool // *query, for calls without a core.Memo
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
	m.sig = core.NewSig(kindNames[k], compat).Add("k", kName).Int("relevance_threshold", m.threshold).String()
	m.pool.New = func() any { return newQuery() }
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

// get returns a query from the pool, for a call that decodes a record without a memo.
func (m *Metric) get() *query { return m.pool.Get().(*query) }

func (m *Metric) put(q *query) {
	q.release()
	m.pool.Put(q)
}

// Check validates one record.
func (m *Metric) Check(ex *core.Example) error {
	q, pooled, err := m.decoded(ex)
	if pooled {
		m.put(q)
	}
	return err
}

// score is the query's trec_eval measure, computed as trec_eval does it (same operations in
// the same order), or ok false for a query without judged documents, which trec_eval leaves
// out (it evaluates only the queries of the qrels).
func (m *Metric) score(q *query) (v float64, ok bool) {
	if len(q.grades) == 0 {
		return 0, false
	}
	var numRel int64
	for _, g := range q.grades {
		if g >= m.threshold {
			numRel++
		}
	}
	rels := q.rels
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
		q.ideal = q.ideal[:0]
		for _, g := range q.grades {
			if g > 0 {
				q.ideal = append(q.ideal, g)
			}
		}
		return m.ndcg(rels, q.ideal), true
	case kMAP:
		var sum float64
		var relSoFar int64
		for i, g := range rels {
			if g >= m.threshold {
				relSoFar++
				sum += float64(relSoFar) / float64(i+1)
			}
		}
		if numRel == 0 {
			return 0, true
		}
		return sum / float64(numRel), true
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
		if numRel == 0 {
			return 0, true
		}
		return float64(relRet) / float64(numRel), true
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
	q := m.get()
	defer m.put(q)
	if q.decode(ex) != nil {
		return 0, false
	}
	return m.score(q)
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
	q, pooled, err := s.m.decoded(ex)
	if err != nil {
		return
	}
	if pooled {
		defer s.m.put(q)
	}
	v, ok := s.m.score(q)
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
