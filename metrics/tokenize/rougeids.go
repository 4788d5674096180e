package tokenize

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/internal/freshmem"
)

// The id path of RougeTokenizer: Porter stemming and a per-example interning of the tokens are
// most of the cost of ROUGE once the LCS is bit-parallel, and both are functions of the word
// as it appears in the text. So the tokenizer keeps a vocabulary across calls: each word as
// written (raw bytes, before lowercasing) maps to the id of its token, and each token to one
// id. A word seen before costs one hash, one probe and one byte comparison; a new word is
// lowercased, stemmed and interned once. Ids are exact: equal ids mean equal tokens (every
// probe compares the bytes, the hash only picks the slot).
//
// The vocabulary is a RougeVocab, which the tokenizers of a metric's workers share: each word
// of a corpus is lowercased, stemmed and interned once in the process, not once per worker,
// and the tables take the cache and memory once. Looking a word up takes no lock (see
// RougeVocab); adding one does.

// Bounds of the vocabulary: once it holds more words, tokens or bytes than this it is full and
// takes no more (tokens it does not have get local ids, per tokenizer and record), so one
// vocabulary stays under 9 MB (at most 4 MiB of word slots in the two word tables, about
// 1.5 MiB of the tokens' buckets, hashes, chains and ends, and the bytes) whatever the
// corpus. A full vocabulary is replaced only when a tokenizer finds that too many of its
// tokens need local ids (see Reset); a tokenizer keeps its vocabulary until its next Reset,
// so while one is replaced up to one per tokenizer (worker) plus the new one are alive.
const (
	vocabMaxWords = 1 << 16
	vocabMaxBytes = 1 << 21 // of the long words and of the tokens
)

// RougeVocab is the vocabulary of the rouge tokenizer's id path: word as written -> token id,
// token -> id. It is safe for concurrent use: tokenizers on several goroutines share one
// (NewRougeTokenizerWith), so a word is stemmed and interned once for all of them.
//
// Synchronisation: lookups of words of at most 16 bytes (nearly all) take no lock. A slot is
// written once, under mu, and published by an atomic store of its mark (its value + 2; 0 is a
// free slot) after its key; a reader loads the mark atomically before it reads the key, so it
// sees a slot either free or complete. A table that grows is copied under mu and the copy
// published through an atomic pointer; a reader still probing the old one may miss a word
// added since, and then looks again under mu, where it finds it (or, once the vocabulary is
// full, finds the word's token). Words of more than 16 bytes are in a map of each tokenizer's
// own (their tokens' ids are shared). Adding a word and TokenID take mu, until the vocabulary
// is full: its token table is then never written again (only the word whose token filled it
// is still put in a word table, in the same hold of mu), so once a reader has seen it full
// (over, stored under mu after the last token) its lookups of tokens too take no lock. When a
// tokenizer finds a full vocabulary serves too few of its tokens, the next Reset publishes a
// new, empty one (an epoch); each tokenizer keeps the epoch it had at its last Reset until its
// next, so the ids it returns in between come from one epoch and compare exactly (its local
// ids, until its next Reset).
type RougeVocab struct {
	stem bool
	mu   sync.Mutex
	cur  atomic.Pointer[vocabEpoch]
}

// vocabEpoch is one generation of a RougeVocab: its tables and ids. Fields other than the
// atomics and the tables' slot arrays are guarded by the RougeVocab's mu, except toks, which
// is read without it once over is seen set (no token is added after).
type vocabEpoch struct {
	short shortTable   // words of at most 8 bytes
	words wordTable    // words of 9 to 16 bytes
	toks  vocab        // token -> id
	ids   atomic.Int32 // NumIDs: the ids handed out are below it
	// The words of the tables, and the bytes of long words and tokens: for the bounds.
	nWords, nBytes int
	// The tokens: a word adds at most one, but TokenID (pre-tokenized input, text the fast
	// path hands over) adds tokens without words, so they are bounded on their own.
	nToks int
	// Whether a count has passed its bound (full), read without mu by the tokenizers, which
	// then add nothing and read toks without mu: one flag set once, rather than atomic
	// counts, which would cost every new word three locked instructions.
	over atomic.Bool
	// Whether a tokenizer found that too many of its tokens are not in the (full) epoch:
	// the corpus has moved on, and Reset starts a new epoch.
	retired atomic.Bool
}

