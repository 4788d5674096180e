package bleu

import (
	"math/bits"
	"runtime"
	"strings"
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

// The reference cache serves the common shape of large evaluations: one test set scored for
// many systems or checkpoints, so that every reference set recurs (the WMT17 file has 16
// systems' outputs of each source sentence). A reference set that recurs is tokenized and
// counted once per worker into a refEntry, and the records that share it only tokenize their
// hypothesis and look its n-grams up in the entry. Keys are the reference strings themselves,
// compared exactly, and an entry holds the same n-gram counts the per-record path computes, so
// hits change the speed and never a result (the tests score the same records both ways).
//
// A doorkeeper keeps one-off references out: a set is analysed into an entry only when its
// hash was seen before, so a corpus without repeats pays a hash per record and no memory.

// refCacheMaxBytes bounds the entries of one cache; when a new entry would pass it, the cache
// starts over empty. A cache belongs to one goroutine at a time (Metric.refCaches hands them
// out), so the memory is bounded by the number of concurrently scoring goroutines.
var refCacheMaxBytes = 16 << 20

// refCacheSeen is the number of doorkeeper slots (a direct-mapped set of hashes).
const refCacheSeen = 1 << 13

// refCacheOff turns the cache off (tests compare both paths).
var refCacheOff = false

// refCache maps reference sets to their analysed entries. It is not safe for concurrent use.
type refCache struct {
	entries map[uint64]*refEntry
	seen    []uint64
	bytes   int
	ids     []uint64 // scratch: entry ids of the current hypothesis
	toks    []string // scratch for building entries
}

// refKeyHash hashes the reference strings of v (a string or a list of strings).
func refKeyHash(v core.Value) uint64 {
	if v.Kind == core.String {
		return tokenize.HashString(v.Str)
	}
	h := uint64(len(v.Strs))
	for _, s := range v.Strs {
		hi, lo := bits.Mul64(h^tokenize.HashString(s), 0x9E3779B97F4A7C15)
		h = hi ^ lo
	}
	return h
}

// entryFor returns the entry of the references v, building it on the second sighting of
// their hash; nil means "use the per-record path".
func (c *refCache) entryFor(m *Metric, v core.Value) *refEntry {
	if v.Kind != core.String && v.Kind != core.StringList {
		return nil
	}
	h := refKeyHash(v)
	if e := c.entries[h]; e != nil && e.sameRefs(v) {
		return e
	}
	if c.seen == nil {
		c.seen = make([]uint64, refCacheSeen)
	}
	slot := &c.seen[h&(refCacheSeen-1)]
	if *slot != h {
		*slot = h
		return nil
	}
	e := m.buildRefEntry(c, v)
	if e == nil {
		return nil
	}
	if c.entries == nil || c.bytes+e.bytes > refCacheMaxBytes {
		c.entries, c.bytes = make(map[uint64]*refEntry), 0
	}
	c.entries[h] = e // a colliding older set is replaced
	c.bytes += e.bytes
	return e
}

// rslot is a token of a refEntry: its hash and id.
type rslot struct {
	hash uint32
	id   uint32 // 0: empty
}

// rcount is the largest count of an n-gram in one reference of the set (max), and its uses by
// the current hypothesis (used, valid when stamp is the entry's).
type rcount struct {
	max   int32
	used  int32
	stamp uint32
}

// rgram is an n-gram of order >= 2 of a refEntry under its packed key (0: empty slot; keys of
// order >= 2 are never 0 because ids start at 1).
type rgram struct {
	key uint64
	rcount
}

// refEntry is an analysed reference set: its tokens interned to ids 1..k, the largest count
// of each n-gram (orders 1..countN <= packedMaxOrder) in any one reference, and each
// reference's length. It owns all its memory.
type refEntry struct {
	refs  []string // the key: owned copies of the references
	lens  []int    // tokens per reference
	slots []rslot
	toks  []string // toks[id-1]
	uni   []rcount // by id
	grams []rgram
	shift uint8
	stamp uint32
	bytes int
}

func (e *refEntry) sameRefs(v core.Value) bool {
	if v.Kind == core.String {
		return len(e.refs) == 1 && e.refs[0] == v.Str
	}
	if len(e.refs) != len(v.Strs) {
		return false
	}
	for i, s := range v.Strs {
		if e.refs[i] != s {
			return false
		}
	}
	return true
}

// lookup returns the id of token s, or 0.
func (e *refEntry) lookup(s string) uint32 {
	h := tokenize.HashString(s)
	mask := uint64(len(e.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := e.slots[j]
		if sl.id == 0 {
			return 0
		}
		if sl.hash == uint32(h) && e.toks[sl.id-1] == s {
			return sl.id
		}
	}
}

// intern returns the id of token s, adding it.
func (e *refEntry) intern(s string) uint32 {
	h := tokenize.HashString(s)
	mask := uint64(len(e.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		sl := &e.slots[j]
		if sl.id == 0 {
			e.toks = append(e.toks, s)
			*sl = rslot{hash: uint32(h), id: uint32(len(e.toks))}
			return sl.id
		}
		if sl.hash == uint32(h) && e.toks[sl.id-1] == s {
			return sl.id
		}
	}
}

// gram returns the slot of key, or nil; with add, a new key gets a slot.
func (e *refEntry) gram(key uint64, add bool) *rgram {
	mask := uint64(len(e.grams) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> e.shift; ; i = (i + 1) & mask {
		g := &e.grams[i]
		if g.key == key {
			return g
		}
		if g.key == 0 {
			if !add {
				return nil
			}
			g.key = key
			return g
		}
	}
}

// use counts one occurrence of an n-gram by the current hypothesis (or, while building, by the
// current reference, raising max) and reports whether it is a clipped match.
func (e *refEntry) use(c *rcount, building bool) bool {
	if c.stamp != e.stamp {
		c.stamp, c.used = e.stamp, 0
	}
	c.used++
	if building {
		c.max = max(c.max, c.used)
	}
	return c.used <= c.max
}

// buildRefEntry analyses the references v into a new entry, or returns nil when they do not
// fit the packed keys.
func (m *Metric) buildRefEntry(c *refCache, v core.Value) *refEntry {
	refs := v.Strs
	if v.Kind == core.String {
		refs = []string{v.Str}
	}
	// One owned copy of all references; tokens alias it (or are owned strings the tokenizer
	// or lowercasing made).
	size := 0
	for _, s := range refs {
		size += len(s)
	}
	var b strings.Builder
	b.Grow(size)
	for _, s := range refs {
		b.WriteString(s)
	}
	all := b.String()
	e := &refEntry{refs: make([]string, len(refs)), lens: make([]int, len(refs))}
	toks := c.toks[:0]
	for j, s := range refs {
		e.refs[j], all = all[:len(s)], all[len(s):]
		n := len(toks)
		toks = m.text(toks, e.refs[j])
		e.lens[j] = len(toks) - n
	}
	defer func() { clear(toks); c.toks = toks[:0] }()
	N := m.countN
	need := 16
	for need < 2*len(toks) {
		need <<= 1
	}
	e.slots = make([]rslot, need)
	ids := c.ids[:0]
	for _, t := range toks {
		ids = append(ids, uint64(e.intern(t)))
	}
	c.ids = ids
	if len(e.toks) > packedMaxIDs {
		return nil
	}
	need = 16
	for need < 2*len(toks)*(N-1) {
		need <<= 1
	}
	e.grams = make([]rgram, need)
	e.shift = uint8(64 - bits.TrailingZeros(uint(need)))
	e.uni = make([]rcount, len(e.toks)+1)
	start := 0
	for j, n := range e.lens {
		e.stamp = uint32(j + 1)
		ref := ids[start : start+n]
		start += n
		for i, id := range ref {
			e.use(&e.uni[id], true)
			key := id
			for k, id := range ref[i+1 : min(i+N, len(ref))] {
				key |= id << (16 * (k + 1))
				e.use(&e.gram(key, true).rcount, true)
			}
		}
	}
	for i := range e.uni {
		e.uni[i].used, e.uni[i].stamp = 0, 0
	}
	for i := range e.grams {
		e.grams[i].used, e.grams[i].stamp = 0, 0
	}
	e.stamp = 0
	e.bytes = 160 + size + 16*len(e.toks) + 8*len(e.slots) + 12*len(e.uni) + 24*len(e.grams) + 24*len(e.lens)
	return e
}

// match adds the clipped n-gram matches of the hypothesis hyp against the entry to m, like
// packedCounter's startHyp and addRefMax over the same references.
func (e *refEntry) match(c *refCache, hyp []string, N int, m []int64) {
	e.stamp++
	if e.stamp == 0 { // wrapped: stale stamps could look current
		for i := range e.uni {
			e.uni[i].stamp = 0
		}
		for i := range e.grams {
			e.grams[i].stamp = 0
		}
		e.stamp = 1
	}
	ids := c.ids[:0]
	for _, t := range hyp {
		ids = append(ids, uint64(e.lookup(t)))
	}
	c.ids = ids
	m = m[:N]
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if e.use(&e.uni[id], false) {
			m[0]++
		}
		key := id
		for k, id := range ids[i+1 : min(i+N, len(ids))] {
			if id == 0 {
				break
			}
			key |= id << (16 * (k + 1))
			g := e.gram(key, false)
			if g == nil {
				break // no longer n-gram from here is in a reference either
			}
			if e.use(&g.rcount, false) {
				m[k+1]++
			}
		}
	}
}

// refCaches is a fixed set of reference caches, one per CPU, each used by one goroutine at a
// time. A state keeps the index of the cache it last used and tries it first, so concurrent
// workers settle on caches of their own; when every cache is busy the record takes the
// per-record path. (A sync.Pool would lose the caches at every GC.)
type refCaches struct {
	once   sync.Once
	caches []lockedRefCache
}

type lockedRefCache struct {
	mu sync.Mutex
	refCache
	_ [64]byte // keep the mutexes of different caches off one cache line
}

// acquire locks a free cache, starting at *hint, and returns it (nil when none is free).
func (p *refCaches) acquire(hint *int) *lockedRefCache {
	p.once.Do(func() { p.caches = make([]lockedRefCache, runtime.GOMAXPROCS(0)) })
	n := len(p.caches)
	for k := 0; k < n; k++ {
		i := (*hint + k) % n
		if c := &p.caches[i]; c.mu.TryLock() {
			*hint = i
			return c
		}
	}
	return nil
}
