package pipeline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// Plan is the static shape of a run: the metrics, the slice fields, and the record fields
// every source must project. It is immutable and shared by all workers.
type Plan struct {
	Metrics []*metrics.Metric
	SliceBy []string
	// Fields is the projection sources produce: every role field of every metric, then the
	// slice fields, then Extra, without duplicates.
	Fields []string
	// roleIdx[m][r] is the position in Fields of metric m's role r.
	roleIdx  [][]int
	sliceIdx []int
	// roleFields is how many of Fields some metric reads: they come first.
	roleFields int
	columnar   bool
	// ci is the resampling set-up when the metrics are bootstrapped, with keyIdx the
	// position of its key field in Fields (-1: the record's position is the unit).
	ci     *stats.Config
	keyIdx int
}

// NewPlan computes the field projection for the metrics and slice fields. extra lists other
// fields a stage needs (an id for the examples sink, a window's time field).
func NewPlan(ms []*metrics.Metric, sliceBy []string, extra ...string) *Plan {
	p := &Plan{Metrics: ms, SliceBy: sliceBy}
	pos := map[string]int{}
	idx := func(f string) int {
		if i, ok := pos[f]; ok {
			return i
		}
		pos[f] = len(p.Fields)
		p.Fields = append(p.Fields, f)
		return pos[f]
	}
	for _, m := range ms {
		var ri []int
		for _, f := range m.Fields {
			ri = append(ri, idx(f))
		}
		p.roleIdx = append(p.roleIdx, ri)
	}
	p.roleFields = len(p.Fields)
	p.keyIdx = -1
	for _, m := range ms {
		if b, ok := m.Metric.(interface{ CIConfig() stats.Config }); ok {
			c := b.CIConfig()
			p.ci = &c
			if c.Key != "" {
				extra = append(extra, c.Key)
			}
			break
		}
	}
	for _, f := range sliceBy {
		p.sliceIdx = append(p.sliceIdx, idx(f))
	}
	for _, f := range extra {
		if f != "" {
			idx(f)
		}
	}
	if p.ci != nil && p.ci.Key != "" {
		p.keyIdx = pos[p.ci.Key]
	}
	p.columnar = len(p.sliceIdx) == 0 && len(ms) > 0
	for _, m := range ms {
		if _, ok := m.Metric.(IntColumnsChecker); !ok {
			p.columnar = false
		}
	}
	return p
}

// CI returns the resampling set-up of the plan's metrics, or nil when they have none.
func (p *Plan) CI() *stats.Config { return p.ci }

// FieldIndex returns the position of field f in Fields, or -1.
func (p *Plan) FieldIndex(f string) int {
	for i, x := range p.Fields {
		if x == f {
			return i
		}
	}
	return -1
}

// Accumulator holds the sufficient statistics of a set of records: one state per metric
// overall and per slice, plus record and rejection counts. It is not safe for concurrent use;
// every worker owns one and they are combined with Merge.
type Accumulator struct {
	plan    *Plan
	Records int64
	Skipped int64
	Errors  map[string]int64
	// ErrorExamples holds, per rejection reason, the first MaxErrorExamples rejected records
	// in input order (lowest Seq, then position): the same whatever the worker count or
	// merge order.
	ErrorExamples map[string][]ErrorExample
	States        []core.State
	Slices        map[string]*Slice
	// Covers identifies the inputs folded in (ids from the caller, e.g. input
	// fingerprints), sorted and without duplicates; empty when unknown. Merge refuses
	// accumulators that share an id: their records would be counted twice.
	Covers []string
}

// ErrOverlap is wrapped by Merge when both accumulators cover the same input.
var ErrOverlap = errors.New("states cover the same input")

// SetCovers sets acc.Covers to ids, sorted and without duplicates (ids is not retained).
func (acc *Accumulator) SetCovers(ids []string) {
	c := slices.Clone(ids)
	slices.Sort(c)
	acc.Covers = slices.Compact(c)
}

// Overlap returns the ids that acc and o both cover, sorted.
func (acc *Accumulator) Overlap(o *Accumulator) []string {
	var out []string
	i, j := 0, 0
	for i < len(acc.Covers) && j < len(o.Covers) {
		switch {
		case acc.Covers[i] < o.Covers[j]:
			i++
		case acc.Covers[i] > o.Covers[j]:
			j++
		default:
			out = append(out, acc.Covers[i])
			i++
			j++
		}
	}
	return out
}

