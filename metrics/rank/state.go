package rank

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// table is the state of the records of one width: binary (width 2: one column, labels 0/1)
// or C ≥ 3 classes (C columns, labels 0..C-1).
type table struct {
	width int
	nlab  int
	cols  []column
}

func (m *Metric) newTable(width int) *table {
	t := &table{width: width, nlab: width, cols: make([]column, ncols(width))}
	for i := range t.cols {
		if m.thresholds > 0 {
			t.cols[i].counts = make([]int64, (m.thresholds+1)*t.nlab)
		}
	}
	return t
}

func ncols(width int) int {
	if width == 2 {
		return 1
	}
	return width
}

// bucket is the number of thresholds <= x. The thresholds are within an ulp of i/(N−1), so
// x·(N−1) lands on the right one or a neighbour.
func (m *Metric) bucket(x float64) int {
	n := len(m.thr)
	if m.thrList {
		return sort.Search(n, func(i int) bool { return m.thr[i] > x })
	}
	j := int(x * float64(n-1))
	j = min(max(j, 0), n-1)
	for j+1 < n && m.thr[j+1] <= x {
		j++
	}
	for j >= 0 && m.thr[j] > x {
		j--
	}
	return j + 1
}

// State is the mergeable state of auroc and average_precision: one table per score-list
// width seen (more than one is a ragged input, reported by Result). Exact counts are int64,
// so merging is exact and order-independent. A State is not safe for concurrent use.
//
// Class names: a state numbers the names it has seen by their sorted (byte, hence code
// point) order, so label j is the j-th name, the meaning scikit-learn gives score column j,
// the same in every state: merges and bytes do not depend on which shard saw which name
// first. A new name shifts the labels after it (at most C times per state). A state that has
// seen both ids and names, or more names than the narrowest score list has columns (binary:
// a third name), has no defined result whatever else it sees: it drops its counts and names,
// keeping the flags and the table widths, which are unions over records.
type State struct {
	m      *Metric
	tables []*table // sorted by width
	seen   uint8    // seenIDs | seenNames | tooMany
	names  []string // sorted; label i is names[i]
}

// The kinds of labels a state has seen (State.seen).
const (
	seenIDs   uint8 = 1 << iota // a record with a class id
	seenNames                   // a record with a class name
	tooMany                     // more names than the narrowest table has columns
)

// note records that the state has seen k and reports whether it still counts.
func (s *State) note(k uint8) bool {
	s.seen |= k
	if s.dropped() {
		if s.names != nil || s.counts() {
			for i, t := range s.tables {
				s.tables[i] = s.m.newTable(t.width)
			}
		}
		s.names = nil
		return false
	}
	return true
}

// counts reports whether any table holds a count (or a pending record).
func (s *State) counts() bool {
	for _, t := range s.tables {
		for c := range t.cols {
			if len(t.cols[c].keys) > 0 || len(t.cols[c].pend) > 0 {
				return true
			}
		}
	}
	return false
}

func (s *State) dropped() bool {
	return s.seen&tooMany != 0 || s.seen&(seenIDs|seenNames) == seenIDs|seenNames
}

// fits notes tooMany when the names outnumber the columns of a table, and reports whether
// the state still counts.
func (s *State) fits() bool {
	if s.dropped() {
		return false
	}
	if len(s.tables) > 0 && len(s.names) > s.tables[0].width {
		return s.note(tooMany)
	}
	return true
}

// nameLabel returns the label of name, adding it when new. It reports false (and drops the
// counts) when the names would outnumber the columns of a table.
func (s *State) nameLabel(name string) (int, bool) {
	i, ok := slices.BinarySearch(s.names, name)
	if ok {
		return i, true
	}
	if len(s.names) >= MaxClasses || (len(s.tables) > 0 && len(s.names) >= s.tables[0].width) {
		s.note(tooMany)
		return 0, false
	}
	s.names = slices.Insert(s.names, i, strings.Clone(name))
	if i < len(s.names)-1 {
		for _, t := range s.tables {
			t.shiftLabels(i)
		}
	}
	return i, true
}

