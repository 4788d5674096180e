package tokenize

import (
	"strings"
	"unicode/utf8"
)

// rougeAlnum marks the bytes of [a-z0-9], rouge-score's token characters.
var rougeAlnum = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	return t
}()

// Rouge returns rouge-score's DefaultTokenizer(use_stemmer=stem).tokenize(text)
// (rouge-score 0.1.2): Python's text.lower(); every run of characters
// outside [a-z0-9] becomes one space; the text is split on whitespace;
// with stem, tokens longer than 3 characters go through PorterStem (NLTK
// 3.9.1); only tokens matching ^[a-z0-9]+$ are kept. All non-ASCII letters
// are separators, so "Héllo" gives [h llo]. Returned tokens may alias text.
func Rouge(text string, stem bool) []string {
	src, n := rougeSource(text)
	if n == 0 {
		return nil
	}
	toks := make([]string, 0, n)
	long := 0 // bytes in tokens longer than 3
	for i := 0; i < len(src); {
		for i < len(src) && !rougeAlnum[src[i]] {
			i++
		}
		j := i
		for j < len(src) && rougeAlnum[src[j]] {
			j++
		}
		if j > i {
			toks = append(toks, src[i:j])
			if j-i > 3 {
				long += j - i
			}
		}
		i = j
	}
	if !stem || long == 0 {
		return toks
	}
	arena := make([]byte, 0, long)
	k := 0
	for _, t := range toks {
		if len(t) > 3 {
			t = stemASCII(t, &arena)
		}
		if t != "" {
			toks[k] = t
			k++
		}
	}
	return toks[:k]
}

// rougeSource returns text with Python's lower() applied where it can
// produce [a-z0-9]: A-Z become a-z, U+0130 'İ' (lowercase "i̇", whose
// combining dot is a separator) becomes "i " and U+212A KELVIN SIGN
// becomes "k". Every other non-ASCII character lowercases to non-ASCII
// characters, which are separators either way, so it is left as it is.
// text itself is returned when nothing changes. n bounds the number of
// tokens.
func rougeSource(text string) (src string, n int) {
	return rougeSourceBuf(text, nil)
}

// rougeSourceBuf is rougeSource writing a lowercased copy into the free capacity of *buf
// when there is room (then *buf grows by the copy), else into a new allocation.
func rougeSourceBuf(text string, buf *[]byte) (src string, n int) {
	in, need := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case rougeAlnum[c]:
		case 'A' <= c && c <= 'Z':
			need = true
		case c == 0xc4 && i+1 < len(text) && text[i+1] == 0xb0,
			c == 0xe2 && i+2 < len(text) && text[i+1] == 0x84 && text[i+2] == 0xaa:
			need = true
		default:
			in = false
			continue
		}
		if !in {
			n++
			in = true
		}
	}
	if !need {
		return text, n
	}
	// Rewrite a copy in place: the output is never longer than the input.
	var out []byte
	if buf != nil && cap(*buf)-len(*buf) >= len(text) {
		off := len(*buf)
		out = append((*buf)[off:off:cap(*buf)], text...)
	} else {
		out = []byte(text)
		buf = nil
	}
	j := 0
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		case c == 0xc4 && i+1 < len(out) && out[i+1] == 0xb0: // İ -> "i" + separator
			out[j] = 'i'
			j++
			c = ' '
			i++
		case c == 0xe2 && i+2 < len(out) && out[i+1] == 0x84 && out[i+2] == 0xaa: // K -> "k"
			c = 'k'
			i += 2
		}
		out[j] = c
		j++
	}
	if buf != nil {
		*buf = (*buf)[:len(*buf)+j]
	}
	return bytesToString(out[:j:j]), n
}

