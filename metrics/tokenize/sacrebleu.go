package tokenize

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// How the regex tokenizers are reproduced without regular expressions.
//
// sacrebleu's 13a and zh tokenizers end in TokenizerRegexp, which applies
// these substitutions in order and then collapses whitespace:
//
//	1. ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "   (isolate ASCII punctuation)
//	2. ([^0-9])([\.,])                  -> "\1 \2 "
//	3. ([\.,])([^0-9])                  -> " \1 \2"
//	4. ([0-9])(-)                       -> "\1 \2 "
//
// and intl applies (\P{N})(\p{P}) -> "\1 \2 ", (\p{P})(\P{N}) -> " \1 \2",
// (\p{S}) -> " \1 " with the regex module. Since the passes only insert
// spaces, the output tokens are the input's non-space characters cut at a
// set of boundaries, and each boundary can be decided locally:
//
//   - an isolated character (pass 1, CJK for zh, \p{S} for intl) has a
//     boundary on both sides;
//   - a digit followed by '-' has a boundary between them and after the '-'
//     (13a and zh);
//   - for a maximal run p0..pk-1 of "run" characters ([.,] for 13a and zh,
//     \p{P} for intl) with b the character before it and a the one after:
//     let bND be "b exists and is not a digit" and aND the same for a
//     (13a pads the line with spaces, so both exist there; \P{N} and [^0-9]
//     decide "not a digit"). The leftmost-first, non-overlapping matching
//     of the two run passes then gives: a boundary between every two run
//     characters; one before p0 iff bND || k >= 2 || aND; and one after
//     pk-1 iff aND || pk-1 was the second group of a pass-2 match, which is
//     the case iff bND == (k is odd).
//
// The spaces that pass 1 inserts do not change the run rule because the
// characters it isolates are neither digits nor run characters, and the
// spaces that passes 2 and 3 insert never separate a digit from a '-'.
// The golden tests check this against sacrebleu on random text.

// class is the role of one character in a regex tokenizer.
type class uint8

const (
	clsOther class = iota // joins its neighbours
	clsSpace              // Python whitespace: separates tokens
	clsIso                // always a token of its own
	clsRun                // [.,] (13a, zh) or \p{P} (intl)
	clsNum                // [0-9] (13a, zh) or \p{N} (intl)
	clsHyph               // '-' in 13a and zh
	clsNone               // the absent character before an unpadded line
	clsCheck              // (byte tables) a non-ASCII lead byte: classAt decides
	clsPre                // (byteClasses13aRaw) '<', '&' or '\n': pre13a may change the line
)

// scheme is one of the regex tokenizers.
type scheme uint8

const (
	scheme13a scheme = iota
	schemeZh
	schemeIntl
)

// classes13a is the ASCII class table of 13a and zh.
var classes13a = func() (t [utf8.RuneSelf]class) {
	for c := 0; c < utf8.RuneSelf; c++ {
		switch {
		case asciiSpace[c]:
			t[c] = clsSpace
		case c >= '{' && c <= '~', c >= '[' && c <= '`', c >= ' ' && c <= '&',
			c >= '(' && c <= '+', c >= ':' && c <= '@', c == '/':
			t[c] = clsIso
		case c == '.' || c == ',':
			t[c] = clsRun
		case c >= '0' && c <= '9':
			t[c] = clsNum
		case c == '-':
			t[c] = clsHyph
		}
	}
	return t
}()

// byteClasses13a, byteClassesZh and byteClassesIntl classify every byte value: ASCII as the
// tables above, and a non-ASCII byte as clsCheck when it may start a character whose class is
// not clsOther. In 13a every non-ASCII character but whitespace is clsOther, and non-ASCII
// Python whitespace starts with 0xC2, 0xE1, 0xE2 or 0xE3: other bytes (accented letters)
// stay in the fast path.
var byteClasses13a, byteClassesZh, byteClassesIntl = func() (t13, tzh, tin [256]class) {
	for c := 0; c < 256; c++ {
		switch {
		case c < utf8.RuneSelf:
			t13[c], tzh[c], tin[c] = classes13a[c], classes13a[c], classesIntl[c]
		default:
			t13[c], tzh[c], tin[c] = clsOther, clsCheck, clsCheck
		}
	}
	for _, c := range []byte{0xc2, 0xe1, 0xe2, 0xe3} {
		t13[c] = clsCheck
	}
	return
}()

// byteClasses13aRaw is byteClasses13a for a line pre13a has not seen: the bytes that start
// what pre13a rewrites are clsPre, which stops the tokenizer (see append13a).
var byteClasses13aRaw = func() (t [256]class) {
	t = byteClasses13a
	t['<'], t['&'], t['\n'] = clsPre, clsPre, clsPre
	return t
}()

