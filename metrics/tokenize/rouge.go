package tokenize

import "unicode/utf8"

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
	buf := []byte(text)
	j := 0
	for i := 0; i < len(buf); i++ {
		c := buf[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		case c == 0xc4 && i+1 < len(buf) && buf[i+1] == 0xb0: // İ -> "i" + separator
			buf[j] = 'i'
			j++
			c = ' '
			i++
		case c == 0xe2 && i+2 < len(buf) && buf[i+1] == 0x84 && buf[i+2] == 0xaa: // K -> "k"
			c = 'k'
			i += 2
		}
		buf[j] = c
		j++
	}
	return bytesToString(buf[:j]), n
}