// MaxErrorExamples is how many rejected records per reason results name.
const MaxErrorExamples = 5

// ErrorExample locates one rejected record.
type ErrorExample struct {
	Seq uint64
	Pos string // Position.String()
}

func (e ErrorExample) before(o ErrorExample) bool {
	if e.Seq != o.Seq {
		return e.Seq < o.Seq
	}
	return e.Pos < o.Pos
}

// addErrorExamples merges sorted examples into the sorted list of reason, keeping the first
// MaxErrorExamples.
func (acc *Accumulator) addErrorExamples(reason string, add []ErrorExample) {
	cur := acc.ErrorExamples[reason]
	if len(cur) == MaxErrorExamples && !add[0].before(cur[len(cur)-1]) {
		return // the common case once a reason has its examples: nothing earlier arrives
	}
	merged := make([]ErrorExample, 0, min(len(cur)+len(add), MaxErrorExamples))
	i, j := 0, 0
	for len(merged) < MaxErrorExamples && (i < len(cur) || j < len(add)) {
		switch {
		case j == len(add) || (i < len(cur) && !add[j].before(cur[i])):
			if j < len(add) && add[j] == cur[i] {
				j++ // the same record merged twice keeps one entry
			}
			merged = append(merged, cur[i])
			i++
		default:
			merged = append(merged, add[j])
			j++
		}
	}
	acc.ErrorExamples[reason] = merged
}

// Slice is the part of an accumulator for one value of the slice fields.
type Slice struct {
	Records int64
	States  []core.State
}

// NewAccumulator returns an empty accumulator for the plan.
func NewAccumulator(p *Plan) *Accumulator {
	return &Accumulator{plan: p, Errors: map[string]int64{}, ErrorExamples: map[string][]ErrorExample{}, States: newStates(p), Slices: map[string]*Slice{}}
}

func newStates(p *Plan) []core.State {
	s := make([]core.State, len(p.Metrics))
	for i, m := range p.Metrics {
		s[i] = m.NewState()
	}
	return s
}

// Plan returns the accumulator's plan.
func (a *Accumulator) Plan() *Plan { return a.plan }

// Folder turns records into examples and folds them into an accumulator. It owns reusable
// buffers, so each worker has its own; it is not safe for concurrent use.
type Folder struct {
	plan     *Plan
	examples []core.Example
	keyBuf   strings.Builder
	// span[i] is the start of metric i's role fields in a record's Values when they are
	// contiguous and in role order (examples then alias the record), else -1.
	span    []int
	colBufs [][][]int64 // per metric: its role columns, for FoldColumns
	// intBufs[f] holds field f's integers expanded from its dictionary column (intOf) when
	// the batch has no Ints for it; intFrom[f] is the dictionary they came from, within one
	// FoldColumns call.
	intBufs [][]int64
	intFrom []*DictColumn
	// intTab[f] is the integer of each value of intTabOf[f], the dictionary values field f
	// had last: sources share one dictionary's values across its batches (DictColumn), and
	// a dictionary can be far larger than a batch.
	intTab   [][]int64
	intTabOf [][]core.Value
	// pending holds, when DeferDictAdds was called, the combinations of values foldDicts
	// checked and counted but has not added yet, by comboKey: a combination is checked
	// once and added once per run (FlushDicts) instead of once per batch, which matters
	// when a file's dictionaries come in many small row groups.
	pending  map[string]*pendingCombo
	comboBuf []byte
	// dictBufs, hist and dictRec are foldDicts' buffers: the role fields' dictionaries, the
	// joint counts and the values of the record of one combination.
	dictBufs []*DictColumn
	hist     []int64
	dictRec  []core.Value
	memo     core.Memo // shared by the metrics of the record being folded
	unit     uint64    // the resampling unit of the record being folded
}

// NewFolder returns a folder for the plan.
func NewFolder(p *Plan) *Folder {
	f := &Folder{plan: p, examples: make([]core.Example, len(p.Metrics)), span: make([]int, len(p.Metrics))}
	for i := range f.examples {
		f.examples[i].Memo = &f.memo
		f.span[i] = contiguous(p.roleIdx[i])
		if f.span[i] < 0 {
			f.examples[i].Values = make([]core.Value, len(p.roleIdx[i]))
		}
	}
	return f
}