// add counts words, tokens and bytes added to the epoch. Under mu.
func (e *vocabEpoch) add(words, toks, bytes int) {
	e.nWords += words
	e.nToks += toks
	e.nBytes += bytes
	if e.nWords > vocabMaxWords || e.nToks > vocabMaxWords || e.nBytes > vocabMaxBytes {
		e.over.Store(true)
	}
}

// full reports whether the epoch has reached its bounds: no token is added to it any more (nor
// any word, but the one whose token filled it), and its token table may be read without mu.
func (e *vocabEpoch) full() bool {
	return e.over.Load()
}

// NewRougeVocab returns an empty vocabulary for tokenizers that stem when stem is set. Its
// tables are made by the first tokenizer that uses it: a command builds its metrics more than
// once (to find the fields they read, then to run), and metrics that share tokens through a
// core.Memo use the vocabulary of one of them only, so most vocabularies are never used, and
// their tables (about 36 KB, written at once: see freshmem) would be page faults for nothing.
func NewRougeVocab(stem bool) *RougeVocab {
	return &RougeVocab{stem: stem}
}

func newVocabEpoch() *vocabEpoch {
	e := &vocabEpoch{}
	e.short.grow()
	e.words.grow()
	e.toks.grow()
	e.ids.Store(1) // the empty token's
	return e
}

