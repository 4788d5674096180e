package tokenize

import (
	"encoding/binary"
	"math/bits"
	"strings"
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

// Bounds of the vocabulary: Reset clears it when it holds more words or bytes than this, so
// its memory stays bounded (under 9 MB: at most 4.5 MiB of word slots in the two word
// tables, 2 MiB of token slots and the bytes) whatever the corpus.
const (
	vocabMaxWords = 1 << 16
	vocabMaxBytes = 1 << 21 // of the long words and of the tokens
)

// emptyTokenID is the id of the empty token.
const emptyTokenID = 0

// vocab is an exact open-addressing table from byte strings to int32 values.
type vocab struct {
	slots []vslot
	bytes []byte // the keys, back to back
	n     int
}

// vslot is one key of a vocab: its bytes are bytes[off:off+n]; n == 0 marks a free slot
// (keys are never empty).
type vslot struct {
	hash uint32
	n    uint32
	off  uint32
	val  int32
}

func (v *vocab) clear() {
	clear(v.slots)
	v.bytes = v.bytes[:0]
	v.n = 0
}

// find returns the slot of s (whose hash is h): its own, or the free one where it belongs.
func (v *vocab) find(s string, h uint64) *vslot {
	mask := uint64(len(v.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &v.slots[i]
		if sl.n == 0 || sl.hash == uint32(h) && int(sl.n) == len(s) && string(v.bytes[sl.off:sl.off+sl.n]) == s {
			return sl
		}
	}
}

// insert stores s -> val in the free slot sl that find returned for s.
func (v *vocab) insert(sl *vslot, s string, h uint64, val int32) {
	*sl = vslot{hash: uint32(h), n: uint32(len(s)), off: uint32(len(v.bytes)), val: val}
	v.bytes = append(v.bytes, s...)
	v.n++
	if 2*v.n > len(v.slots) {
		v.grow()
	}
}

// grow doubles the table (or makes the first one).
func (v *vocab) grow() {
	old := v.slots
	v.slots = freshmem.Make[vslot](max(2*len(old), 1024)) // probed (read) before written
	mask := uint64(len(v.slots) - 1)
	for _, sl := range old {
		if sl.n == 0 {
			continue
		}
		// The slot keeps the low 32 bits of the key's hash, all find uses of it while
		// the table has at most 2^32 slots.
		i := uint64(sl.hash) & mask
		for v.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = sl
	}
}

// ready makes the first table.
func (v *vocab) ready() {
	if v.slots == nil {
		v.grow()
	}
}

// wordTable is vocab's layout for the words of AppendIDs longer than 8 bytes (shorter ones
// are in a shortTable), which are looked up once per word of text: a word of at most 16
// bytes is kept in its slot (k0, k1: its bytes, little-endian, zero-padded), so a lookup
// reads one 32-byte slot and nothing else; longer words are
// compared by hash and bytes, as in vocab. The slot of a key is given by the top bits of its
// 64-bit hash (Fibonacci hashing), which is why hash keeps the top 32 bits.
type wordTable struct {
	slots []wslot
	shift uint8  // 32 - log2(len(slots))
	bytes []byte // the bytes of the long words
	n     int
}

type wslot struct {
	k0, k1 uint64
	hash   uint32 // the top 32 bits of the key's hash
	n      uint32 // word length; 0 marks a free slot
	off    uint32 // long words: start in bytes
	val    int32
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

func (v *wordTable) clear() {
	clear(v.slots)
	v.bytes = v.bytes[:0]
	v.n = 0
}

// findShort returns the slot of the short word with key k0, k1 and hash h: its own, or the
// free one where it belongs.
func (v *wordTable) findShort(k0, k1, h uint64, n int) *wslot {
	mask := uint32(len(v.slots) - 1)
	for x := uint32(h>>32) >> v.shift; ; x = (x + 1) & mask {
		sl := &v.slots[x]
		if sl.n == 0 || sl.k0 == k0 && sl.k1 == k1 && int(sl.n) == n {
			return sl
		}
	}
}

// findLong is findShort for a word of more than 16 bytes (hash h = HashString(w)).
func (v *wordTable) findLong(w string, h uint64) *wslot {
	mask := uint32(len(v.slots) - 1)
	for x := uint32(h>>32) >> v.shift; ; x = (x + 1) & mask {
		sl := &v.slots[x]
		if sl.n == 0 || int(sl.n) == len(w) && sl.hash == uint32(h>>32) && string(v.bytes[sl.off:sl.off+sl.n]) == w {
			return sl
		}
	}
}

// insert stores the word w -> val in the free slot sl that findShort (with the key k0, k1)
// or findLong returned for it.
func (v *wordTable) insert(sl *wslot, w string, k0, k1, h uint64, val int32) {
	*sl = wslot{k0: k0, k1: k1, hash: uint32(h >> 32), n: uint32(len(w)), val: val}
	if len(w) > 16 {
		sl.off = uint32(len(v.bytes))
		v.bytes = append(v.bytes, w...)
	}
	v.n++
	if 4*v.n > 3*len(v.slots) {
		v.grow()
	}
}

// grow doubles the table (or makes the first one).
func (v *wordTable) grow() {
	old := v.slots
	v.slots = freshmem.Make[wslot](max(2*len(old), 1024)) // probed (read) before written
	v.shift = uint8(32 - bits.TrailingZeros(uint(len(v.slots))))
	mask := uint32(len(v.slots) - 1)
	for _, sl := range old {
		if sl.n == 0 {
			continue
		}
		x := sl.hash >> v.shift
		for v.slots[x].n != 0 {
			x = (x + 1) & mask
		}
		v.slots[x] = sl
	}
}

// NumIDs bounds the ids that AppendIDs and TokenID have returned since the vocabulary was
// last cleared: they are all below it.
func (t *RougeTokenizer) NumIDs() int { return t.toks.n + 1 } // + the empty token's

// TokenID returns the id of tok taken as a token as it is (no lowercasing, no stemming): the
// id AppendIDs gives a word whose token is tok. The id is valid until Reset clears the
// vocabulary.
func (t *RougeTokenizer) TokenID(tok string) int32 {
	if tok == "" {
		// Only pre-tokenized input has empty tokens; a vocab key is never empty.
		return emptyTokenID
	}
	t.toks.ready()
	h := HashString(tok)
	sl := t.toks.find(tok, h)
	if sl.n != 0 {
		return sl.val
	}
	id := int32(t.toks.n + 1)
	t.toks.insert(sl, tok, h, id)
	return id
}

// AppendIDs appends to dst the ids of the tokens of Rouge(text, stem) (TokenID of each), in
// order. The ids are valid until Reset clears the vocabulary, which it does only when the
// vocabulary has outgrown its bounds; so ids appended between two calls of Reset can be
// compared with each other.
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
	if t.words.slots == nil {
		t.words.grow()
		t.short.grow()
	}
	first, firstEnd := len(dst), len(ends)
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
				// A capital that lowercases to an ASCII letter: the general path.
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
		switch {
		case n <= 8:
			var ok bool
			if val, ok = t.short.find(k0); !ok {
				val = t.wordToken(text[i:j])
				t.short.insert(k0, val)
			}
		case n <= 16:
			h := shortHash(k0, k1)
			sl := t.words.findShort(k0, k1, h, n)
			val = sl.val
			if sl.n == 0 {
				val = t.wordToken(text[i:j])
				t.words.insert(sl, text[i:j], k0, k1, h, val) // may move the slots
			}
		default:
			h := HashString(text[i:j])
			sl := t.words.findLong(text[i:j], h)
			val = sl.val
			if sl.n == 0 {
				val = t.wordToken(text[i:j])
				t.words.insert(sl, text[i:j], k0, k1, h, val)
			}
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
// key determines the word and is never 0, which marks a free slot), and a slot is 16 bytes,
// so the table of a large corpus stays in the core's cache.
type shortTable struct {
	slots []sslot
	shift uint8 // 64 - log2(len(slots))
	n     int
}

type sslot struct {
	k   uint64
	val int32
}

func (v *shortTable) clear() {
	clear(v.slots)
	v.n = 0
}

// find returns the value of key k, if stored.
func (v *shortTable) find(k uint64) (int32, bool) {
	mask := uint64(len(v.slots) - 1)
	for x := (k * 0x9e3779b97f4a7c15) >> v.shift; ; x = (x + 1) & mask {
		sl := &v.slots[x]
		if sl.k == k {
			return sl.val, true
		}
		if sl.k == 0 {
			return 0, false
		}
	}
}

// insert stores k -> val; k must not be stored.
func (v *shortTable) insert(k uint64, val int32) {
	mask := uint64(len(v.slots) - 1)
	x := (k * 0x9e3779b97f4a7c15) >> v.shift
	for v.slots[x].k != 0 {
		x = (x + 1) & mask
	}
	v.slots[x] = sslot{k: k, val: val}
	v.n++
	if 4*v.n > 3*len(v.slots) {
		v.grow()
	}
}

// grow doubles the table (or makes the first one).
func (v *shortTable) grow() {
	old := v.slots
	v.slots = freshmem.Make[sslot](max(2*len(old), 1024)) // probed (read) before written
	v.shift = uint8(64 - bits.TrailingZeros(uint(len(v.slots))))
	mask := uint64(len(v.slots) - 1)
	for _, sl := range old {
		if sl.k == 0 {
			continue
		}
		x := (sl.k * 0x9e3779b97f4a7c15) >> v.shift
		for v.slots[x].k != 0 {
			x = (x + 1) & mask
		}
		v.slots[x] = sl
	}
}

// wordToken lowercases and (when the tokenizer stems) stems a word of [A-Za-z0-9] and
// returns the id of its token, or -1 when the stem is empty (Rouge drops it).
func (t *RougeTokenizer) wordToken(w string) int32 {
	if cap(t.low) < len(w) {
		t.low = make([]byte, 0, max(64, 2*len(w)))
	}
	low := t.low[:len(w)]
	for k := 0; k < len(w); k++ {
		c := w[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[k] = c
	}
	tok := bytesToString(low)
	if t.stem && len(tok) > 3 {
		if t.arena == nil {
			t.arena = make([]byte, 0, 64)
		}
		arena := t.arena[:0]
		tok = stemASCII(tok, &arena)
		t.arena = arena
	}
	if tok == "" {
		return -1
	}
	return t.TokenID(tok) // copies tok: low and arena are reused
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

// resetVocab clears the vocabulary when it has outgrown its bounds.
func (t *RougeTokenizer) resetVocab() {
	if t.words.n+t.short.n > vocabMaxWords || len(t.words.bytes)+len(t.toks.bytes) > vocabMaxBytes {
		t.words.clear()
		t.short.clear()
		t.toks.clear()
	}
}