// contiguous returns idx[0] when idx is idx[0], idx[0]+1, ..., else -1.
func contiguous(idx []int) int {
	if len(idx) == 0 {
		return -1
	}
	for k, x := range idx {
		if x != idx[0]+k {
			return -1
		}
	}
	return idx[0]
}

// Rejection says why a record was rejected, and by which metric.
type Rejection struct {
	Reason string
	Metric string // empty when the record could not be decoded at all
	Field  string // the record field at fault
	Err    error
}

func (r *Rejection) Error() string {
	if r.Metric == "" {
		return r.Err.Error()
	}
	return fmt.Sprintf("metric %s: %v", r.Metric, r.Err)
}

// Check validates a record against every metric without changing any state. A record is
// either accepted by all metrics or rejected as a whole, so no metric ever sees half of it.
// Before any metric sees it, every field a metric reads must be finite (CheckFinite), so
// that no format and no metric can score NaN or ±Inf.
func (f *Folder) Check(rec *Record) *Rejection {
	if rec.Err != nil {
		return &Rejection{Reason: rec.Err.Reason, Field: rec.Err.Field, Err: rec.Err}
	}
	if !rec.UTF8Checked {
		// The JSON decoders validate every string they project; Arrow and Parquet strings are
		// validated here, once for all metrics, so that a record gets the same reason from
		// every format.
		for fi := range min(len(rec.Values), len(f.plan.Fields)) {
			if err := checkUTF8(&rec.Values[fi], f.plan.Fields[fi]); err != nil {
				return &Rejection{Reason: err.Reason, Field: err.Field, Err: err}
			}
		}
		rec.UTF8Checked = true
	}
	for fi := range f.plan.roleFields {
		if err := CheckFinite(&rec.Values[fi], f.plan.Fields[fi]); err != nil {
			return &Rejection{Reason: err.Reason, Field: err.Field, Err: err}
		}
	}
	for i, m := range f.plan.Metrics {
		ex := f.example(i, rec)
		if err := m.Check(ex); err != nil {
			reason, field := "invalid record", ""
			if re, ok := err.(*core.RecordError); ok {
				reason = re.Reason
				field = f.roleField(i, re.Field)
				err = &core.RecordError{Reason: re.Reason, Field: field, Detail: re.Detail}
			}
			return &Rejection{Reason: reason, Metric: m.Name, Field: field, Err: err}
		}
	}
	return nil
}

// ReasonNonFinite is the rejection reason of a record holding NaN or ±Inf where a metric
// reads a number.
const ReasonNonFinite = "non-finite value"

// CheckFinite rejects a float or a list of floats holding NaN or ±Inf: no metric accepts
// them, whatever format they came from (JSON 1e999, Arrow and Parquet NaN/±Inf). field names
// the record field, for the message.
func CheckFinite(v *core.Value, field string) *core.RecordError {
	switch v.Kind {
	case core.Float:
		if !isFinite(v.Float) {
			return &core.RecordError{Reason: ReasonNonFinite, Field: field, Detail: formatFloat(v.Float)}
		}
	case core.FloatList:
		for i, x := range v.Floats {
			if !isFinite(x) {
				return &core.RecordError{Reason: ReasonNonFinite, Field: field, Detail: fmt.Sprintf("%s at index %d", formatFloat(x), i)}
			}
		}
	case core.Map:
		for i, x := range v.Floats {
			if !isFinite(x) {
				return &core.RecordError{Reason: ReasonNonFinite, Field: field, Detail: fmt.Sprintf("%s at key %q", formatFloat(x), v.Strs[i])}
			}
		}
	}
	return nil
}

func isFinite(x float64) bool { return x-x == 0 }

// formatFloat renders NaN and ±Inf as JSON readers know them from Python ("NaN",
// "Infinity", "-Infinity").
func formatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// ReasonInvalidUTF8 is the rejection reason of a record holding a string that is not UTF-8.
const ReasonInvalidUTF8 = "invalid utf-8"