// epoch returns the current epoch, making the first one, or replacing the current one when
// a tokenizer has retired it (see Reset).
func (v *RougeVocab) epoch() *vocabEpoch {
	e := v.cur.Load()
	if e != nil && !e.retired.Load() {
		return e
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if e = v.cur.Load(); e == nil || e.retired.Load() {
		e = newVocabEpoch()
		v.cur.Store(e)
	}
	return e
}

// emptyTokenID is the id of the empty token.
const emptyTokenID = 0

// vocab is an exact hash table of byte strings (the tokens), which it numbers 1, 2, ... in
// the order they are added (the ids of the tokens: 0 is the empty token's). It chains the
// keys of a bucket through their numbers, so a bucket is 4 bytes and the rest are arrays
// indexed by number, filled in order: it is looked up only for new words, under the
// RougeVocab's mu until the vocabulary is full (then without), and in a short run its memory
// (a page's first touch is a page fault, and every size a table grows through is fresh
// memory) costs more than its lookups. Growing rebuilds only the buckets.
type vocab struct {
	buckets []int32  // the last key added to each bucket, 0 for none
	next    []int32  // next[k-1]: the key added to key k's bucket before it, 0 for none
	hashes  []uint32 // hashes[k-1]: the low 32 bits of key k's hash
	bytes   []byte   // the keys, back to back, in the order of their numbers
	ends    []uint32 // ends[k-1] is the end of key k in bytes
}

// The capacities of the keys' bytes and of the arrays indexed by number to start with. They
// are written in order, so only the pages they reach are touched, and the keys of most
// corpora fit without a copy to a larger array (which would take the faults again).
const (
	vocabBytesCap = 256 << 10
	vocabKeysCap  = 64 << 10
)

// key returns the bytes of key id.
func (v *vocab) key(id int32) []byte {
	start := uint32(0)
	if id > 1 {
		start = v.ends[id-2]
	}
	return v.bytes[start:v.ends[id-1]]
}

// find returns the number of s (whose hash is h), if it is a key.
func (v *vocab) find(s string, h uint64) (int32, bool) {
	for id := v.buckets[h&uint64(len(v.buckets)-1)]; id != 0; id = v.next[id-1] {
		if v.hashes[id-1] == uint32(h) && string(v.key(id)) == s {
			return id, true
		}
	}
	return 0, false
}

// insert adds s (whose hash is h), which must not be a key, and returns its number.
func (v *vocab) insert(s string, h uint64) int32 {
	if v.bytes == nil {
		v.bytes = make([]byte, 0, max(vocabBytesCap, len(s)))
		v.ends = make([]uint32, 0, vocabKeysCap)
		v.hashes = make([]uint32, 0, vocabKeysCap)
		v.next = make([]int32, 0, vocabKeysCap)
	}
	v.bytes = append(v.bytes, s...)
	v.ends = append(v.ends, uint32(len(v.bytes)))
	v.hashes = append(v.hashes, uint32(h))
	id := int32(len(v.ends))
	b := &v.buckets[h&uint64(len(v.buckets)-1)]
	v.next = append(v.next, *b)
	*b = id
	if len(v.ends) > len(v.buckets) {
		v.grow()
	}
	return id
}

// grow doubles the buckets (or makes the first ones) and puts the keys in them again.
func (v *vocab) grow() {
	v.buckets = freshmem.Make[int32](max(2*len(v.buckets), 1024)) // read before written
	// The low 32 bits of a hash pick its bucket while there are at most 2^32.
	mask := uint32(len(v.buckets) - 1)
	for k, h := range v.hashes {
		b := &v.buckets[h&mask]
		v.next[k] = *b
		*b = int32(k + 1)
	}
}

// wordTable is the vocabulary's table for the words of AppendIDs of 9 to 16 bytes (shorter
// ones are in a shortTable, longer ones in each tokenizer's map), which are looked up once per word of
// text: a word is kept in its slot (k0, k1: its bytes, little-endian, zero-padded, which
// determine the word: words have no zero bytes), so a lookup reads one 20-byte slot and
// nothing else. The slot of a key is given by the top bits
// of its 64-bit hash, shortHash (Fibonacci hashing). findShort may run concurrently with the
// others; find, insert and grow run under the RougeVocab's mu.
type wordTable struct {
	tab atomic.Pointer[wordTab]
	_   cacheLinePad // n, written by every insert, away from tab, read by every lookup
	n   int
	_   cacheLinePad
}

// wordTab is the slot array of a wordTable; only the mark of its slots changes once
// published (once, from 0, atomically).
type wordTab struct {
	slots []wslot
	mask  uint64 // len(slots) - 1
	shift uint8  // 64 - log2(len(slots))
}

type wslot struct {
	k [4]uint32 // the key: k0 and k1 in halves, so a slot is 4-byte aligned
	// The value + 2 (values are -1 or more), or 0 for a free slot. Written last, atomically
	// (see RougeVocab).
	mark uint32
}

// wordKey is the key k0, k1 as a slot holds it.
func wordKey(k0, k1 uint64) [4]uint32 {
	return [4]uint32{uint32(k0), uint32(k0 >> 32), uint32(k1), uint32(k1 >> 32)}
}

// keys returns the slot's key.
func (sl *wslot) keys() (k0, k1 uint64) {
	return uint64(sl.k[0]) | uint64(sl.k[1])<<32, uint64(sl.k[2]) | uint64(sl.k[3])<<32
}

// shortHash hashes the key of a short word. Words have no zero bytes, so the key determines
// the length.
func shortHash(k0, k1 uint64) uint64 {
	return (k0 ^ bits.RotateLeft64(k1*0xe7037ed1a0b428db, 29)) * 0x9e3779b97f4a7c15
}

// shortKeyTail is the key of a short word w too close to the end of its text for two 8-byte
// loads.
func shortKeyTail(w string) (k0, k1 uint64) {
	for d := 0; d < len(w); d++ {
		if d < 8 {
			k0 |= uint64(w[d]) << (8 * uint(d))
		} else {
			k1 |= uint64(w[d]) << (8 * uint(d-8))
		}
	}
	return k0, k1
}

// findShort returns the mark of the word of at most 16 bytes with key k0, k1 and hash h (its
// value + 2), or 0 when it is not stored. It takes no lock, and is small enough to be inlined
// in the loop of appendIDs.
func (v *wordTable) findShort(k0, k1, h uint64) uint32 {
	tab := v.tab.Load()
	k := wordKey(k0, k1)
	for x := h >> tab.shift; ; x = (x + 1) & tab.mask {
		sl := &tab.slots[x]
		if m := atomic.LoadUint32(&sl.mark); m == 0 || sl.k == k {
			return m
		}
	}
}

// find returns the slot of the word with key k0, k1 and hash h: its own, or the free one
// where it belongs. Under mu.
func (v *wordTable) find(k0, k1, h uint64) *wslot {
	tab := v.tab.Load()
	for x := h >> tab.shift; ; x = (x + 1) & tab.mask {
		sl := &tab.slots[x]
		if sl.mark == 0 || sl.k == wordKey(k0, k1) {
			return sl
		}
	}
}

// insert stores the word with key k0, k1 -> val in the free slot sl that find returned for
// it. Under mu.
func (v *wordTable) insert(sl *wslot, k0, k1 uint64, val int32) {
	sl.k = wordKey(k0, k1)
	atomic.StoreUint32(&sl.mark, uint32(val+2)) // publishes the slot
	v.n++
	if tab := v.tab.Load(); 4*v.n > 3*len(tab.slots) {
		v.grow()
	}
}

// grow publishes a copy of the table of twice the size (or the first table). Under mu (or
// before the table is shared).
func (v *wordTable) grow() {
	var old []wslot
	if tab := v.tab.Load(); tab != nil {
		old = tab.slots
	}
	tab := &wordTab{slots: freshmem.Make[wslot](max(2*len(old), 1024))} // probed (read) before written
	tab.shift = uint8(64 - bits.TrailingZeros(uint(len(tab.slots))))
	tab.mask = uint64(len(tab.slots) - 1)
	for _, sl := range old {
		if sl.mark == 0 {
			continue
		}
		x := shortHash(sl.keys()) >> tab.shift
		for tab.slots[x].mark != 0 {
			x = (x + 1) & tab.mask
		}
		tab.slots[x] = sl
	}
	v.tab.Store(tab)
}

// NumIDs bounds the ids that AppendIDs and TokenID have returned since the last Reset, and
// the ones still valid from before (see Reset): they are all below it.
func (t *RougeTokenizer) NumIDs() int { return int(t.ep.ids.Load()) + len(t.local) }

// TokenID returns the id of tok taken as a token as it is (no lowercasing, no stemming): the
// id AppendIDs gives a word whose token is tok. The id is valid as Reset says.
func (t *RougeTokenizer) TokenID(tok string) int32 {
	if tok == "" {
		// Only pre-tokenized input has empty tokens; a vocab key is never empty.
		return emptyTokenID
	}
	t.nSeen++
	if t.ep.full() {
		return t.frozenID(tok)
	}
	t.vocab.mu.Lock()
	if t.ep.full() {
		t.vocab.mu.Unlock()
		return t.frozenID(tok)
	}
	defer t.vocab.mu.Unlock()
	return t.ep.tokenID(tok)
}

// tokenID is TokenID of a non-empty token, under mu.
func (e *vocabEpoch) tokenID(tok string) int32 {
	h := HashString(tok)
	if id, ok := e.toks.find(tok, h); ok {
		return id
	}
	id := e.toks.insert(tok, h) // the next id: ids are handed out here only
	e.ids.Store(id + 1)
	e.add(0, 1, len(tok))
	return id
}

// AppendIDs appends to dst the ids of the tokens of Rouge(text, stem) (TokenID of each), in
// order. The ids are valid as Reset says; ids appended between two calls of Reset can always
// be compared with each other.
func (t *RougeTokenizer) AppendIDs(dst []int32, text string) []int32 {
	dst, _ = t.appendIDs(dst, nil, text, false)
	return dst
}

// AppendLineIDs is AppendIDs of each line of text in turn, the lines being the pieces of text
// between "\n" except empty ones (rouge-score's get_sents for rougeLsum): after the ids of
// each line it appends len(dst) to ends, also for a line without tokens. A token never spans
// a newline, so dst gets the ids AppendIDs(dst, text) would append.
func (t *RougeTokenizer) AppendLineIDs(dst []int32, ends []int, text string) ([]int32, []int) {
	return t.appendIDs(dst, ends, text, true)
}

// appendIDs is AppendIDs, and AppendLineIDs when lines is set.
func (t *RougeTokenizer) appendIDs(dst []int32, ends []int, text string, lines bool) ([]int32, []int) {
	short, words := &t.ep.short, &t.ep.words
	first, firstEnd := len(dst), len(ends)
	locals := t.nLocalSeen
	piece := 0 // start of the current line
	p := unsafe.Pointer(unsafe.StringData(text))
	for i := 0; i < len(text); {
		switch rougeByte[text[i]] {
		case 0:
			if lines && text[i] == '\n' {
				if i > piece {
					ends = append(ends, len(dst))
				}
				piece = i + 1
			}
			i++
			continue
		case 3:
			if strings.HasPrefix(text[i:], "\u0130") || strings.HasPrefix(text[i:], "\u212a") {
				// A capital that lowercases to an ASCII letter: the general path, which
				// counts the text's tokens for Reset again.
				t.nLocalSeen = locals
				return t.appendIDsSlow(dst[:first], ends[:firstEnd], text, lines)
			}
			i++ // any other character is a separator
			continue
		}
		// A word starts at i. Where 16 bytes can be read, its length comes from the
		// classes of those bytes, 8 at a time (alnum8), and so do its key's bytes.
		var j int
		var k0, k1 uint64
		if i+16 <= len(text) {
			q := unsafe.Add(p, i)
			k0 = binary.LittleEndian.Uint64(unsafe.Slice((*byte)(q), 8))
			if stop := ^alnum8(k0) & hi8; stop != 0 {
				n := bits.TrailingZeros64(stop) >> 3 // >= 1: text[i] is alnum
				j = i + n
				k0 &= 1<<(8*uint(n)) - 1
			} else {
				k1 = binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(q, 8)), 8))
				if stop := ^alnum8(k1) & hi8; stop != 0 {
					n := bits.TrailingZeros64(stop) >> 3
					j = i + 8 + n
					k1 &= 1<<(8*uint(n)) - 1
				} else {
					j = i + 16
					for j < len(text) && rougeByte[text[j]]-1 < 2 { // [a-z0-9] (1) or [A-Z] (2)
						j++
					}
				}
			}
		} else {
			j = i + 1
			for j < len(text) && rougeByte[text[j]]-1 < 2 {
				j++
			}
			if j-i <= 16 {
				k0, k1 = shortKeyTail(text[i:j])
			}
		}
		n := j - i
		var val int32
		var ok bool
		switch {
		case n <= 8:
			m := short.find(k0)
			val, ok = int32(m)-2, m != 0
		case n <= 16:
			m := words.findShort(k0, k1, shortHash(k0, k1))
			val, ok = int32(m)-2, m != 0
		default:
			val, ok = t.long[text[i:j]]
		}
		if !ok {
			val = t.newWord(text[i:j], k0, k1)
		}
		if val >= 0 {
			dst = append(dst, val)
		}
		// The byte after a word is a separator; the common one (not a lead byte that
		// needs a look, nor a newline) is skipped here.
		if j < len(text) && rougeByte[text[j]] == 0 && text[j] != '\n' {
			j++
		}
		i = j
	}
	if lines && len(text) > piece {
		ends = append(ends, len(dst))
	}
	t.nSeen += len(dst) - first
	return dst, ends
}

