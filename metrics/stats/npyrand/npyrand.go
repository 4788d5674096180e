// Package npyrand reproduces, draw for draw, the parts of numpy's random module (numpy 2.x)
// that sacrebleu's significance tests use: np.random.default_rng(seed), i.e. a
// SeedSequence(seed) feeding a PCG64 bit generator, and the Generator methods
// integers(2, size, dtype=bool) and choice(n, size, replace=True). It exists so that
// evalstream can give the numbers of `sacrebleu --confidence/--paired-bs/--paired-ar`
// exactly, without Python.
//
// The algorithms follow numpy's sources: numpy/random/bit_generator.pyx (SeedSequence),
// numpy/random/src/pcg64/pcg64.h (PCG64: a 128-bit LCG with the XSL-RR output and a buffered
// upper 32-bit half for 32-bit draws), numpy/random/src/distributions/distributions.c
// (random_bounded_uint64_fill with Lemire's rejection on 32-bit draws when the range fits in 32
// bits, random_bounded_bool_fill with one 32-bit draw per 32 booleans) and
// numpy/random/_generator.pyx (choice with replacement and no p is integers(0, n, int64)).
package npyrand

import (
	"errors"
	"math/bits"
)

// SeedSequence constants (bit_generator.pyx).
const (
	poolSize  = 4
	initA     = 0x43b0d7e5
	multA     = 0x931e8875
	initB     = 0x8b51f9dd
	multB     = 0x58f38ded
	mixMultL  = 0xca01f9dd
	mixMultR  = 0x4973f715
	xshift    = 16
	pcgMultHi = 2549297995355413924
	pcgMultLo = 4865540595714422341
)

func hashmix(value uint32, hashConst *uint32) uint32 {
	value ^= *hashConst
	*hashConst *= multA
	value *= *hashConst
	value ^= value >> xshift
	return value
}

func mix(x, y uint32) uint32 {
	r := mixMultL*x - mixMultR*y
	r ^= r >> xshift
	return r
}

// entropyWords splits a non-negative integer into 32-bit words, lowest first, as
// _coerce_to_uint32_array does (0 is one word).
func entropyWords(seed uint64) []uint32 {
	if seed>>32 == 0 {
		return []uint32{uint32(seed)}
	}
	return []uint32{uint32(seed), uint32(seed >> 32)}
}

// seedPool is SeedSequence(seed).pool (no spawn key, pool size 4).
func seedPool(seed uint64) [poolSize]uint32 {
	ent := entropyWords(seed)
	var pool [poolSize]uint32
	hc := uint32(initA)
	for i := range pool {
		if i < len(ent) {
			pool[i] = hashmix(ent[i], &hc)
		} else {
			pool[i] = hashmix(0, &hc)
		}
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src], &hc))
			}
		}
	}
	for src := poolSize; src < len(ent); src++ {
		for dst := range pool {
			pool[dst] = mix(pool[dst], hashmix(ent[src], &hc))
		}
	}
	return pool
}

// generateState64 is SeedSequence.generate_state(n, np.uint64): 2n 32-bit words cycled from
// the pool, paired little-endian into 64-bit words.
func generateState64(pool [poolSize]uint32, n int) []uint64 {
	words := make([]uint32, 2*n)
	hc := uint32(initB)
	for i := range words {
		v := pool[i%poolSize]
		v ^= hc
		hc *= multB
		v *= hc
		v ^= v >> xshift
		words[i] = v
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(words[2*i]) | uint64(words[2*i+1])<<32
	}
	return out
}

// Generator is numpy's Generator(PCG64(SeedSequence(seed))). It is not safe for concurrent
// use; its zero value is not usable (call New).
type Generator struct {
	hi, lo       uint64 // 128-bit LCG state
	incHi, incLo uint64 // 128-bit increment (odd)
	hasU32       bool   // the upper half of the last 64-bit output is pending
	u32          uint32
}

// New returns the generator of np.random.default_rng(seed).
func New(seed uint64) *Generator {
	st := generateState64(seedPool(seed), 4)
	g := &Generator{}
	// pcg64_set_seed: initstate = st[0]<<64 | st[1], initseq = st[2]<<64 | st[3].
	initHi, initLo := st[0], st[1]
	seqHi, seqLo := st[2], st[3]
	g.incHi = seqHi<<1 | seqLo>>63
	g.incLo = seqLo<<1 | 1
	g.step()
	var c uint64
	g.lo, c = bits.Add64(g.lo, initLo, 0)
	g.hi, _ = bits.Add64(g.hi, initHi, c)
	g.step()
	return g
}