func checkUTF8(v *core.Value, field string) *core.RecordError {
	bad := func(what string) *core.RecordError {
		return &core.RecordError{Reason: ReasonInvalidUTF8, Field: field, Detail: what + " is not valid UTF-8"}
	}
	switch v.Kind {
	case core.String:
		if !utf8.ValidString(v.Str) {
			return bad("the string")
		}
	case core.StringList:
		for i, s := range v.Strs {
			if !utf8.ValidString(s) {
				return bad(fmt.Sprintf("the string at index %d", i))
			}
		}
	case core.Map:
		for i, s := range v.Strs {
			if !utf8.ValidString(s) {
				return bad(fmt.Sprintf("the key at index %d", i))
			}
		}
	case core.StringLists:
		for i, l := range v.Lists {
			for j, s := range l {
				if !utf8.ValidString(s) {
					return bad(fmt.Sprintf("the string at [%d][%d]", i, j))
				}
			}
		}
	}
	return nil
}

// roleField maps a role name reported by a metric to the record field it reads.
func (f *Folder) roleField(metric int, role string) string {
	for r, rr := range f.plan.Metrics[metric].Roles() {
		if rr.Name == role {
			return f.plan.Metrics[metric].Fields[r]
		}
	}
	return role
}

func (f *Folder) example(i int, rec *Record) *core.Example {
	ex := &f.examples[i]
	if lo := f.span[i]; lo >= 0 {
		// The metric's fields are adjacent in the record: alias them, no copy.
		hi := lo + len(f.plan.roleIdx[i])
		ex.Values = rec.Values[lo:hi:hi]
	} else {
		for r, fi := range f.plan.roleIdx[i] {
			ex.Values[r] = rec.Values[fi]
		}
	}
	ex.Seq = rec.Seq
	ex.UTF8Checked = rec.UTF8Checked
	ex.Unit = f.unit
	return ex
}

// resamplingUnit is the record's unit for the bootstrap (statistics.md §1): its key field's
// value; without a key, a Kafka message's key (Record.Unit) or partition and offset, or a
// file record's row, so that line-aligned files of different systems pair up.
func (f *Folder) resamplingUnit(rec *Record) uint64 {
	if i := f.plan.keyIdx; i >= 0 {
		b := &f.keyBuf
		b.Reset()
		writeScalar(b, rec.Values[i])
		return stats.UnitOfText(b.String())
	}
	switch {
	case rec.Unit != 0:
		return rec.Unit
	case rec.Pos.Topic != "":
		return stats.UnitOfOffset(rec.Pos.Partition, rec.Pos.Offset)
	}
	return stats.UnitOfRow(rec.Pos.Row)
}

// IntColumnsChecker is implemented by metrics (the core.Metric of a metrics.Metric) that can
// validate a whole batch of integer records at once. CheckIntColumns reports whether Check
// accepts every record i whose value of role r is core.Value{Kind: core.Int, Int: cols[r][i]}.
// It must not retain cols. A metric implementing it also promises that its states fold in
// any order and that Add with weight w has the effect of w Adds: FoldColumns then folds a
// dictionary-encoded batch one record per distinct combination of values, weighted by its
// count (foldDicts).
type IntColumnsChecker interface {
	CheckIntColumns(cols [][]int64) bool
}

// IntColumnsAdder is implemented by states that fold such a batch at once. AddIntColumns has
// exactly the effect of Add, weight times, of every record of the batch (all of them accepted
// by Check), so results do not depend on which path folded a batch. It must not retain cols.
type IntColumnsAdder interface {
	AddIntColumns(cols [][]int64, weight int64)
}

// Columnar reports whether every metric of the plan can fold batches column-wise
// (IntColumnsChecker) and there are no slices, so that FoldColumns may succeed.
func (p *Plan) Columnar() bool { return p.columnar }

// FoldColumns folds a columnar batch into acc when it can: every metric and state supports
// integer columns, every field a metric reads is an integer column, and every record passes
// Check. It reports false, changing nothing, otherwise; the caller then decodes the batch and
// folds its records one by one (which also finds and counts the bad ones).
func (f *Folder) FoldColumns(acc *Accumulator, c *Columns) bool {
	if c == nil || !f.plan.Columnar() {
		return false
	}
	if f.foldDicts(acc, c) {
		return true
	}
	if f.colBufs == nil {
		f.colBufs = make([][][]int64, len(f.plan.Metrics))
		f.intBufs = make([][]int64, len(f.plan.Fields))
		f.intFrom = make([]*DictColumn, len(f.plan.Fields))
		f.intTab = make([][]int64, len(f.plan.Fields))
		f.intTabOf = make([][]core.Value, len(f.plan.Fields))
	}
	clear(f.intFrom)
	for i, m := range f.plan.Metrics {
		if _, ok := acc.States[i].(IntColumnsAdder); !ok {
			return false
		}
		cols := f.colBufs[i][:0]
		for _, fi := range f.plan.roleIdx[i] {
			col := f.intOf(c, fi)
			if col == nil {
				return false
			}
			cols = append(cols, col)
		}
		f.colBufs[i] = cols
		if !m.Metric.(IntColumnsChecker).CheckIntColumns(cols) {
			return false
		}
	}
	for i := range f.plan.Metrics {
		acc.States[i].(IntColumnsAdder).AddIntColumns(f.colBufs[i], 1)
		clear(f.colBufs[i])
	}
	acc.Records += int64(c.N)
	return true
}

