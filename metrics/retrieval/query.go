package retrieval

import (
	"math"
	"math/bits"
	"strconv"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
)

// query is a decoded record: the grade of every ranked document (0 when unjudged) and of
// every judged document. Its memory is reused from record to record, through Metric.pool or a
// core.Memo. A query is not safe for concurrent use.
type query struct {
	valid  bool       // decoded from the record at seq and src without error
	seq    uint64     // Example.Seq of that record
	src    [3]valueID // the memory of its values
	rels   []int64    // per ranked document, in rank order
	grades []int64    // per judged document (unique ids)
	ideal  []int64    // nDCG's scratch: the positive grades

	// An open-addressing set of the record's ids: lookups of a query's tens of ids cost a
	// fraction of a Go map's inserts and clears. keys may alias the record: release drops
	// them before the memory is reused.
	keys   []string
	ranked []bool  // keys[i] was seen in the ranking
	table  []int32 // index into keys + 1; 0 is empty
	mask   uint64
}

func newQuery() *query { return new(query) }

// hashString mixes a string 8 bytes at a time (document ids are short: a call into
// hash/maphash costs more than the hashing). It is fixed, not seeded: ids are the user's own
// data, so there is no adversary to randomize against.
func hashString(s string) uint64 {
	h := uint64(len(s)) * 0x9e3779b97f4a7c15
	for len(s) >= 8 {
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ x) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
		s = s[8:]
	}
	var t uint64
	for i := 0; i < len(s); i++ {
		t = t<<8 | uint64(s[i])
	}
	h = (h ^ t) * 0x94d049bb133111eb
	return h ^ h>>29
}

// valueID identifies a record value by the memory it points at, so that a memoized query is
// used only for the values it was decoded from.
type valueID struct {
	kind   core.Kind
	strs   *string
	floats *float64
	n      int
}

func idOf(v *core.Value) valueID {
	return valueID{kind: v.Kind, strs: unsafe.SliceData(v.Strs), floats: unsafe.SliceData(v.Floats), n: len(v.Strs) + len(v.Floats)<<32}
}

// release drops the references to the record's memory.
func (q *query) release() {
	clear(q.keys)
	q.keys = q.keys[:0]
	q.valid, q.src = false, [3]valueID{}
}

// memoKey names the decoded query in a core.Memo; a query depends on the record alone.
const memoKey = "retrieval.query"

// decoded returns the record's query, decoded once per record for every retrieval metric
// checking and folding it (through ex.Memo), or an error when the record does not decode. When
// pooled, the caller returns the query with m.put when done.
//
// A memoized query is used for a record with the same Seq (the record's unique position in
// the input) and values at the same memory: the pipeline checks a record with every metric,
// then folds it into every state, before the next, so Check and Add of all the retrieval
// metrics of a record decode it once.
func (m *Metric) decoded(ex *core.Example) (q *query, pooled bool, err error) {
	if ex.Memo == nil {
		q = m.get()
		if err := q.decode(ex); err != nil {
			m.put(q)
			return nil, false, err
		}
		return q, true, nil
	}
	var src [3]valueID
	for i := range src {
		src[i] = idOf(value(ex, i))
	}
	v, _ := ex.Memo.Lookup(memoKey)
	q, _ = v.(*query)
	if q != nil && q.valid && q.seq == ex.Seq && q.src == src {
		return q, false, nil
	}
	if q == nil {
		q = newQuery()
		ex.Memo.Store(memoKey, q)
	}
	if err := q.decode(ex); err != nil {
		q.release()
		return nil, false, err
	}
	q.valid, q.seq, q.src = true, ex.Seq, src
	return q, false, nil
}

func value(ex *core.Example, i int) *core.Value {
	if i < len(ex.Values) {
		return &ex.Values[i]
	}
	return &core.Value{Kind: core.Missing}
}

// reset prepares the set for n ids.
func (q *query) reset(n int) {
	q.release()
	q.rels, q.grades, q.ranked = q.rels[:0], q.grades[:0], q.ranked[:0]
	size := max(16, 1<<bits.Len(uint(2*n)))
	if cap(q.table) < size {
		q.table = make([]int32, size)
	} else {
		q.table = q.table[:size]
		clear(q.table)
	}
	q.mask = uint64(size - 1)
}

// insert adds id to the set; it returns its index and whether it was new.
func (q *query) insert(id string) (int, bool) {
	for i := hashString(id) & q.mask; ; i = (i + 1) & q.mask {
		k := q.table[i]
		if k == 0 {
			q.keys = append(q.keys, id)
			q.ranked = append(q.ranked, false)
			q.table[i] = int32(len(q.keys))
			return len(q.keys) - 1, true
		}
		if q.keys[k-1] == id {
			return int(k - 1), false
		}
	}
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
// decimal).
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

// decode validates a record and fills q: the judgments, then the grade of every ranked
// document. It reports the first problem as a *core.RecordError.
func (q *query) decode(ex *core.Example) error {
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
	}
	n := len(pv.Strs) + len(pv.Floats)
	if hasRefs {
		if rv.Kind != core.StringList && rv.Kind != core.FloatList {
			return core.Reject("wrong type", "references", "need a list of relevant document ids (strings or integers), got %s", rv.Kind)
		}
		q.reset(n + len(rv.Strs) + len(rv.Floats))
		// A repeated relevant id is the same judgment twice ({id: 1 for id in refs}).
		err := ids(rv, "references", func(id string, _ int) error {
			if _, isNew := q.insert(id); isNew {
				q.grades = append(q.grades, 1)
			}
			return nil
		})
		if err != nil {
			return err
		}
	} else {
		if gv.Kind != core.Map {
			return core.Reject("wrong type", "relevance", "need a map of document id → integer grade (a JSON object, an Arrow map, list<struct<key, value>> or a struct of numbers), got %s", gv.Kind)
		}
		q.reset(n + len(gv.Strs))
		for i, id := range gv.Strs {
			g := gv.Floats[i]
			if math.IsNaN(g) || math.IsInf(g, 0) {
				return core.Reject("non-finite value", "relevance", "grade %v of document %q", g, id)
			}
			if g != math.Trunc(g) || math.Abs(g) > math.MaxInt32 {
				return core.Reject("wrong type", "relevance", "grade %v of document %q: trec_eval grades are integers", g, id)
			}
			if _, isNew := q.insert(id); !isNew {
				return core.Reject("duplicate id", "relevance", "document %q is judged twice", id)
			}
			q.grades = append(q.grades, int64(g))
		}
	}
	judged := len(q.keys)
	if pv.Kind == core.StringList {
		for i, id := range pv.Strs {
			if err := q.rank(id, i, judged); err != nil {
				return err
			}
		}
		return nil
	}
	return ids(pv, "prediction", func(id string, i int) error { return q.rank(id, i, judged) })
}

// rank adds the ranked document id at index i; the first judged keys are judged documents.
func (q *query) rank(id string, i, judged int) error {
	k, isNew := q.insert(id)
	if !isNew && q.ranked[k] {
		return core.Reject("duplicate id", "prediction", "document %q is retrieved twice (the second time at index %d)", id, i)
	}
	q.ranked[k] = true
	var g int64
	if k < judged {
		g = q.grades[k]
	}
	q.rels = append(q.rels, g)
	return nil
}