// step advances the LCG: state = state*mult + inc (mod 2^128).
func (g *Generator) step() {
	hi, lo := bits.Mul64(g.lo, pcgMultLo)
	hi += g.hi*pcgMultLo + g.lo*pcgMultHi
	var c uint64
	g.lo, c = bits.Add64(lo, g.incLo, 0)
	g.hi, _ = bits.Add64(hi, g.incHi, c)
}

// Uint64 is the next raw 64-bit output (pcg64_next64): step, then XSL-RR.
func (g *Generator) Uint64() uint64 {
	g.step()
	return bits.RotateLeft64(g.hi^g.lo, -int(g.hi>>58))
}

// Uint32 is pcg64_next32: the low half of a fresh 64-bit output, keeping the high half for
// the next call.
func (g *Generator) Uint32() uint32 {
	if g.hasU32 {
		g.hasU32 = false
		return g.u32
	}
	x := g.Uint64()
	g.hasU32, g.u32 = true, uint32(x>>32)
	return uint32(x)
}

// ErrRange is returned for a population size numpy would reject or that this port does not
// cover.
var ErrRange = errors.New("npyrand: population size out of range")

// Choice fills dst (row-major, as numpy lays out size=(rows, cols)) with
// choice(n, size, replace=True) draws: integers(0, n, dtype=int64), i.e. Lemire's bounded
// method on 32-bit draws. n must be in [1, 2^32]; larger populations take numpy's 64-bit
// path, which this port does not implement.
func (g *Generator) Choice(n int64, dst []int64) error {
	if n < 1 || n > 1<<32 {
		return ErrRange
	}
	rng := uint64(n - 1)
	switch {
	case rng == 0:
		clear(dst)
	case rng == 0xFFFFFFFF:
		for i := range dst {
			dst[i] = int64(g.Uint32())
		}
	default:
		r := uint32(rng)
		excl := r + 1
		threshold := (0xFFFFFFFF - r) % excl
		for i := range dst {
			m := uint64(g.Uint32()) * uint64(excl)
			if left := uint32(m); left < excl {
				for left < threshold {
					m = uint64(g.Uint32()) * uint64(excl)
					left = uint32(m)
				}
			}
			dst[i] = int64(m >> 32)
		}
	}
	return nil
}

// Bools fills dst with integers(2, size, dtype=bool) draws: each 32-bit draw gives 32
// booleans, lowest bit first (buffered_bounded_bool). The buffer lives only for one call, as
// in numpy, so a second call starts with a fresh draw.
func (g *Generator) Bools(dst []bool) {
	s := g.BoolStream()
	for i := range dst {
		dst[i] = s.Next()
	}
}

// BoolBits draws one integers(2, size, dtype=bool) call of n booleans and packs them into
// dst: boolean i is bit i%64 of dst[i/64]. dst must hold at least (n+63)/64 words; bits from
// n on up to the end of the last 32-bit draw are numpy's unused draw bits, and any further
// words are zeroed. The generator is left where numpy leaves it (ceil(n/32) 32-bit draws).
func (g *Generator) BoolBits(dst []uint64, n int) {
	clear(dst)
	for k := 0; 32*k < n; k++ {
		dst[k/2] |= uint64(g.Uint32()) << (32 * (k % 2))
	}
}

// BoolStream returns the draws of one integers(2, size, dtype=bool) call one at a time, so
// that a large size=(rows, cols) need not be held in memory. Draws from g between two Next
// calls interleave with the stream's 32-bit draws, which numpy never does within one call.
func (g *Generator) BoolStream() *BoolStream { return &BoolStream{g: g} }

// BoolStream is one numpy bool-integers call, drawn lazily. It is not safe for concurrent
// use.
type BoolStream struct {
	g   *Generator
	buf uint32
	cnt int
}

// Next returns the next boolean of the call.
func (s *BoolStream) Next() bool {
	if s.cnt == 0 {
		s.buf = s.g.Uint32()
		s.cnt = 31
	} else {
		s.buf >>= 1
		s.cnt--
	}
	return s.buf&1 != 0
}
