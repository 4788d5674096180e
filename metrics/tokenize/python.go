package tokenize

import (
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// asciiSpace marks the ASCII bytes that Python's str.isspace() accepts:
// \t \n \v \f \r, the separators \x1c-\x1f, and the space.
var asciiSpace = [utf8.RuneSelf]bool{
	'\t': true, '\n': true, '\v': true, '\f': true, '\r': true,
	0x1c: true, 0x1d: true, 0x1e: true, 0x1f: true, ' ': true,
}

// PyIsSpace reports whether Python's str.isspace() is true for the one-rune
// string r. Beyond Go's unicode.IsSpace it accepts the ASCII separators
// \x1c-\x1f; it is false for U+180E, U+200B and U+FEFF, as Python is.
func PyIsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && asciiSpace[r]
	}
	switch r {
	case 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// spaceLen returns the byte length of the non-ASCII Python whitespace rune
// that starts at s[i], or 0 if none does. It looks at bytes only: every
// sequence it accepts starts with a lead byte, so it agrees with UTF-8
// decoding even inside invalid input.
func spaceLen(s string, i int) int {
	switch s[i] {
	case 0xc2: // U+0085, U+00A0
		if i+1 < len(s) && (s[i+1] == 0x85 || s[i+1] == 0xa0) {
			return 2
		}
	case 0xe1: // U+1680
		if i+2 < len(s) && s[i+1] == 0x9a && s[i+2] == 0x80 {
			return 3
		}
	case 0xe2:
		if i+2 < len(s) {
			b1, b2 := s[i+1], s[i+2]
			// U+2000-U+200A, U+2028, U+2029, U+202F.
			if b1 == 0x80 && (0x80 <= b2 && b2 <= 0x8a || b2 == 0xa8 || b2 == 0xa9 || b2 == 0xaf) {
				return 3
			}
			if b1 == 0x81 && b2 == 0x9f { // U+205F
				return 3
			}
		}
	case 0xe3: // U+3000
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x80 {
			return 3
		}
	}
	return 0
}

// PyIsWordRune reports whether r matches \w of Python 3's re module for str
// patterns, that is str.isalnum() or '_', with Python 3.11's Unicode 14.0
// tables (which differ from Go's unicode package, on Unicode 15.0).
func PyIsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && ('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_')
	}
	return unicode.Is(pyWord, r)
}

// PySplit returns the fields of s as Python's s.split() with no arguments
// does: runs of Python whitespace (PyIsSpace, which includes \x1c-\x1f,
// U+0085, U+2028 and U+3000) separate fields and empty fields are dropped.
// The returned strings alias s. Invalid UTF-8 bytes are kept as non-space
// characters.
func PySplit(s string) []string {
	n := 0
	for i := 0; i < len(s); {
		i = skipSpace(s, i)
		if i == len(s) {
			break
		}
		n++
		i = skipField(s, i)
	}
	if n == 0 {
		return nil
	}
	return appendPySplit(make([]string, 0, n), s)
}

// appendPySplit appends the Python str.split() fields of s to dst.
func appendPySplit(dst []string, s string) []string {
	for i := 0; i < len(s); {
		i = skipSpace(s, i)
		if i == len(s) {
			break
		}
		j := skipField(s, i)
		dst = append(dst, s[i:j])
		i = j
	}
	return dst
}

// skipSpace returns the index of the first byte at or after i that does not
// start a Python whitespace character.
func skipSpace(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return i
			}
			i++
			continue
		}
		w := spaceLen(s, i)
		if w == 0 {
			return i
		}
		i += w
	}
	return i
}

// skipField returns the index of the first byte at or after i that starts
// a Python whitespace character, or len(s).
func skipField(s string, i int) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiSpace[c] {
				return i
			}
			i++
			continue
		}
		if spaceLen(s, i) > 0 {
			return i
		}
		i++
	}
	return i
}

// pyRstrip is Python's s.rstrip() with no arguments.
func pyRstrip(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return s
			}
			s = s[:len(s)-1]
			continue
		}
		r, n := utf8.DecodeLastRuneInString(s)
		if n == 1 || !PyIsSpace(r) {
			return s
		}
		s = s[:len(s)-n]
	}
	return s
}

// pyStrip is Python's s.strip() with no arguments.
func pyStrip(s string) string {
	s = pyRstrip(s)
	for len(s) > 0 {
		c := s[0]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return s
			}
			s = s[1:]
			continue
		}
		n := spaceLen(s, 0)
		if n == 0 {
			return s
		}
		s = s[n:]
	}
	return s
}

// lowerRange maps code points lo, lo+stride, ..., hi to code point+delta.
type lowerRange struct {
	lo, hi uint32
	stride uint32
	delta  int32
}

// pyLowerRune returns Python's single-rune lowercase of r, ignoring the
// multi-rune mappings in pyLowerSpecial and the Final_Sigma context.
func pyLowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	u := uint32(r)
	lo, hi := 0, len(pyLowerRanges)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		e := &pyLowerRanges[m]
		switch {
		case u < e.lo:
			hi = m
		case u > e.hi:
			lo = m + 1
		default:
			if (u-e.lo)%e.stride == 0 {
				return r + rune(e.delta)
			}
			return r
		}
	}
	return r
}

const (
	capitalSigma = 0x3a3
	smallSigma   = 0x3c3
	finalSigma   = 0x3c2
	dottedCapI   = 0x130
)

// PyLower returns s lowercased exactly as Python 3.11's s.lower() does: the
// full Unicode 14.0 lowercase mapping, including the special casing
// U+0130 'İ' -> "i̇" (two runes) and the Final_Sigma rule (Σ becomes ς at
// the end of a word, σ elsewhere). Go's strings.ToLower does neither.
// Invalid UTF-8 bytes are copied unchanged. If nothing changes, s itself is
// returned.
func PyLower(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == capitalSigma || r == dottedCapI || pyLowerRune(r) != r {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	buf := make([]byte, i, len(s)+8)
	copy(buf, s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case n == 1: // invalid byte
			buf = append(buf, c)
		case r == capitalSigma:
			if isFinalSigma(s, i, i+n) {
				buf = utf8.AppendRune(buf, finalSigma)
			} else {
				buf = utf8.AppendRune(buf, smallSigma)
			}
		default:
			if m, ok := pyLowerSpecial[r]; ok {
				buf = append(buf, m...)
			} else if l := pyLowerRune(r); l != r {
				buf = utf8.AppendRune(buf, l)
			} else {
				buf = append(buf, s[i:i+n]...)
			}
		}
		i += n
	}
	return bytesToString(buf)
}

// isFinalSigma reports whether the capital sigma at s[start:end] is in the
// Final_Sigma context as CPython's handle_capital_sigma decides it: the
// nearest preceding character that is not case-ignorable exists and is
// cased, and the nearest following one does not exist or is not cased.
func isFinalSigma(s string, start, end int) bool {
	j := start
	for {
		if j == 0 {
			return false
		}
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if !unicode.Is(pyCaseIgnorable, r) {
			if !unicode.Is(pyCased, r) {
				return false
			}
			break
		}
	}
	for j = end; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		j += n
		if !unicode.Is(pyCaseIgnorable, r) {
			return !unicode.Is(pyCased, r)
		}
	}
	return true
}

// bytesToString returns b as a string without copying. The caller must
// never modify b afterwards.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