// shiftLabels moves the counts of labels i.. one label up (the last label has no records).
func (t *table) shiftLabels(i int) {
	for c := range t.cols {
		col := &t.cols[c]
		col.compact(t.nlab)
		for r := 0; r < len(col.counts); r += t.nlab {
			row := col.counts[r : r+t.nlab]
			copy(row[i+1:], row[i:t.nlab-1])
			row[i] = 0
		}
	}
}

func (s *State) table(width int) *table {
	i, ok := slices.BinarySearchFunc(s.tables, width, func(t *table, w int) int { return t.width - w })
	if ok {
		return s.tables[i]
	}
	t := s.m.newTable(width)
	s.tables = slices.Insert(s.tables, i, t)
	return t
}

// Add counts one checked record weight times. A record Check rejects is ignored.
func (s *State) Add(ex *core.Example, weight int64) {
	var smp sample
	if weight <= 0 || s.m.decode(ex, &smp) != nil {
		return
	}
	t := s.table(smp.width)
	if smp.named {
		if !s.note(seenNames) || !s.fits() {
			return
		}
		l, ok := s.nameLabel(smp.name)
		if !ok {
			return
		}
		smp.label = l
	} else if !s.note(seenIDs) {
		return
	}
	for c := range t.cols {
		x := smp.score(c)
		col := &t.cols[c]
		if s.m.thresholds > 0 {
			col.counts[s.m.bucket(x)*t.nlab+smp.label] += weight
		} else {
			col.add(x, smp.label, weight, t.nlab)
		}
	}
}

// Merge adds other's counts.
func (s *State) Merge(other core.State) error {
	o, ok := other.(*State)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	for _, ot := range o.tables {
		s.table(ot.width)
	}
	if !s.note(o.seen) || !s.fits() {
		return nil
	}
	var perm []int // o's label → s's label; nil: the same
	names := o.names
	if o == s {
		names = nil
	}
	for i, n := range names {
		l, ok := s.nameLabel(n)
		if !ok {
			return nil
		}
		if l != i && perm == nil {
			perm = make([]int, len(names))
			for j := range perm {
				perm[j] = j
			}
		}
		if perm != nil {
			perm[i] = l
		}
	}
	for _, ot := range o.tables {
		t := s.table(ot.width)
		for c := range ot.cols {
			oc, col := &ot.cols[c], &t.cols[c]
			if s.m.thresholds > 0 {
				for i, n := range oc.counts {
					col.counts[i] += n
				}
				continue
			}
			// Compacting other does not change what it represents.
			oc.compact(t.nlab)
			col.mergeFrom(oc, t.nlab, perm)
		}
	}
	return nil
}