// alnum8 returns the high bit of each byte of the little-endian word w that is [A-Za-z0-9]
// (asciiLetters and the same range test for the digits).
func alnum8(w uint64) uint64 {
	const lo = 0x0101010101010101
	x := w &^ hi8
	digits := (x + (0x80-'0')*lo) &^ (x + (0x80-'9'-1)*lo) &^ w & hi8
	return asciiLetters(w) | digits
}

// shortTable is the vocabulary's table for the words of at most 8 bytes, most words of text:
// a word's key is its bytes, little-endian and zero-padded (words have no zero bytes, so the
// key determines the word), and a slot is 12 bytes, the key and the value, so more of the
// table stays in the core's cache, and growing it touches fewer pages. find may run
// concurrently with the others; insert and grow run under the RougeVocab's mu.
type shortTable struct {
	tab atomic.Pointer[shortTab]
	_   cacheLinePad // n, written by every insert, away from tab, read by every lookup
	n   int
	_   cacheLinePad
}

// cacheLinePad keeps the fields around it on different cache lines, so that a write of one
// by a core does not take the line of the other from the cores reading it (false sharing).
type cacheLinePad [64]byte

// shortTab is the slot array of a shortTable; only the mark of its slots changes once
// published (once, from 0, atomically).
type shortTab struct {
	slots []sslot
	mask  uint64 // len(slots) - 1
	shift uint8  // 64 - log2(len(slots))
}