// classesIntl is the ASCII class table of intl.
var classesIntl = func() (t [utf8.RuneSelf]class) {
	for c := rune(0); c < utf8.RuneSelf; c++ {
		t[c] = intlClass(c)
	}
	return t
}()

// intlClass classifies r for the intl tokenizer.
func intlClass(r rune) class {
	switch {
	case PyIsSpace(r):
		return clsSpace
	case unicode.Is(regexP, r):
		return clsRun
	case unicode.Is(regexS, r):
		return clsIso
	case unicode.Is(regexN, r):
		return clsNum
	}
	return clsOther
}

// isZhChar reports whether sacrebleu's TokenizerZh._is_chinese_char is true
// for r. QUIRK: sacrebleu writes two range bounds as 5-hex-digit \u
// escapes, which Python reads as a 4-digit escape plus a digit, so its
// comparison of one-character strings accepts U+2001-U+2A6D (general
// punctuation, arrows, math symbols, dingbats, ...) and U+2F81-U+2FA1
// instead of the CJK Extension B and Compatibility Supplement planes.
func isZhChar(r rune) bool {
	switch {
	case r < 0x2001:
		return false
	case r <= 0x2a6d: // the QUIRK range; covers 2600-26ff and 2700-27bf too
		return true
	case r < 0x2e80:
		return false
	case r <= 0x2fdf: // CJK radicals supplement, Kangxi radicals
		return true
	case r < 0x2ff0:
		return false
	case r <= 0x303f: // ideographic description, CJK symbols and punctuation
		return true
	case r < 0x3100:
		return false
	case r <= 0x312f: // Bopomofo
		return true
	case r < 0x31a0:
		return false
	case r <= 0x31ef: // Bopomofo extended, CJK strokes
		return true
	case r < 0x3200:
		return false
	case r <= 0x4db5: // enclosed CJK, CJK compatibility, Extension A
		return true
	case r < 0x4e00:
		return false
	case r <= 0x9fbb: // CJK unified ideographs
		return true
	case r < 0xf900:
		return false
	case r <= 0xfa2d, r >= 0xfa30 && r <= 0xfa6a, r >= 0xfa70 && r <= 0xfad9,
		r >= 0xfe10 && r <= 0xfe1f, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xffef:
		return true
	}
	return false
}

