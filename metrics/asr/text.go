package asr

import (
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
	ids      map[string]int32
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
		id, ok := sc.ids[w]
		if !ok {
			id = int32(len(sc.ids))
			sc.ids[w] = id
		}
		dst = append(dst, id)
	}
	return dst
}

// pair aligns one prediction with its reference.
func (t textOpts) pair(sc *scratch, pred, ref string) counts {
	if sc.ids == nil {
		sc.ids = make(map[string]int32)
	} else if len(sc.ids) > 0 {
		clear(sc.ids)
	}
	sc.ref = t.symbols(sc, sc.ref, ref)
	sc.hyp = t.symbols(sc, sc.hyp, pred)
	return sc.al.align(sc.ref, sc.hyp)
}
