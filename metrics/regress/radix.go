package regress

import "math"

// Spearman ranks every record, twice, and first puts the records in canonical order: three
// sorts of the whole state, which a comparison sort with a comparison function does at about
// 100 ns a record. A stable LSD radix sort of 64-bit keys does it in a few passes over the
// keys, and its stability gives ties the order the callers need (record order) for free.

const (
	radixBits = 11 // digits of 11 bits: six passes, counts that stay in L1
	radixSize = 1 << radixBits
	radixMask = radixSize - 1
)

// orderedBits maps a float to a key whose unsigned order is the float's order: -0 and +0 get
// different keys, so callers pass one of them only (states store +0). NaN never occurs.
func orderedBits(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// stableOrder returns the permutation that sorts keys ascending, equal keys in index order:
// keys[perm[0]] <= keys[perm[1]] <= ... It overwrites keys and tmp (scratch of len(keys)).
// len(keys) must be below 2^32.
func stableOrder(keys, tmp []uint64) []uint32 {
	n := len(keys)
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	if n < 2 {
		return perm
	}
	// The counts of every digit, in one pass; a digit that is the same for every key
	// (the high bits of small integers, the exponent of values of one magnitude) takes no
	// pass.
	const passes = (64 + radixBits - 1) / radixBits
	var counts [passes][radixSize]uint32
	for _, k := range keys {
		for p := range passes {
			counts[p][k>>(p*radixBits)&radixMask]++
		}
	}
	var tmpPerm []uint32
	for p := range passes {
		c := &counts[p]
		if c[keys[0]>>(p*radixBits)&radixMask] == uint32(n) {
			continue
		}
		if tmpPerm == nil {
			tmpPerm = make([]uint32, n)
		}
		var sum uint32
		for d := range c {
			c[d], sum = sum, sum+c[d]
		}
		shift := uint(p * radixBits)
		for i, k := range keys {
			d := k >> shift & radixMask
			j := c[d]
			c[d]++
			tmp[j] = k
			tmpPerm[j] = perm[i]
		}
		keys, tmp = tmp, keys
		perm, tmpPerm = tmpPerm, perm
	}
	return perm
}

// permute reorders xs in place so that the new xs[k] is the old xs[perm[k]], following the
// permutation's cycles (no copy of xs: Spearman's states are its largest).
func permute[T any](xs []T, perm []uint32) {
	done := make([]uint64, (len(xs)+63)/64)
	for start := range xs {
		if done[start>>6]&(1<<(start&63)) != 0 {
			continue
		}
		first := xs[start]
		k := start
		for {
			done[k>>6] |= 1 << (k & 63)
			src := int(perm[k])
			if src == start {
				xs[k] = first
				break
			}
			xs[k] = xs[src]
			k = src
		}
	}
}