// classAt returns the class of the character at s[i] and its byte length.
// Invalid UTF-8 bytes are one-byte clsOther characters.
func (sc scheme) classAt(s string, i int) (class, int) {
	c := s[i]
	switch sc {
	case scheme13a:
		if c < utf8.RuneSelf {
			return classes13a[c], 1
		}
		// Every non-ASCII character but whitespace is clsOther in 13a, so
		// continuation bytes can be taken one at a time.
		if n := spaceLen(s, i); n > 0 {
			return clsSpace, n
		}
		return clsOther, 1
	case schemeZh:
		if c < utf8.RuneSelf {
			return classes13a[c], 1
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case n == 1:
			return clsOther, 1
		case PyIsSpace(r):
			return clsSpace, n
		case isZhChar(r):
			return clsIso, n
		}
		return clsOther, n
	default:
		if c < utf8.RuneSelf {
			return classesIntl[c], 1
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 {
			return clsOther, 1
		}
		return intlClass(r), n
	}
}

// generalOnly turns the fast path of appendTokens off (tests compare both).
var generalOnly = false

// appendTokens appends the tokens of s under the scheme to dst. With padded
// set, s is treated as if surrounded by spaces (13a's f' {line} ').
func (sc scheme) appendTokens(dst []string, s string, padded bool) []string {
	tab := &byteClasses13a
	switch sc {
	case schemeIntl:
		tab = &byteClassesIntl
	case schemeZh:
		tab = &byteClassesZh
	}
	dst, _ = sc.appendTokensTab(dst, s, padded, tab)
	return dst
}

// appendTokensTab is appendTokens with the byte class table given. It stops at a clsPre
// byte, returning false.
func (sc scheme) appendTokensTab(dst []string, s string, padded bool, tab *[256]class) (_ []string, ok bool) {
	start := -1 // start of the pending token, -1 if none
	cut := false
	prev := clsNone
	if padded {
		prev = clsSpace
	}
	for i := 0; i < len(s); {
		c := tab[s[i]]
		if c == clsOther && start < 0 && !cut && !generalOnly {
			var done bool
			if dst, i, prev, done = plainWords(tab, dst, s, i, prev); done {
				continue
			}
		}
		n := 1
		if c >= clsCheck {
			if c == clsPre {
				return dst, false
			}
			c, n = sc.classAt(s, i)
		}
		switch c {
		case clsOther:
			// The common case: a letter. Take the whole run of letters the byte table
			// decides.
			if cut && start >= 0 {
				dst = append(dst, s[start:i])
				start = -1
			}
			if start < 0 {
				start = i
			}
			i = otherRun(tab, s, i+n)
			cut = false
			prev = clsOther
			continue
		case clsSpace:
			if start >= 0 {
				dst = append(dst, s[start:i])
				start = -1
			}
			i += n
			for i < len(s) && tab[s[i]] == clsSpace {
				i++
			}
			cut = false
			prev = clsSpace
			continue
		case clsRun:
			// Measure the run and look at the character after it.
			k, j, last := 1, i+n, i
			after := clsNone
			if padded {
				after = clsSpace
			}
			for j < len(s) {
				c2, n2 := sc.classAt(s, j)
				if c2 != clsRun {
					after = c2
					break
				}
				k++
				last = j
				j += n2
			}
			bND := prev != clsNone && prev != clsNum
			aND := after != clsNone && after != clsNum
			if (cut || bND || k >= 2 || aND) && start >= 0 {
				dst = append(dst, s[start:i])
				start = -1
			}
			if start < 0 {
				start = i
			}
			if k >= 2 {
				dst = append(dst, s[start:i+n])
				for p := i + n; p < last; {
					_, w := sc.classAt(s, p)
					dst = append(dst, s[p:p+w])
					p += w
				}
				start = last
			}
			cut = aND || bND == (k%2 == 1)
			prev = clsRun
			i = j
			continue
		}
		split := c == clsIso || c == clsHyph && prev == clsNum
		if (cut || split) && start >= 0 {
			dst = append(dst, s[start:i])
			start = -1
		}
		if start < 0 {
			start = i
		}
		cut = split
		prev = c
		i += n
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst, true
}

// plainWords is the fast path of appendTokens, for the common shapes of text. At i starts a
// word (a clsOther byte) with nothing pending. It emits the tokens the general rules would
// find for a plain word at the end, or followed by whitespace, by a character that is always
// isolated, or by a single run character ([.,] for 13a) and then whitespace or the end, and
// goes on while the next word follows a single space. It returns done with the state
// afterwards ("nothing pending", the last class in prev), or the start of a word that needs
// the general rules (with the tokens before it emitted and prev updated).
func plainWords(tab *[256]class, dst []string, s string, i int, prev class) (_ []string, _ int, _ class, done bool) {
	// Bytes are read through p: every index below is known to be within s, and the
	// compiler's bounds checks cost as much as the scan.
	p := unsafe.Pointer(unsafe.StringData(s))
	at := func(k int) byte { return *(*byte)(unsafe.Add(p, k)) }
	n := len(s)
	for {
		j := i + 1
		// otherRun's first word, inline (the call cost as much as the scan): most words
		// end within it.
		if j+8 <= n {
			w := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(p, j)), 8))
			if letters := asciiLetters(w); letters != hi8 {
				j += bits.TrailingZeros64(^letters&hi8) / 8
				if tab[at(j)] == clsOther {
					j = otherRun(tab, s, j+1)
				}
			} else {
				j = otherRun(tab, s, j+8)
			}
		} else {
			j = otherRun(tab, s, j)
		}
		if j == n {
			return append(dst, s[i:j]), j, clsOther, true
		}
		switch tab[at(j)] {
		case clsSpace:
			dst = append(dst, s[i:j])
			j++
			if j < n && tab[at(j)] == clsOther {
				i, prev = j, clsSpace
				continue
			}
			for j < n && tab[at(j)] == clsSpace {
				j++
			}
			return dst, j, clsSpace, true
		case clsIso:
			return append(dst, s[i:j], s[j:j+1]), j + 1, clsIso, true
		case clsRun:
			if j+1 == n || tab[at(j+1)] == clsSpace {
				return append(dst, s[i:j], s[j:j+1]), j + 1, clsRun, true
			}
		}
		return dst, i, prev, false
	}
}

// otherRun returns the end of the run of clsOther bytes of s that starts at j. ASCII letters,
// which are clsOther in every table, are skipped eight at a time: the end of a word is found
// with bit operations instead of a hard-to-predict branch per byte.
func otherRun(tab *[256]class, s string, j int) int {
	p := unsafe.Pointer(unsafe.StringData(s)) // see plainWords
	for j+8 <= len(s) {
		w := binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(p, j)), 8))
		letters := asciiLetters(w)
		if letters == hi8 {
			j += 8
			continue
		}
		j += bits.TrailingZeros64(^letters&hi8) / 8
		if tab[*(*byte)(unsafe.Add(p, j))] != clsOther {
			return j
		}
		j++ // a clsOther byte that is not an ASCII letter (an apostrophe, most non-ASCII bytes)
	}
	for j < len(s) && tab[s[j]] == clsOther {
		j++
	}
	return j
}