// intOf is field fi of c as integers: c.Ints[fi], or else the values of its dictionary
// column expanded into a buffer of the folder (valid until the next FoldColumns) when every
// dictionary value is an integer; nil otherwise, or when a code is out of its dictionary's
// range (the records then decide).
func (f *Folder) intOf(c *Columns, fi int) []int64 {
	if fi < len(c.Ints) && c.Ints[fi] != nil {
		if len(c.Ints[fi]) != c.N {
			return nil
		}
		return c.Ints[fi]
	}
	if fi >= len(c.Dicts) || fi >= len(f.intBufs) || c.Dicts[fi] == nil || len(c.Dicts[fi].Codes) != c.N {
		return nil
	}
	d := c.Dicts[fi]
	if f.intFrom[fi] == d {
		return f.intBufs[fi][:c.N]
	}
	if len(d.Values) == 0 {
		return nil
	}
	if of := f.intTabOf[fi]; len(of) != len(d.Values) || &of[0] != &d.Values[0] {
		vals := f.intTab[fi][:0]
		for _, v := range d.Values {
			if v.Kind != core.Int {
				f.intTabOf[fi] = nil
				return nil
			}
			vals = append(vals, v.Int)
		}
		f.intTab[fi], f.intTabOf[fi] = vals, d.Values
	}
	vals := f.intTab[fi]
	if cap(f.intBufs[fi]) < c.N {
		f.intBufs[fi] = make([]int64, c.N)
	}
	out := f.intBufs[fi][:c.N]
	size := uint32(len(vals))
	for i, x := range d.Codes {
		if uint32(x) >= size {
			return nil
		}
		out[i] = vals[x]
	}
	f.intFrom[fi] = d
	return out
}

// pendingCombo is a combination of values foldDicts has yet to add, weight times.
type pendingCombo struct {
	vals   []core.Value // owned: strings cloned from the batch
	weight int64
}

// maxPending bounds the combinations a folder defers (DeferDictAdds); beyond, foldDicts
// adds at once.
const maxPending = 1 << 14

// DeferDictAdds makes the folder defer the adds of the combinations of dictionary values
// it folds (foldDicts) until FlushDicts, which the caller must then call before it reads
// acc: the states are the same (a weighted Add is that many Adds, in any order, for the
// metrics that fold columns), at a cost per distinct combination per run instead of per
// batch.
func (f *Folder) DeferDictAdds() {
	if f.pending == nil {
		f.pending = map[string]*pendingCombo{}
	}
}

// FlushDicts adds the combinations deferred by DeferDictAdds into acc.
func (f *Folder) FlushDicts(acc *Accumulator) {
	for k, p := range f.pending {
		rec := Record{Values: p.vals, Pos: Position{Row: -1}, UTF8Checked: true}
		f.Add(acc, &rec, p.weight)
		delete(f.pending, k)
	}
}

// comboKey encodes the values of a combination into f.comboBuf; false when one is of a
// kind it does not encode (only the scalars dictionaries hold are).
func (f *Folder) comboKey(vals []core.Value) ([]byte, bool) {
	b := f.comboBuf[:0]
	for i := range vals {
		v := &vals[i]
		b = append(b, byte(v.Kind))
		switch v.Kind {
		case core.Missing, core.Null:
		case core.Int, core.Bool:
			b = binary.LittleEndian.AppendUint64(b, uint64(v.Int))
		case core.Float:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float))
		case core.String:
			b = binary.AppendUvarint(b, uint64(len(v.Str)))
			b = append(b, v.Str...)
		default:
			return nil, false
		}
	}
	f.comboBuf = b
	return b, true
}