// RougeTokenizer is Rouge(text, stem) with reusable buffers and, when it stems, a cache of
// the stems of the words it has seen: Porter stemming is most of the tokenizer's cost and
// text repeats words. The cache has a fixed size (stemCacheSlots words), so memory stays
// bounded. Its id path (AppendIDs) maps words through a RougeVocab, which tokenizers may
// share. A RougeTokenizer is not safe for concurrent use (its RougeVocab is).
type RougeTokenizer struct {
	stem  bool
	buf   []byte    // lowercased copies, append-only until Reset
	cache stemCache // lowercase word -> stem
	arena []byte    // scratch of stemASCII

	// The id path (AppendIDs): word as written -> token id, token -> id.
	vocab *RougeVocab
	ep    *vocabEpoch      // the vocabulary's epoch at the last Reset: the ids since come from it
	long  map[string]int32 // words of more than 16 bytes -> token id, in epoch ep
	// Tokens that ep, once full, does not have -> local ids (see localID), until Reset.
	local      map[string]int32
	localBytes []byte // the keys of local
	// Tokens given ids, and local ids given, since Reset last weighed them (retireWindow).
	nSeen, nLocalSeen int
	low               []byte   // a lowercased word
	slow              []string // tokens of appendIDsSlow
}

// NewRougeTokenizer returns a tokenizer computing Rouge(text, stem), with a vocabulary of its
// own.
func NewRougeTokenizer(stem bool) *RougeTokenizer {
	return NewRougeTokenizerWith(NewRougeVocab(stem))
}

// NewRougeTokenizerWith returns a tokenizer computing Rouge(text, stem) whose id path uses
// the vocabulary v (and v's stem). Tokenizers on other goroutines may use v at the same time.
func NewRougeTokenizerWith(v *RougeVocab) *RougeTokenizer {
	return &RougeTokenizer{stem: v.stem, vocab: v, ep: v.epoch()}
}

// Reset lets the tokenizer reuse its buffers: tokens returned by Append before are invalid
// afterwards, and so are local ids (those at or above the NumIDs of a full vocabulary epoch,
// see localID). The other ids returned by AppendIDs and TokenID before stay valid while the
// tokenizer stays in its vocabulary epoch: Reset moves it to the next epoch, which starts
// empty (with a vocabulary of its own, NumIDs falls) and whose ids are not comparable with
// the earlier ones, when the corpus has moved on from the current one: more than one token
// in retireShare of the last retireWindow or more needed a local id.
func (t *RougeTokenizer) Reset() {
	t.buf = t.buf[:0]
	switch {
	case len(t.local) > localKeep:
		// A record with this many tokens the vocabulary lacks is rare: its map and keys go
		// with it rather than stay with the tokenizer for the rest of the run.
		t.local, t.localBytes = nil, nil
	case len(t.local) > 0:
		clear(t.local)
		t.localBytes = t.localBytes[:0]
	}
	if t.nSeen >= retireWindow {
		if t.nLocalSeen*retireShare > t.nSeen {
			t.ep.retired.Store(true)
		}
		t.nSeen, t.nLocalSeen = 0, 0
	}
	if e := t.vocab.epoch(); e != t.ep {
		t.ep = e
		t.long = nil // its ids are the old epoch's
		t.nSeen, t.nLocalSeen = 0, 0
	}
}

// A full vocabulary epoch is replaced when more than one token in retireShare needed a local
// id over the last retireWindow tokens or more of a tokenizer: in a corpus whose words keep
// their frequencies, the epoch (the first words met) has nearly every token, and rare ones
// are cheaper stemmed where they occur than a new epoch, which would stem and add the
// common words again; a corpus that moves on to other words gets a vocabulary of them.
const (
	retireWindow = 1 << 14
	retireShare  = 4
)

// localKeep is the most local ids whose map and keys Reset keeps for the next record.
const localKeep = 1 << 12

// rougeByte classifies bytes for RougeTokenizer.Append: 1 = [a-z0-9], 2 = [A-Z], 3 = the
// lead byte of U+0130 or U+212A (which lowercase to ASCII letters), 0 = a separator.
var rougeByte = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case rougeAlnum[c]:
			t[c] = 1
		case 'A' <= c && c <= 'Z':
			t[c] = 2
		case c == 0xc4 || c == 0xe2:
			t[c] = 3
		}
	}
	return t
}()

