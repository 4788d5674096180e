package classify

import (
	"sort"

	"github.com/evalstream/evalstream/metrics/core"
)

// MaxClasses bounds class ids and score-vector lengths (ids must be < MaxClasses), so that a
// stray id such as 1e12 cannot make a state or a per-class result allocate without bound.
const MaxClasses = 1 << 20

// denseMax is the largest class count kept as a dense C×C array; beyond it the matrix keeps
// only its non-zero cells in a map (memory proportional to distinct (true, pred) pairs).
const denseMax = 256

// matrix is a confusion matrix M[true][pred] of int64 counts. Its logical size n grows with
// the largest class id (or score-vector width) seen. Small matrices are dense with a row
// stride that grows by doubling; large ones are sparse. Both forms hold the same counts, so
// results and the serialized form do not depend on which one a state happens to use.
type matrix struct {
	n      int
	stride int
	dense  []int64
	sparse map[uint64]int64
}

func cellKey(t, p int) uint64 { return uint64(t)<<32 | uint64(p) }

// grow makes the logical size at least n.
func (m *matrix) grow(n int) {
	if n <= m.n {
		return
	}
	if m.sparse != nil || n <= m.stride {
		m.n = n
		return
	}
	if n > denseMax {
		sp := make(map[uint64]int64)
		m.each(func(t, p int, c int64) { sp[cellKey(t, p)] = c })
		m.sparse, m.dense, m.stride, m.n = sp, nil, 0, n
		return
	}
	m.n = n
	stride := max(n, 2*m.stride, 4)
	stride = min(stride, denseMax)
	d := make([]int64, stride*stride)
	for t := 0; t < m.stride; t++ {
		copy(d[t*stride:t*stride+m.stride], m.dense[t*m.stride:(t+1)*m.stride])
	}
	m.dense, m.stride = d, stride
}

// add counts w at (t, p), growing the matrix as needed.
func (m *matrix) add(t, p int, w int64) {
	if k := max(t, p) + 1; k > m.n {
		m.grow(k)
	}
	if m.sparse != nil {
		m.sparse[cellKey(t, p)] += w
		return
	}
	m.dense[t*m.stride+p] += w
}

// each calls f for every non-zero cell, in no particular order.
func (m *matrix) each(f func(t, p int, c int64)) {
	if m.sparse != nil {
		for k, c := range m.sparse {
			if c != 0 {
				f(int(k>>32), int(uint32(k)), c)
			}
		}
		return
	}
	for t := 0; t < m.n; t++ {
		row := m.dense[t*m.stride : t*m.stride+m.n]
		for p, c := range row {
			if c != 0 {
				f(t, p, c)
			}
		}
	}
}

// merge adds o cell by cell (padding to the larger size).
func (m *matrix) merge(o *matrix) {
	m.grow(o.n)
	o.each(func(t, p int, c int64) { m.add(t, p, c) })
}

// at returns M[t][p].
func (m *matrix) at(t, p int) int64 {
	if t >= m.n || p >= m.n {
		return 0
	}
	if m.sparse != nil {
		return m.sparse[cellKey(t, p)]
	}
	return m.dense[t*m.stride+p]
}

// sums returns, for classes 0..size-1, the diagonal (tp), the column sums (pred) and the row
// sums (true). size must be >= m.n.
func (m *matrix) sums(size int) (tp, pred, tru []int64) {
	tp, pred, tru = make([]int64, size), make([]int64, size), make([]int64, size)
	m.each(func(t, p int, c int64) {
		if t == p {
			tp[t] += c
		}
		pred[p] += c
		tru[t] += c
	})
	return tp, pred, tru
}

// cells returns the non-zero cells in row-major order, for a canonical encoding.
func (m *matrix) cells() [][3]int64 {
	var out [][3]int64
	m.each(func(t, p int, c int64) { out = append(out, [3]int64{int64(t), int64(p), c}) })
	if m.sparse != nil {
		sort.Slice(out, func(i, j int) bool {
			if out[i][0] != out[j][0] {
				return out[i][0] < out[j][0]
			}
			return out[i][1] < out[j][1]
		})
	}
	return out
}

func (m *matrix) encode(e *core.Encoder) {
	e.Uvarint(uint64(m.n))
	cells := m.cells()
	e.Uvarint(uint64(len(cells)))
	for _, c := range cells {
		e.Uvarint(uint64(c[0]))
		e.Uvarint(uint64(c[1]))
		e.Varint(c[2])
	}
}

// decode reads what encode wrote, validating sizes, order and counts; it reports problems
// through d and never allocates more than the input can justify.
func (m *matrix) decode(d *core.Decoder, fail func(string)) {
	n := d.Uvarint()
	if d.Err() != nil {
		return
	}
	if n > MaxClasses {
		fail("class count out of range")
		return
	}
	k := d.Len(3)
	if d.Err() != nil {
		return
	}
	if uint64(k) > n*n {
		fail("too many cells")
		return
	}
	// Allocate for the cells actually present, not for n.
	var prevT, prevP int64 = -1, -1
	for i := 0; i < k; i++ {
		t, p, c := d.Uvarint(), d.Uvarint(), d.Varint()
		if d.Err() != nil {
			return
		}
		if t >= n || p >= n || c <= 0 {
			fail("cell out of range")
			return
		}
		if int64(t) < prevT || (int64(t) == prevT && int64(p) <= prevP) {
			fail("cells out of order")
			return
		}
		prevT, prevP = int64(t), int64(p)
		m.add(int(t), int(p), c)
	}
	m.grow(int(n))
}