type sslot struct {
	klo, khi uint32 // the key, in halves: a slot is 4-byte aligned
	// The value + 2 (values are -1 or more), or 0 for a free slot. Written last, atomically
	// (see RougeVocab): a key cannot be, as 8 bytes that may straddle cache lines.
	mark uint32
}

// key returns the slot's key.
func (sl *sslot) key() uint64 { return uint64(sl.klo) | uint64(sl.khi)<<32 }

// find returns the mark of key k (its value + 2), or 0 when it is not stored. It takes no
// lock, and is small enough to be inlined in the loop of appendIDs.
func (v *shortTable) find(k uint64) uint32 {
	tab := v.tab.Load()
	for x := (k * 0x9e3779b97f4a7c15) >> tab.shift; ; x = (x + 1) & tab.mask {
		sl := &tab.slots[x]
		if m := atomic.LoadUint32(&sl.mark); m == 0 || sl.key() == k {
			return m
		}
	}
}

// insert stores k -> val; k must not be stored. Under mu.
func (v *shortTable) insert(k uint64, val int32) {
	tab := v.tab.Load()
	mask := uint64(len(tab.slots) - 1)
	x := (k * 0x9e3779b97f4a7c15) >> tab.shift
	for tab.slots[x].mark != 0 {
		x = (x + 1) & mask
	}
	sl := &tab.slots[x]
	sl.klo, sl.khi = uint32(k), uint32(k>>32)
	atomic.StoreUint32(&sl.mark, uint32(val+2)) // publishes the slot
	v.n++
	if 4*v.n > 3*len(tab.slots) {
		v.grow()
	}
}

