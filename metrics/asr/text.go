package asr

import (
	"hash/maphash"
	"unicode"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// textOpts is how one preset turns a prediction or a reference into the symbols it aligns.
// It is immutable.
type textOpts struct {
	torch bool // torchmetrics: str.split() words / list(str) characters, nothing else
	chars bool // cer: characters (code points) instead of words
	lower bool // jiwer only: Python str.lower() first
	punct bool // jiwer only: delete Unicode P* characters (after lowercasing)
}

// prepare applies the jiwer options that rewrite the text before it is split: lowercase,
// then punctuation removal (the order of jiwer's own wer_standardize). buf is reused.
func (t textOpts) prepare(s string, buf []byte) (string, []byte) {
	if t.lower {
		s = tokenize.PyLower(s)
	}
	if t.punct {
		buf = buf[:0]
		for i := 0; i < len(s); {
			c := s[i]
			if c < utf8.RuneSelf {
				if !asciiPunct[c] {
					buf = append(buf, c)
				}
				i++
				continue
			}
			r, w := utf8.DecodeRuneInString(s[i:])
			if !unicode.Is(pyPunct, r) {
				buf = append(buf, s[i:i+w]...)
			}
			i += w
		}
		s = string(buf)
	}
	return s, buf
}

// pySplit appends the fields of Python's s.split() (torchmetrics' words).
// NewAppend cannot fail on this constant name (TestPySplit checks it is set).
var pySplit, _ = tokenize.NewAppend("whitespace")

// asciiPunct marks the ASCII characters of Unicode category P*.
var asciiPunct = func() (t [utf8.RuneSelf]bool) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		t[c] = unicode.Is(pyPunct, c)
	}
	return t
}()

// jiwerWords appends the words of s as jiwer 4's default transform makes them
// (RemoveMultipleSpaces, Strip, ReduceToListOfListOfWords): runs of two or more Python
// whitespace characters become one space, the ends are stripped, and the text is split on
// the space character only. So a single tab or no-break space between two words does not
// separate them ("a\tb" is one word), while any two whitespace characters do. The words alias
// s.
func jiwerWords(dst []string, s string) []string {
	start := -1 // start of the current word, -1 between words
	for i := 0; i < len(s); {
		switch byteClass[s[i]] {
		case classWord:
			// The common case: a run of ASCII characters of a word.
			if start < 0 {
				start = i
			}
			i++
			for i < len(s) && byteClass[s[i]] == classWord {
				i++
			}
			continue
		case classSpace:
			// One space before an ASCII word character: a plain separator.
			if i+1 < len(s) && byteClass[s[i+1]] == classWord {
				if start >= 0 {
					dst = append(dst, s[start:i])
				}
				start = i + 1
				i += 2
				continue
			}
		}
		r, w := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(s[i:])
		}
		if !tokenize.PyIsSpace(r) {
			if start < 0 {
				start = i
			}
			i += w
			continue
		}
		j, run := i+w, 1
		for j < len(s) {
			r2, w2 := rune(s[j]), 1
			if r2 >= utf8.RuneSelf {
				r2, w2 = utf8.DecodeRuneInString(s[j:])
			}
			if !tokenize.PyIsSpace(r2) {
				break
			}
			j += w2
			run++
		}
		if run == 1 && r != ' ' && start >= 0 && j < len(s) {
			// A lone non-space whitespace character inside the text survives
			// RemoveMultipleSpaces and Strip, and split(" ") keeps it in the word.
			i = j
			continue
		}
		if start >= 0 {
			dst = append(dst, s[start:i])
			start = -1
		}
		i = j
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

// The byte classes of jiwerWords' fast paths.
const (
	classWord  = iota // an ASCII character that is not Python whitespace
	classSpace        // ' '
	classOther        // other ASCII whitespace, or a byte of a multi-byte character
)

var byteClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == ' ':
			t[c] = classSpace
		case c >= utf8.RuneSelf || tokenize.PyIsSpace(rune(c)):
			t[c] = classOther
		}
	}
	return t
}()