// MarshalBinary writes the signature and, per table, the count rows in ascending score
// order: equal states give equal bytes.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	if s.seen&^seenIDs == 0 {
		e.Byte(stateVersion)
		e.String(s.m.sig)
	} else {
		e.Byte(namedStateVersion)
		e.String(s.m.sig)
		e.Byte(s.seen)
		e.Uvarint(uint64(len(s.names)))
		for _, n := range s.names {
			e.String(n)
		}
	}
	e.Uvarint(uint64(len(s.tables)))
	for _, t := range s.tables {
		e.Uvarint(uint64(t.width))
		for c := range t.cols {
			col := &t.cols[c]
			if s.m.thresholds > 0 {
				e.Int64s(col.counts)
				continue
			}
			col.compact(t.nlab)
			e.Uvarint(uint64(len(col.keys)))
			for i, x := range col.keys {
				e.Float64(x)
				for _, n := range col.counts[i*t.nlab : (i+1)*t.nlab] {
					e.Varint(n)
				}
			}
		}
	}
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary of a metric with the same signature.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	version := d.Byte()
	if d.Err() == nil && version != stateVersion && version != namedStateVersion {
		return nil, fmt.Errorf("%w: rank state format version %d, this build reads versions %d and %d", core.ErrCorruptState, version, stateVersion, namedStateVersion)
	}
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := &State{m: m}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w: rank: %s", core.ErrCorruptState, fmt.Sprintf(format, args...))
	}
	if version == namedStateVersion {
		s.seen = d.Byte()
		nn := d.Len(1)
		for i := 0; i < nn && d.Err() == nil; i++ {
			n := d.String()
			if d.Err() == nil && (n == "" || !utf8.ValidString(n) || (i > 0 && n <= s.names[i-1])) {
				return nil, corrupt("class names not distinct sorted UTF-8")
			}
			s.names = append(s.names, n)
		}
		if d.Err() == nil {
			switch {
			case s.seen&^(seenIDs|seenNames|tooMany) != 0 || s.seen&^seenIDs == 0:
				return nil, corrupt("label kinds %#x", s.seen)
			case s.dropped() && len(s.names) != 0:
				return nil, corrupt("class names in a state that no longer counts")
			case !s.dropped() && (len(s.names) == 0 || len(s.names) > MaxClasses):
				return nil, corrupt("%d class names", len(s.names))
			}
		}
	}
	nt := d.Len(2)
	prev := 0
	for k := 0; k < nt && d.Err() == nil; k++ {
		w := int(d.Uvarint())
		if d.Err() != nil {
			break
		}
		if w < 2 || w > MaxClasses || w <= prev {
			return nil, corrupt("table width %d", w)
		}
		prev = w
		t := m.newTable(w)
		s.tables = append(s.tables, t)
		totals := make([]int64, t.nlab)
		for c := range t.cols {
			col := &t.cols[c]
			sums := make([]int64, t.nlab)
			if m.thresholds > 0 {
				xs := d.Int64s()
				if d.Err() != nil {
					break
				}
				if len(xs) != len(col.counts) {
					return nil, corrupt("%d binned counts, want %d", len(xs), len(col.counts))
				}
				copy(col.counts, xs)
			} else {
				n := d.Len(8 + t.nlab)
				last := math.Inf(-1)
				for i := 0; i < n && d.Err() == nil; i++ {
					x := d.Float64()
					if d.Err() == nil && (!(x > last) || math.IsInf(x, 0) || (x == 0 && math.Signbit(x))) {
						return nil, corrupt("score keys not strictly ascending finite numbers")
					}
					last = x
					col.keys = append(col.keys, x)
					for j := 0; j < t.nlab; j++ {
						col.counts = append(col.counts, d.Varint())
					}
				}
			}
			for i, n := range col.counts {
				if n < 0 {
					return nil, corrupt("negative count")
				}
				sums[i%t.nlab] += n
				if sums[i%t.nlab] < 0 {
					return nil, corrupt("count overflow")
				}
			}
			if c == 0 {
				totals = sums
			} else if !slices.Equal(totals, sums) {
				return nil, corrupt("columns of width %d count different records", w)
			}
		}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if version == namedStateVersion {
		// A state writes format 2 only once it has seen a record (of a name), which made a
		// table.
		if len(s.tables) == 0 {
			return nil, corrupt("class kinds %#x without records", s.seen)
		}
		if !s.dropped() && len(s.names) > s.tables[0].width {
			return nil, corrupt("%d class names with %d columns", len(s.names), s.tables[0].width)
		}
		// Label l is names[l]; a name is added with its first record, so every name has
		// records in some table (a name without records would still decide the sorted
		// order of the names, and Result's one-name rules).
		named := make([]bool, len(s.names))
		for _, t := range s.tables {
			for l, n := range labelTotals(t) {
				if n != 0 && l >= len(s.names) {
					return nil, corrupt("records of label %d with %d class names", l, len(s.names))
				}
				if n != 0 {
					named[l] = true
				}
			}
		}
		if i := slices.Index(named, false); i >= 0 {
			return nil, corrupt("class name %q without records", s.names[i])
		}
	}
	if version == stateVersion && len(s.tables) > 0 {
		// Format 1 holds ids only: the state has seen ids, as it had in memory, so that a
		// merge with a named state is "mixed class ids and names" whether or not either
		// state went through its bytes.
		s.seen = seenIDs
	}
	return s, nil
}
