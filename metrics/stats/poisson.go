// Package stats turns metric values into decisions: the Poisson bootstrap that gives every
// metric a confidence interval from replicate states which merge like any other state, the
// percentile intervals and the paired tests that compare two systems (statistics.md). It
// imports only metrics/core and is pure: no I/O, no goroutines.
package stats

import (
	"hash/fnv"
	"math"
)

// poissonThresholds[k] is P(X <= k)·2^32 for X ~ Poisson(1), rounded down: a uniform 32-bit
// draw u gives the smallest k with u < poissonThresholds[k]. The last entry is 2^32, so
// the search always ends (P(X > 12) < 2^-32 is folded into 12).
var poissonThresholds = func() [13]uint64 {
	var t [13]uint64
	p, cdf := math.Exp(-1), 0.0
	for k := range t {
		cdf += p
		p /= float64(k + 1)
		t[k] = uint64(math.Floor(cdf * (1 << 32)))
	}
	t[len(t)-1] = 1 << 32
	return t
}()

func poisson1(u uint32) uint8 {
	k := 0
	for uint64(u) >= poissonThresholds[k] {
		k++
	}
	return uint8(k)
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
	base := mix64(mix64(seed+golden) ^ mix64(unit^0x5851f42d4c957f2d))
	b := 0
	for c := uint64(0); b < len(dst); c++ {
		h := mix64(base + c*golden)
		dst[b] = poisson1(uint32(h))
		b++
		if b < len(dst) {
			dst[b] = poisson1(uint32(h >> 32))
			b++
		}
	}
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