// hi8 has the high bit of every byte of a word set.
const hi8 = 0x8080808080808080

// asciiLetters returns the high bit of each byte of the little-endian word w that is an
// ASCII letter.
func asciiLetters(w uint64) uint64 {
	const lo = 0x0101010101010101
	// w|0x20 maps A-Z onto a-z and no other byte into a-z; the sums cannot carry across
	// bytes because the high bits are cleared first.
	x := (w | 0x20*lo) &^ hi8
	return (x + (0x80-'a')*lo) &^ (x + (0x80-'z'-1)*lo) &^ w & hi8
}

// tokenCap estimates the number of tokens in a line of n bytes.
func tokenCap(n int) int { return n/4 + 4 }

// tokens13a returns the tokens of sacrebleu's Tokenizer13a()(line).split().
func tokens13a(line string) []string {
	return append13a(make([]string, 0, tokenCap(len(line))), line)
}

// append13a appends the tokens of sacrebleu's Tokenizer13a()(line).split() to dst. Most lines
// have none of the bytes pre13a looks for, so the line is tokenized as it is, and only when
// the tokenizer meets one of them (it leaves nothing unclassified) again after pre13a.
func append13a(dst []string, line string) []string {
	n := len(dst)
	if out, ok := scheme13a.appendTokensTab(dst, line, true, &byteClasses13aRaw); ok {
		return out
	}
	out, _ := scheme13a.appendTokensTab(dst[:n], pre13a(line), true, &byteClasses13a)
	return out
}

// pre13a applies the language-independent part of Tokenizer13a: it deletes
// "<skipped>" and "-\n", turns "\n" into a space (a no-op for the tokens,
// which is why it is skipped) and unescapes &quot; &amp; &lt; &gt; in
// that order, each like Python's str.replace. It returns line itself when
// none of these occur, so tokens can alias the caller's string.
func pre13a(line string) string {
	if strings.IndexByte(line, '<') >= 0 && strings.Contains(line, "<skipped>") {
		line = strings.ReplaceAll(line, "<skipped>", "")
	}
	if strings.IndexByte(line, '\n') >= 0 && strings.Contains(line, "-\n") {
		line = strings.ReplaceAll(line, "-\n", "")
	}
	if strings.IndexByte(line, '&') >= 0 {
		for _, e := range [...]struct{ from, to string }{
			{"&quot;", `"`}, {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"},
		} {
			if strings.Contains(line, e.from) {
				line = strings.ReplaceAll(line, e.from, e.to)
			}
		}
	}
	return line
}

// tokensIntl returns the tokens of sacrebleu's TokenizerV14International()(line).split().
func tokensIntl(line string) []string {
	return schemeIntl.appendTokens(make([]string, 0, tokenCap(len(line))), line, false)
}

// tokensZh returns the tokens of sacrebleu's TokenizerZh()(line).split().
func tokensZh(line string) []string {
	return appendZh(make([]string, 0, tokenCap(len(line))), line)
}

// appendZh appends the tokens of sacrebleu's TokenizerZh()(line).split() to dst.
func appendZh(dst []string, line string) []string {
	return schemeZh.appendTokens(dst, pyStrip(line), false)
}

// tokensChar returns the tokens of sacrebleu's TokenizerChar()(line).split():
// every character that is not Python whitespace, one token each.
func tokensChar(line string) []string {
	return appendChar(make([]string, 0, utf8.RuneCountInString(line)), line)
}

// appendChar appends the tokens of tokensChar to dst.
func appendChar(dst []string, line string) []string {
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				dst = append(dst, line[i:i+1])
			}
			i++
			continue
		}
		if n := spaceLen(line, i); n > 0 {
			i += n
			continue
		}
		_, n := utf8.DecodeRuneInString(line[i:])
		dst = append(dst, line[i:i+n])
		i += n
	}
	return dst
}

// charString is sacrebleu's TokenizerChar()(line): the characters of line
// joined by single spaces, whitespace characters included.
func charString(line string) string {
	var b strings.Builder
	b.Grow(2 * len(line))
	for i := 0; i < len(line); {
		_, n := utf8.DecodeRuneInString(line[i:])
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(line[i : i+n])
		i += n
	}
	return b.String()
}