// maxDictCells bounds the joint histogram of foldDicts: the product of the dictionary sizes
// of the fields the metrics read. 64Ki int64 cells (512 KiB) stay in a core's L2 cache and
// cover a few hundred classes against a few hundred.
const maxDictCells = 1 << 16

// foldDicts folds a batch whose every role field is a dictionary column (or, the one case
// counts cannot use, fails and changes nothing): it counts each distinct combination of
// codes in one pass, then checks and adds one record per combination present, weighted by
// its count. Folding a record w times is Add with weight w by the metrics' contract, so the
// state is the one record-by-record folding gives, at a cost per distinct combination
// instead of per record. Order-dependent states are excluded by Columnar (only count
// states implement IntColumnsChecker); resampling is excluded here, as each record is its
// own resampling unit. When any combination is rejected, nothing is folded and the caller
// decodes the batch, which finds and counts the bad records one by one.
func (f *Folder) foldDicts(acc *Accumulator, c *Columns) bool {
	if f.plan.ci != nil || c.N == 0 {
		return false
	}
	dicts := f.dictBufs[:0]
	cells := 1
	for fi := range f.plan.roleFields {
		if fi >= len(c.Dicts) || c.Dicts[fi] == nil || len(c.Dicts[fi].Codes) != c.N || len(c.Dicts[fi].Values) == 0 {
			return false
		}
		d := c.Dicts[fi]
		dicts = append(dicts, d)
		if cells *= len(d.Values); cells > maxDictCells {
			return false
		}
	}
	f.dictBufs = dicts
	if cap(f.hist) < cells {
		f.hist = make([]int64, cells)
	}
	hist := f.hist[:cells]
	clear(hist)
	if !jointCounts(hist, dicts, c.N) {
		return false
	}
	if cap(f.dictRec) < len(f.plan.Fields) {
		f.dictRec = make([]core.Value, len(f.plan.Fields))
	}
	vals := f.dictRec[:len(f.plan.Fields)]
	rec := Record{Values: vals, Pos: Position{Row: -1}}
	// Check every combination before adding any, so that a rejection changes nothing.
	for pass := 0; pass < 2; pass++ {
		for cell, n := range hist {
			if n == 0 {
				continue
			}
			clear(vals)
			rest := cell
			for k := len(dicts) - 1; k >= 0; k-- {
				size := len(dicts[k].Values)
				vals[k] = dicts[k].Values[rest%size]
				rest /= size
			}
			rec.UTF8Checked = false
			var key []byte
			keyed := false
			if f.pending != nil {
				key, keyed = f.comboKey(vals)
			}
			if pass == 0 {
				if keyed && f.pending[string(key)] != nil {
					continue // checked in an earlier batch
				}
				if f.Check(&rec) != nil {
					return false
				}
				continue
			}
			if keyed {
				if p := f.pending[string(key)]; p != nil {
					p.weight += n
					continue
				}
				if len(f.pending) < maxPending {
					own := slices.Clone(vals)
					for i := range own {
						own[i].Str = strings.Clone(own[i].Str)
					}
					f.pending[string(key)] = &pendingCombo{vals: own, weight: n}
					continue
				}
			}
			f.Add(acc, &rec, n)
		}
	}
	return true
}

// jointCounts adds to hist the count of each combination of codes of dicts over n records
// (the cell of codes c0, c1, ... is ((c0*len1)+c1)*len2+...). It reports false when a code
// is out of its dictionary's range.
func jointCounts(hist []int64, dicts []*DictColumn, n int) bool {
	switch len(dicts) {
	case 1:
		size := uint32(len(dicts[0].Values))
		for _, x := range dicts[0].Codes[:n] {
			if uint32(x) >= size {
				return false
			}
			hist[x]++
		}
		return true
	case 2:
		// Codes are checked in the counting loop: one pass over the columns.
		a, b := dicts[0].Codes[:n], dicts[1].Codes[:n]
		sa, sb := uint32(len(dicts[0].Values)), uint32(len(dicts[1].Values))
		for i, x := range a {
			y := b[i]
			if uint32(x) >= sa || uint32(y) >= sb {
				return false
			}
			hist[uint32(x)*sb+uint32(y)]++
		}
		return true
	}
	for _, d := range dicts {
		if maxCode(d.Codes[:n]) >= uint32(len(d.Values)) {
			return false
		}
	}
	keys := make([]int32, n)
	copy(keys, dicts[0].Codes[:n])
	for _, d := range dicts[1:] {
		size := int32(len(d.Values))
		for i, x := range d.Codes[:n] {
			keys[i] = keys[i]*size + x
		}
	}
	for _, k := range keys {
		hist[k]++
	}
	return true
}

