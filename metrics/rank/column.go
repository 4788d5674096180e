package rank

import "math"

// column holds, for one score column, the count of records of each label per score.
//
// Exact mode: keys are the distinct scores seen, ascending, and keys[i] owns
// counts[i*nlab:(i+1)*nlab]; records added since the last compaction wait in pend, and are
// sorted (radix sort on the score bits) and merged in when pend outgrows the compacted
// part, so adding costs amortised O(1) and memory stays proportional to the distinct
// scores. Compaction never changes what the column represents.
//
// Binned mode: counts has one row per threshold bucket (bucket j = scores with exactly j
// thresholds <= score); keys and pend are unused.
type column struct {
	keys   []float64
	counts []int64
	pend   []entry
	buf    []entry // radix sort scratch, kept to spare an allocation per compaction
}

// entry is a pending record: key is the score's sortable bits, lw is weight<<labelBits | label.
type entry struct{ key, lw uint64 }

const (
	labelBits = 10 // MaxClasses = 1 << labelBits
	maxWeight = 1 << (64 - labelBits - 1)
	minPend   = 1 << 15
)

// sortable maps a finite float64 to a uint64 with the same order (-0 and +0 equal).
func sortable(x float64) uint64 {
	if x == 0 {
		x = 0
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func unsortable(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// add queues weight records of label with score x.
func (c *column) add(x float64, label int, weight int64, nlab int) {
	k := sortable(x)
	for weight > 0 {
		w := min(weight, maxWeight)
		weight -= w
		c.pend = append(c.pend, entry{k, uint64(w)<<labelBits | uint64(label)})
	}
	if len(c.pend) >= max(minPend, len(c.keys)) {
		c.compact(nlab)
	}
}

// compact merges the pending records into keys and counts.
func (c *column) compact(nlab int) {
	if len(c.pend) == 0 {
		return
	}
	if cap(c.buf) < len(c.pend) {
		c.buf = make([]entry, len(c.pend))
	}
	radixSort(c.pend, c.buf[:len(c.pend)])
	keys := make([]float64, 0, len(c.keys)+len(c.pend))
	counts := make([]int64, 0, cap(keys)*nlab)
	i := 0
	p := c.pend
	for i < len(c.keys) || len(p) > 0 {
		var k uint64
		fromOld := false
		if i < len(c.keys) {
			k = sortable(c.keys[i])
			fromOld = true
		}
		if len(p) > 0 && (!fromOld || p[0].key < k) {
			k = p[0].key
			fromOld = false
		}
		keys = append(keys, unsortable(k))
		base := len(counts)
		if fromOld {
			counts = append(counts, c.counts[i*nlab:(i+1)*nlab]...)
			i++
		} else {
			counts = append(counts, make([]int64, nlab)...)
		}
		for len(p) > 0 && p[0].key == k {
			counts[base+int(p[0].lw&(1<<labelBits-1))] += int64(p[0].lw >> labelBits)
			p = p[1:]
		}
	}
	c.keys, c.counts = keys, counts
	c.pend = c.pend[:0]
}

// mergeFrom adds the compacted rows of o (whose pend must be empty) into c, o's label l
// counted as perm[l] (nil: as l).
func (c *column) mergeFrom(o *column, nlab int, perm []int) {
	for i, x := range o.keys {
		row := o.counts[i*nlab : (i+1)*nlab]
		for l, n := range row {
			if n != 0 {
				if perm != nil {
					l = perm[l]
				}
				c.add(x, l, n, nlab)
			}
		}
	}
	c.compact(nlab)
}

// radixSort sorts entries by key, using buf (len(a) entries) as scratch (LSD, 16-bit digits, skipping digits that are all equal:
// float32-quantised scores have 29 zero low bits).
func radixSort(a, buf []entry) {
	if len(a) < 64 {
		for i := 1; i < len(a); i++ {
			for j := i; j > 0 && a[j].key < a[j-1].key; j-- {
				a[j], a[j-1] = a[j-1], a[j]
			}
		}
		return
	}
	src, dst := a, buf
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, e := range src {
			count[(e.key>>shift)&0xffff]++
		}
		if count[(src[0].key>>shift)&0xffff] == len(src) {
			continue
		}
		pos := 0
		for d, n := range count {
			count[d] = pos
			pos += n
		}
		for _, e := range src {
			d := (e.key >> shift) & 0xffff
			dst[count[d]] = e
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}