// grow publishes a copy of the table of twice the size (or the first table). Under mu (or
// before the table is shared).
func (v *shortTable) grow() {
	var old []sslot
	if tab := v.tab.Load(); tab != nil {
		old = tab.slots
	}
	tab := &shortTab{slots: freshmem.Make[sslot](max(2*len(old), 1024))} // probed (read) before written
	tab.shift = uint8(64 - bits.TrailingZeros(uint(len(tab.slots))))
	tab.mask = uint64(len(tab.slots) - 1)
	mask := tab.mask
	for _, sl := range old {
		if sl.mark == 0 {
			continue
		}
		x := (sl.key() * 0x9e3779b97f4a7c15) >> tab.shift
		for tab.slots[x].mark != 0 {
			x = (x + 1) & mask
		}
		tab.slots[x] = sl
	}
	v.tab.Store(tab)
}

// newWord returns the id of the token of a word of [A-Za-z0-9] (key k0, k1 when it has at
// most 16 bytes), or -1 when its stem is empty (Rouge drops it), adding the word to the
// vocabulary when it is new: the lock-free lookup did not find it (or it has more than 16
// bytes). The word is lowercased and stemmed before mu is taken, so the tokenizers stem in
// parallel; another may have added the word meanwhile, and then its value is kept. Once the
// epoch is full nothing is added to it: the word's token has its id in the epoch when the
// epoch has that token, else a local id (frozenID).
func (t *RougeTokenizer) newWord(w string, k0, k1 uint64) int32 {
	e := t.ep
	if len(w) > 16 {
		// Words this long are few (under 1% of WMT17's words): each tokenizer keeps its own
		// map of them, and only their tokens' ids are shared.
		tok := t.wordToken(w)
		if e.full() { // no lock, as for shorter words: a full epoch is not written any more
			return t.frozenID(tok) // not kept in long: a local id is the record's only
		}
		t.vocab.mu.Lock()
		if e.full() {
			t.vocab.mu.Unlock()
			return t.frozenID(tok)
		}
		val := e.wordID(tok)
		e.add(1, 0, len(w))
		t.vocab.mu.Unlock()
		if t.long == nil {
			t.long = make(map[string]int32)
		}
		t.long[strings.Clone(w)] = val // w aliases the caller's text
		return val
	}
	// A word with capitals has its lowercased form's token: when the vocabulary has that
	// form as a word, its id is the word's, and the word needs no stemming.
	val, known := e.lowerID(k0, k1, len(w))
	var tok string
	if !known {
		tok = t.wordToken(w)
	}
	if e.full() { // no lock: a full epoch is not written any more
		if known {
			return val
		}
		return t.frozenID(tok)
	}
	t.vocab.mu.Lock()
	defer t.vocab.mu.Unlock()
	if e.full() {
		if known {
			return val
		}
		return t.frozenID(tok)
	}
	if len(w) <= 8 {
		if m := e.short.find(k0); m != 0 {
			return int32(m) - 2
		}
		if !known {
			val = e.wordID(tok)
		}
		e.short.insert(k0, val)
		e.add(1, 0, 0)
		return val
	}
	h := shortHash(k0, k1)
	sl := e.words.find(k0, k1, h)
	if sl.mark != 0 {
		return int32(sl.mark) - 2
	}
	if !known {
		val = e.wordID(tok)
	}
	e.words.insert(sl, k0, k1, val) // may move the slots
	e.add(1, 0, 0)
	return val
}