// pyStrip is Python's s.strip() with no arguments.
func pyStrip(s string) string {
	for len(s) > 0 {
		r, w := utf8.DecodeRuneInString(s)
		if !tokenize.PyIsSpace(r) {
			break
		}
		s = s[w:]
	}
	for len(s) > 0 {
		r, w := utf8.DecodeLastRuneInString(s)
		if !tokenize.PyIsSpace(r) {
			break
		}
		s = s[:len(s)-w]
	}
	return s
}

// appendRunes appends the code points of s (Python's list(s) on valid UTF-8).
func appendRunes(dst []int32, s string) []int32 {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, int32(c))
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		dst = append(dst, r)
		i += w
	}
	return dst
}

// scratch holds the reusable buffers of one state (or one SentenceScore call). It is not
// safe for concurrent use.
type scratch struct {
	al       aligner
	words    []string
	ids      interner
	ref, hyp []int32
	buf      []byte
}

// symbols turns s into the symbol ids the aligner compares, in dst. Words get ids from
// sc.ids, which the caller clears once per pair (only equality within a pair matters).
func (t textOpts) symbols(sc *scratch, dst []int32, s string) []int32 {
	dst = dst[:0]
	if !t.torch {
		s, sc.buf = t.prepare(s, sc.buf)
	}
	if t.chars {
		if !t.torch {
			s = pyStrip(s)
		}
		return appendRunes(dst, s)
	}
	if t.torch {
		sc.words = pySplit(sc.words[:0], s)
	} else {
		sc.words = jiwerWords(sc.words[:0], s)
	}
	for _, w := range sc.words {
		dst = append(dst, sc.ids.id(w))
	}
	return dst
}

// pair aligns one prediction with its reference.
func (t textOpts) pair(sc *scratch, pred, ref string) counts {
	sc.ids.reset()
	sc.ref = t.symbols(sc, sc.ref, ref)
	sc.hyp = t.symbols(sc, sc.hyp, pred)
	return sc.al.align(sc.ref, sc.hyp)
}

// interner numbers the distinct words of one pair (0, 1, ...): only equality within a pair
// matters to the alignment. It is an open-addressing table whose slots carry the generation
// that filled them, so starting a new pair (reset) costs nothing. The words it holds alias
// the texts of the current pair; reset drops them, so that the table does not keep old
// records' buffers alive. Not safe for concurrent use.
type interner struct {
	slots []internSlot
	used  []uint32 // the slots filled in this generation
	gen   uint32
	n     int32 // words numbered in this generation
	seed  maphash.Seed
}

type internSlot struct {
	gen uint32
	id  int32
	s   string
}

// reset starts a new pair.
func (in *interner) reset() {
	for _, i := range in.used {
		in.slots[i].s = ""
	}
	in.used = in.used[:0]
	in.gen++
	in.n = 0
	if in.gen == 0 { // wrapped: old stamps could match again
		clear(in.slots)
		in.gen = 1
	}
}

// id returns the number of s in the current pair, numbering it when new.
func (in *interner) id(s string) int32 {
	if int(in.n+1)*2 > len(in.slots) {
		in.grow()
	}
	mask := uint64(len(in.slots) - 1)
	for i := maphash.String(in.seed, s) & mask; ; i = (i + 1) & mask {
		sl := &in.slots[i]
		if sl.gen != in.gen {
			*sl = internSlot{gen: in.gen, id: in.n, s: s}
			in.used = append(in.used, uint32(i))
			in.n++
			return sl.id
		}
		if sl.s == s {
			return sl.id
		}
	}
}

// grow doubles the table and re-inserts the current generation's words.
func (in *interner) grow() {
	old := in.slots
	if len(old) == 0 {
		in.seed = maphash.MakeSeed()
	}
	in.slots = make([]internSlot, max(64, 2*len(old)))
	mask := uint64(len(in.slots) - 1)
	used := in.used
	in.used = in.used[:0:0]
	for _, j := range used {
		sl := old[j]
		i := maphash.String(in.seed, sl.s) & mask
		for in.slots[i].gen == in.gen {
			i = (i + 1) & mask
		}
		in.slots[i] = sl
		in.used = append(in.used, uint32(i))
	}
}