// Append appends the tokens of Rouge(text, stem) to dst. The tokens alias text or the
// tokenizer's buffers and stay valid until Reset.
func (t *RougeTokenizer) Append(dst []string, text string) []string {
	first := len(dst)
	for i := 0; i < len(text); {
		switch rougeByte[text[i]] {
		case 0:
			i++
			continue
		case 3:
			if strings.HasPrefix(text[i:], "\u0130") || strings.HasPrefix(text[i:], "\u212a") {
				// A capital that lowercases to an ASCII letter: the general path.
				return t.appendSlow(dst[:first], text)
			}
			i++ // any other character is a separator
			continue
		}
		j, upper := i, false
		for ; j < len(text); j++ {
			c := rougeByte[text[j]]
			if c == 1 {
				continue
			}
			if c == 2 {
				upper = true
				continue
			}
			break
		}
		tok := text[i:j]
		if upper {
			tok = t.lower(tok)
		}
		dst = append(dst, tok)
		i = j
	}
	return t.stemTokens(dst, first)
}

// appendSlow is Append through rougeSource, for text with U+0130 or U+212A.
func (t *RougeTokenizer) appendSlow(dst []string, text string) []string {
	if cap(t.buf)-len(t.buf) < len(text) {
		// A full buffer is replaced, never overwritten: earlier tokens keep their bytes.
		t.buf = make([]byte, 0, max(2*cap(t.buf), len(text), 4096))
	}
	src, n := rougeSourceBuf(text, &t.buf)
	if n == 0 {
		return dst
	}
	first := len(dst)
	for i := 0; i < len(src); {
		for i < len(src) && !rougeAlnum[src[i]] {
			i++
		}
		j := i
		for j < len(src) && rougeAlnum[src[j]] {
			j++
		}
		if j > i {
			dst = append(dst, src[i:j])
		}
		i = j
	}
	return t.stemTokens(dst, first)
}

// lower returns an ASCII token lowercased, in the buffer. The buffer only grows until Reset,
// so earlier tokens keep their bytes; a full buffer is replaced, not overwritten.
func (t *RougeTokenizer) lower(tok string) string {
	if cap(t.buf)-len(t.buf) < len(tok) {
		t.buf = make([]byte, 0, max(2*cap(t.buf), len(tok), 4096))
	}
	off := len(t.buf)
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		t.buf = append(t.buf, c)
	}
	return bytesToString(t.buf[off:len(t.buf):len(t.buf)])
}

// stemTokens stems dst[first:] in place when the tokenizer stems.
func (t *RougeTokenizer) stemTokens(dst []string, first int) []string {
	if !t.stem {
		return dst
	}
	k := first
	for _, w := range dst[first:] {
		if len(w) > 3 {
			w = t.stemWord(w)
		}
		if w != "" {
			dst[k] = w
			k++
		}
	}
	return dst[:k]
}

// stemWord returns the stem of a lowercase ASCII word longer than 3 bytes, from the cache
// when it has been seen.
func (t *RougeTokenizer) stemWord(w string) string {
	h := HashString(w)
	st, copyOut, ok := t.cache.get(w, h)
	if !ok {
		if t.arena == nil {
			t.arena = make([]byte, 0, 64)
		}
		arena := t.arena[:0]
		st = stemASCII(w, &arena)
		t.arena = arena // reused: st is copied out below before the next word
		t.cache.put(w, h, st)
		copyOut = len(st) > len(w) || st != w[:len(st)]
		if !copyOut {
			return w[:len(st)]
		}
	}
	if !copyOut {
		return st
	}
	// Copy into the record's buffer: the cache slot may be reused by the next word.
	if cap(t.buf)-len(t.buf) < len(st) {
		t.buf = make([]byte, 0, max(2*cap(t.buf), len(st), 4096))
	}
	off := len(t.buf)
	t.buf = append(t.buf, st...)
	return bytesToString(t.buf[off:len(t.buf):len(t.buf)])
}
