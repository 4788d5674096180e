// Package stats turns metric values into decisions: the Poisson bootstrap that gives every
// metric a confidence interval from replicate states which merge like any other state, the
// percentile intervals and the paired tests that compare two systems (statistics.md). It
// imports only metrics/core and is pure: no I/O, no goroutines.
package stats

import (
	"hash/fnv"
	"math"
)

// poissonThresholds[k] is P(X <= k)·2^16 for X ~ Poisson(1), rounded to nearest: a
// uniform 16-bit draw u gives the smallest k with u < poissonThresholds[k]. Sixteen bits
// per draw let one 64-bit hash give four weights; each probability P(X = k) is then off
// by less than 2^-16, far below the Monte Carlo error of any bootstrap. The last entry
// is 2^16, so the search always ends.
var poissonThresholds = func() [10]uint64 {
	var t [10]uint64
	p, cdf := math.Exp(-1), 0.0
	for k := range t {
		cdf += p
		p /= float64(k + 1)
		t[k] = uint64(math.Round(cdf * (1 << 16)))
	}
	t[len(t)-1] = 1 << 16
	return t
}()

// poissonByte[i] is the Poisson(1) draw of every u in [i·256, (i+1)·256) when they all
// give the same one, else 255: one table load settles 97% of draws without a branch that
// could mispredict.
var poissonByte = func() [256]uint8 {
	var t [256]uint8
	for i := range t {
		lo, hi := poissonSlow(uint64(i)<<8), poissonSlow(uint64(i)<<8|0xff)
		t[i] = 255
		if lo == hi {
			t[i] = lo
		}
	}
	return t
}()

func poissonSlow(u uint64) uint8 {
	k := 0
	for u >= poissonThresholds[k] {
		k++
	}
	return uint8(k)
}

// poisson1 maps a uniform 16-bit draw to Poisson(1).
func poisson1(u uint64) uint8 {
	if k := poissonByte[u>>8&0xff]; k != 255 {
		return k
	}
	return poissonSlow(u & 0xffff)
}

// mix64 is splitmix64's finaliser: a bijection of uint64 whose outputs for consecutive
// inputs pass the usual statistical batteries (it is the output function of the SplitMix
// generator), which makes it a counter-based generator.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

const golden = 0x9e3779b97f4a7c15

// PoissonWeights fills dst with the bootstrap weights of the resampling unit for
// replicates 0..len(dst)-1: independent Poisson(1) draws that depend only on (seed, unit,
// replicate), never on the order in which units are seen. That is what makes intervals
// identical whatever the workers, batches or merge order, and what pairs two systems
// scored on the same units with the same seed.
func PoissonWeights(seed, unit uint64, dst []uint8) {
	g := newDraws(seed, unit)
	for b := range dst {
		dst[b] = g.next()
	}
}

// draws generates the weights of one unit, four per 64-bit hash.
type draws struct {
	base, c, h uint64
	left       int
}

func newDraws(seed, unit uint64) draws {
	return draws{base: mix64(mix64(seed+golden) ^ mix64(unit^0x5851f42d4c957f2d))}
}

func (g *draws) next() uint8 {
	if g.left == 0 {
		g.h = mix64(g.base + g.c*golden)
		g.c++
		g.left = 4
	}
	u := g.h & 0xffff
	g.h >>= 16
	g.left--
	return poisson1(u)
}

// sparseWeights writes the replicates with a non-zero weight for the unit to idx and
// their weights to w (both of length at least n+1) and returns how many there are. The
// same draws as PoissonWeights, compacted without a branch per replicate.
func sparseWeights(seed, unit uint64, n int, idx []int32, w []int64) int {
	g := newDraws(seed, unit)
	k := 0
	for b := 0; b < n; b++ {
		x := g.next()
		idx[k], w[k] = int32(b), int64(x)
		k += int((uint(x) + 255) >> 8)
	}
	return k
}

// UnitOfText is the resampling unit of a key given as text (a key field's value).
func UnitOfText(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return mix64(h.Sum64())
}

// UnitOfRow is the resampling unit of the row-th record of a file when no key is set, so
// that line-aligned files of different systems pair up.
func UnitOfRow(row int64) uint64 { return mix64(uint64(row) ^ 0x6a09e667f3bcc909) }

// UnitOfOffset is the resampling unit of a Kafka message without a key.
func UnitOfOffset(partition int, offset int64) uint64 {
	return mix64(mix64(uint64(partition)^0xbb67ae8584caa73b) + uint64(offset))
}
