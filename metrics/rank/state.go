package rank

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/evalstream/evalstream/metrics/core"
)

// column holds, for one score column, the count of records of each label per score: exact
// mode keys distinct score values (keys[i] owns counts[i*nlab:(i+1)*nlab]); binned mode has
// one row per threshold bucket (bucket j = scores with exactly j thresholds <= score).
type column struct {
	idx    map[float64]int32
	keys   []float64
	counts []int64
}

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
		} else {
			t.cols[i].idx = map[float64]int32{}
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

// row returns the count row of score x (exact mode), adding it when new.
func (c *column) row(x float64, nlab int) []int64 {
	if x == 0 {
		x = 0 // -0 and +0 are one score, as in numpy's sort and comparisons
	}
	i, ok := c.idx[x]
	if !ok {
		i = int32(len(c.keys))
		c.idx[x] = i
		c.keys = append(c.keys, x)
		c.counts = append(c.counts, make([]int64, nlab)...)
	}
	return c.counts[int(i)*nlab : int(i+1)*nlab]
}

// bucket is the number of thresholds <= x.
func (m *Metric) bucket(x float64) int {
	return sort.Search(len(m.thr), func(i int) bool { return m.thr[i] > x })
}

// State is the mergeable state of auroc and average_precision: one table per score-list
// width seen (more than one is a ragged input, reported by Result). Exact counts are int64,
// so merging is exact and order-independent. A State is not safe for concurrent use.
type State struct {
	m      *Metric
	tables []*table // sorted by width
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
	for c := range t.cols {
		x := smp.scores[c]
		col := &t.cols[c]
		if s.m.thresholds > 0 {
			col.counts[s.m.bucket(x)*t.nlab+smp.label] += weight
		} else {
			col.row(x, t.nlab)[smp.label] += weight
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
		t := s.table(ot.width)
		for c := range ot.cols {
			oc, col := &ot.cols[c], &t.cols[c]
			if s.m.thresholds > 0 {
				for i, n := range oc.counts {
					col.counts[i] += n
				}
				continue
			}
			for i, x := range oc.keys {
				r := col.row(x, t.nlab)
				for j, n := range oc.counts[i*t.nlab : (i+1)*t.nlab] {
					r[j] += n
				}
			}
		}
	}
	return nil
}

// sortedRows returns the column's keys in ascending order with their count rows.
func (c *column) sortedRows(nlab int) ([]float64, [][]int64) {
	order := make([]int, len(c.keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return c.keys[order[a]] < c.keys[order[b]] })
	keys := make([]float64, len(order))
	rows := make([][]int64, len(order))
	for i, j := range order {
		keys[i] = c.keys[j]
		rows[i] = c.counts[j*nlab : (j+1)*nlab]
	}
	return keys, rows
}

// MarshalBinary writes the signature and, per table, the count rows in ascending score
// order: equal states give equal bytes.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	e.Byte(stateVersion)
	e.String(s.m.sig)
	e.Uvarint(uint64(len(s.tables)))
	for _, t := range s.tables {
		e.Uvarint(uint64(t.width))
		for c := range t.cols {
			col := &t.cols[c]
			if s.m.thresholds > 0 {
				e.Int64s(col.counts)
				continue
			}
			keys, rows := col.sortedRows(t.nlab)
			e.Uvarint(uint64(len(keys)))
			for i, x := range keys {
				e.Float64(x)
				for _, n := range rows[i] {
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
	d.Version("rank", stateVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	s := &State{m: m}
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w: rank: %s", core.ErrCorruptState, fmt.Sprintf(format, args...))
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
					r := col.row(x, t.nlab)
					for j := range r {
						r[j] = d.Varint()
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
	return s, nil
}
