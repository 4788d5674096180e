package tokenize

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// HashString is a fast non-cryptographic hash of s (wyhash-like mixing of 8-byte loads) for
// the token tables of the metrics. Those tables compare the strings on every hash match, so
// the hash only affects speed, never results.
func HashString(s string) uint64 {
	const (
		k0 = 0xa0761d6478bd642f
		k1 = 0xe7037ed1a0b428db
		k2 = 0x8ebc6af09c88c6e3
	)
	n := len(s)
	var a, b uint64
	switch {
	case n >= 8:
		p := unsafe.Slice(unsafe.StringData(s), n)
		a = binary.LittleEndian.Uint64(p)
		b = binary.LittleEndian.Uint64(p[n-8:])
		for i := 8; i+8 < n; i += 8 {
			a = mix64(a^k1, binary.LittleEndian.Uint64(p[i:])^k2)
		}
	case n >= 4:
		p := unsafe.Slice(unsafe.StringData(s), n)
		a = uint64(binary.LittleEndian.Uint32(p))
		b = uint64(binary.LittleEndian.Uint32(p[n-4:]))
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix64(a^k0, b^k1^uint64(n)<<56)
}

func mix64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// stemCache is a direct-mapped cache of Porter stems: a word's slot is fixed by its hash
// and a new word evicts the old one, so lookups touch one 64-byte slot and memory is fixed
// (stemCacheSlots slots, 256 KiB). Words and stems are stored in the slot, never allocated.
type stemCache struct {
	slots []stemSlot
}

type stemSlot struct {
	hash uint64
	n    uint8 // word length; 0 marks an empty slot (cached words are longer than 3 bytes)
	sn   uint8 // stem length
	pre  bool  // the stem is the word's prefix of length sn (then val is unused)
	word [stemMaxLen]byte
	val  [stemMaxLen]byte
}

const (
	stemCacheSlots = 1 << 12
	stemMaxLen     = 26 // longer words are stemmed every time
)

// get returns the stem of w (whose hash is h) when cached: a prefix of w, or the cached
// bytes, which the caller must copy before the next put.
func (c *stemCache) get(w string, h uint64) (stem string, fromCache, ok bool) {
	if c.slots == nil {
		return "", false, false
	}
	s := &c.slots[h&(stemCacheSlots-1)]
	if s.hash != h || int(s.n) != len(w) || string(s.word[:s.n]) != w {
		return "", false, false
	}
	if s.pre {
		return w[:s.sn], false, true
	}
	return bytesToString(s.val[:s.sn]), true, true
}

// put caches the stem of w.
func (c *stemCache) put(w string, h uint64, stem string) {
	if len(w) > stemMaxLen || len(stem) > stemMaxLen || len(w) == 0 {
		return
	}
	if c.slots == nil {
		c.slots = make([]stemSlot, stemCacheSlots)
	}
	s := &c.slots[h&(stemCacheSlots-1)]
	s.hash, s.n, s.sn = h, uint8(len(w)), uint8(len(stem))
	copy(s.word[:], w)
	s.pre = stem == w[:min(len(stem), len(w))]
	if !s.pre {
		copy(s.val[:], stem)
	}
}