// frozenID is the id of token tok in the tokenizer's epoch, which is full: the epoch's id of
// tok when it has one, else a local id, -1 for the empty token (the word is dropped). It
// takes no lock: a full epoch's tables are no longer written.
func (t *RougeTokenizer) frozenID(tok string) int32 {
	if tok == "" {
		return -1
	}
	if id, ok := t.ep.toks.find(tok, HashString(tok)); ok {
		return id
	}
	return t.localID(tok)
}

// localID returns the local id of tok, a token the tokenizer's full epoch does not have:
// the epoch's ids are followed by the tokenizer's local ones, which number the tokens of
// this kind met since the last Reset, and are valid until the next.
func (t *RougeTokenizer) localID(tok string) int32 {
	t.nLocalSeen++
	if id, ok := t.local[tok]; ok {
		return id
	}
	if t.local == nil {
		t.local = make(map[string]int32)
	}
	// The key is a copy (tok is in the tokenizer's buffers or the caller's text), in an arena
	// that Reset empties with the map: a key aliases the array it was appended to, which a
	// later growth of the arena leaves untouched.
	start := len(t.localBytes)
	t.localBytes = append(t.localBytes, tok...)
	key := bytesToString(t.localBytes[start:])
	id := t.ep.ids.Load() + int32(len(t.local))
	t.local[key] = id
	return id
}

// lowerID returns the value of the word of n bytes (at most 16) with key k0, k1 lowercased,
// when the word has capitals and the vocabulary has its lowercased form. It takes no lock.
func (e *vocabEpoch) lowerID(k0, k1 uint64, n int) (int32, bool) {
	// A byte of [A-Za-z0-9] lowercases by setting its 0x20 bit (digits and lowercase
	// letters have it); the zero bytes after the word must stay zero.
	const lo = 0x2020202020202020
	l0 := k0 | lo&(1<<(8*uint(min(n, 8)))-1)
	l1 := k1
	if n > 8 {
		l0 = k0 | lo
		l1 = k1 | lo&(1<<(8*uint(n-8))-1)
	}
	switch {
	case l0 == k0 && l1 == k1: // no capitals
		return 0, false
	case n <= 8:
		m := e.short.find(l0)
		return int32(m) - 2, m != 0
	}
	m := e.words.findShort(l0, l1, shortHash(l0, l1))
	return int32(m) - 2, m != 0
}

// wordID is the id of a word's token, -1 for the empty token (the word is dropped). Under mu.
func (e *vocabEpoch) wordID(tok string) int32 {
	if tok == "" {
		return -1
	}
	return e.tokenID(tok)
}

// wordToken lowercases and (when the tokenizer stems) stems a word of [A-Za-z0-9]. The token
// is valid until the next call (it is in the tokenizer's buffers).
func (t *RougeTokenizer) wordToken(w string) string {
	if cap(t.low) < len(w) {
		t.low = make([]byte, 0, max(64, 2*len(w)))
	}
	low := t.low[:len(w)]
	for k := 0; k < len(w); k++ {
		low[k] = w[k] | 0x20 // lowercases [A-Z]; [a-z0-9] have the bit
	}
	tok := bytesToString(low)
	if t.stem && len(tok) > 3 {
		if st, ok := porterPool(tok); ok {
			return st
		}
		// In place: low is the tokenizer's own, and tok is not used again.
		tok = bytesToString(stemBytes(low))
	}
	return tok
}

// appendIDsSlow is appendIDs through Append's general path, for text with U+0130 or U+212A
// (whose words are not cached).
func (t *RougeTokenizer) appendIDsSlow(dst []int32, ends []int, text string, lines bool) ([]int32, []int) {
	for text != "" {
		line := text
		if i := strings.IndexByte(text, '\n'); lines && i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if line == "" {
			continue
		}
		t.slow = t.appendSlow(t.slow[:0], line)
		for _, tok := range t.slow {
			dst = append(dst, t.TokenID(tok))
		}
		clear(t.slow)
		if lines {
			ends = append(ends, len(dst))
		}
	}
	return dst, ends
}