// maxCode is the largest code as unsigned (a negative code is huge).
func maxCode(codes []int32) uint32 {
	var m uint32
	for _, x := range codes {
		m = max(m, uint32(x))
	}
	return m
}

// Add folds a record that passed Check into acc, weight times.
func (f *Folder) Add(acc *Accumulator, rec *Record, weight int64) {
	f.memo.Next()
	if f.plan.ci != nil {
		f.unit = f.resamplingUnit(rec)
	}
	acc.Records += weight
	var slice *Slice
	if len(f.plan.sliceIdx) > 0 {
		key := f.sliceKey(rec)
		slice = acc.Slices[key]
		if slice == nil {
			slice = &Slice{States: newStates(f.plan)}
			acc.Slices[strings.Clone(key)] = slice
		}
		slice.Records += weight
	}
	for i := range f.plan.Metrics {
		ex := f.example(i, rec)
		acc.States[i].Add(ex, weight)
		if slice != nil {
			slice.States[i].Add(ex, weight)
		}
	}
}

// Reject counts a rejected record and keeps its position when it is among the first
// MaxErrorExamples of its reason.
func (acc *Accumulator) Reject(reason string, rec *Record) {
	acc.Skipped++
	acc.Errors[reason]++
	acc.addErrorExamples(reason, []ErrorExample{{Seq: rec.Seq, Pos: rec.Pos.String()}})
}

func (f *Folder) sliceKey(rec *Record) string {
	b := &f.keyBuf
	b.Reset()
	for k, fi := range f.plan.sliceIdx {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.plan.SliceBy[k])
		b.WriteByte('=')
		writeScalar(b, rec.Values[fi])
	}
	return b.String()
}

func writeScalar(b *strings.Builder, v core.Value) {
	switch v.Kind {
	case core.String:
		b.WriteString(v.Str)
	case core.Int:
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case core.Bool:
		b.WriteString(strconv.FormatBool(v.Int != 0))
	case core.Float:
		b.WriteString(strconv.FormatFloat(v.Float, 'g', -1, 64))
	case core.Missing, core.Null:
		b.WriteString("null")
	case core.StringList:
		b.WriteString(strings.Join(v.Strs, " "))
	default:
		b.WriteString("?")
	}
}

// Merge folds o into acc. Both must come from the same plan (or plans with the same metric
// signatures, as when reading saved states). o is unchanged.
func (acc *Accumulator) Merge(o *Accumulator) error {
	if acc.plan != o.plan {
		if err := SameShape(acc, o); err != nil {
			return err
		}
	}
	if ov := acc.Overlap(o); len(ov) > 0 {
		return fmt.Errorf("%w (input ids %s)", ErrOverlap, strings.Join(ov, ", "))
	}
	if len(o.Covers) > 0 {
		acc.SetCovers(append(acc.Covers, o.Covers...))
	}
	acc.Records += o.Records
	acc.Skipped += o.Skipped
	for k, v := range o.Errors {
		acc.Errors[k] += v
	}
	for k, ex := range o.ErrorExamples {
		if len(ex) > 0 {
			acc.addErrorExamples(k, ex)
		}
	}
	for i := range acc.States {
		if err := acc.States[i].Merge(o.States[i]); err != nil {
			return fmt.Errorf("metric %s: %w", acc.plan.Metrics[i].Name, err)
		}
	}
	keys := make([]string, 0, len(o.Slices))
	for k := range o.Slices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		os := o.Slices[k]
		s := acc.Slices[k]
		if s == nil {
			s = &Slice{States: newStates(acc.plan)}
			acc.Slices[k] = s
		}
		s.Records += os.Records
		for i := range s.States {
			if err := s.States[i].Merge(os.States[i]); err != nil {
				return fmt.Errorf("metric %s, slice %s: %w", acc.plan.Metrics[i].Name, k, err)
			}
		}
	}
	return nil
}
