package tokenize

import "math/bits"

// porterASCII is porterSteps for a lowercase ASCII word of 3 to 64 bytes, rule for rule the
// same (TestPorterASCIIMatchesSteps compares the two), in place. It stems the rouge
// tokenizer's new words, which in a short run of a corpus of invented or rare words is a
// visible part of the run. Two things make it faster than the generic steps: the consonants
// of the word are a bit mask (asciiStem.cons), computed once and kept up to date where a
// suffix is replaced, so measure, the vowel test and the cvc and double-consonant tests are
// a few bit operations instead of walks over the word; and the suffixes are compared as
// constant strings in code switched on the last letter (the compiler compares a constant
// string of up to 8 bytes with one or two loads), not looked up in rule lists.
func porterASCII(w []byte) []byte {
	s := asciiStem{w: w}.consFrom(0)
	s = s.step1a().step1b().step1c().step2()
	return s.step3().step4().step5().w
}

// asciiStem is a word being stemmed by porterASCII and its consonants.
type asciiStem struct {
	w []byte
	// Bit i is isConsonant(w, i). Bits at and above len(w) are stale: every test masks
	// them off.
	cons uint64
}

// notVowel and isY are 1 for the bytes that are not a, e, i, o, u, and for 'y'.
var notVowel, isY = func() (nv, y [256]uint8) {
	for i := range nv {
		nv[i] = 1
	}
	for _, c := range "aeiou" {
		nv[c] = 0
	}
	y['y'] = 1
	return nv, y
}()

// consFrom recomputes the bits of cons from letter i to the end of the word. A letter other
// than 'y' is a consonant when it is not a vowel, whatever comes before it, so those bits
// are set independently; then each 'y' after the first letter, in order, is a consonant
// when the letter before it is not.
func (s asciiStem) consFrom(i int) asciiStem {
	var nv, ys uint64 // from letter i on (the letters are shifted in from the end)
	for k := len(s.w) - 1; k >= i; k-- {
		c := s.w[k]
		nv = nv<<1 | uint64(notVowel[c])
		ys = ys<<1 | uint64(isY[c])
	}
	m := s.cons&(1<<uint(i)-1) | nv<<uint(i&63)
	for ys = ys << uint(i&63) &^ 1; ys != 0; ys &= ys - 1 { // a first 'y' is a consonant
		k := bits.TrailingZeros64(ys)
		m &^= (m >> uint((k-1)&63) & 1) << uint(k&63)
	}
	s.cons = m
	return s
}

// measure is measure(w[:n]): the letters that are consonants and follow a vowel.
func (s asciiStem) measure(n int) int {
	return bits.OnesCount64(s.cons & (^s.cons << 1) & (1<<uint(n) - 1))
}

// hasVowel is containsVowel(w[:n]).
func (s asciiStem) hasVowel(n int) bool {
	return ^s.cons&(1<<uint(n)-1) != 0
}

// isCons is isConsonant(w, i).
func (s asciiStem) isCons(i int) bool {
	return s.cons>>uint(i)&1 != 0
}

// endsCVC is endsCVC(w[:n]).
func (s asciiStem) endsCVC(n int) bool {
	if n >= 3 {
		last := s.w[n-1]
		return s.cons>>uint(n-3)&7 == 0b101 && last != 'w' && last != 'x' && last != 'y'
	}
	return n == 2 && s.cons&3 == 0b10
}

// hasSfx reports whether w ends with suf. With suf a constant and the call inlined, the
// comparison is one or two loads of the word and a compare.
func hasSfx(w []byte, suf string) bool {
	return len(w) >= len(suf) && string(w[len(w)-len(suf):]) == suf
}

// cut drops the last k letters.
func (s asciiStem) cut(k int) asciiStem {
	s.w = s.w[:len(s.w)-k]
	return s
}

// replace replaces the last k letters of the word by repl, in place: the word is a prefix of
// the array porterASCII was given, and no step makes it longer than the word given, so there
// is room (and nothing allocates).
func (s asciiStem) replace(k int, repl string) asciiStem {
	n := len(s.w) - k
	s.w = s.w[:n+len(repl)] // within the array: see above
	copy(s.w[n:], repl)
	return s.consFrom(n)
}

// ifM0 is a rule with condition condM0 whose suffix (k letters) matched: the suffix becomes
// repl when measure(stem) > 0.
func (s asciiStem) ifM0(k int, repl string) asciiStem {
	if s.measure(len(s.w)-k) > 0 {
		return s.replace(k, repl)
	}
	return s
}

// ifM1 is a rule of step 4 (condition condM1, an empty replacement) whose suffix of k
// letters matched.
func (s asciiStem) ifM1(k int) asciiStem {
	if s.measure(len(s.w)-k) > 1 {
		return s.cut(k)
	}
	return s
}

// step1a is step1a: plurals. Every replacement shortens the word to a prefix of itself.
func (s asciiStem) step1a() asciiStem {
	w := s.w
	n := len(w)
	if n == 0 || w[n-1] != 's' {
		return s
	}
	switch {
	case n == 4 && hasSfx(w, "ies"): // "ties" -> "tie"
		return s.cut(1)
	case hasSfx(w, "sses"), hasSfx(w, "ies"): // -> "ss", "i"
		return s.cut(2)
	case hasSfx(w, "ss"):
		return s
	}
	return s.cut(1)
}

// step1b is step1b: ied, eed, ed and ing, then the repairs.
func (s asciiStem) step1b() asciiStem {
	w := s.w
	n := len(w)
	if n < 2 || w[n-1] != 'd' && w[n-1] != 'g' {
		return s
	}
	if hasSfx(w, "ied") {
		if n == 4 {
			return s.cut(1) // "ie"
		}
		return s.cut(2) // "i"
	}
	if hasSfx(w, "eed") {
		if s.measure(n-3) > 0 {
			return s.cut(1) // "ee"
		}
		return s
	}
	switch {
	case hasSfx(w, "ed") && s.hasVowel(n-2):
		s = s.cut(2)
	case hasSfx(w, "ing") && s.hasVowel(n-3):
		s = s.cut(3)
	default:
		return s
	}
	st := s.w
	l := len(st)
	if hasSfx(st, "at") || hasSfx(st, "bl") || hasSfx(st, "iz") {
		return s.replace(0, "e")
	}
	if l >= 2 && st[l-1] == st[l-2] && s.isCons(l-1) || hasSfx(st, "*d") {
		if last := st[l-1]; last != 'l' && last != 's' && last != 'z' {
			st[l-2] = last // the last letter once
			return s.cut(1).consFrom(l - 2)
		}
		return s
	}
	if s.measure(l) == 1 && s.endsCVC(l) {
		return s.replace(0, "e")
	}
	return s
}

// step1c is step1c: a final y after a consonant that is not the first letter becomes i.
func (s asciiStem) step1c() asciiStem {
	n := len(s.w)
	if n > 2 && s.w[n-1] == 'y' && s.isCons(n-2) {
		s.w[n-1] = 'i'
		s.cons &^= 1 << uint(n-1) // a vowel
	}
	return s
}

// step2 is step2: the "alli" extension, then the rules of porterRules().step2.
func (s asciiStem) step2() asciiStem {
	if hasSfx(s.w, "alli") && s.measure(len(s.w)-4) > 0 {
		s = s.cut(2) // "al"
	}
	w := s.w
	n := len(w)
	if n == 0 {
		return s
	}
	switch w[n-1] {
	case 'l':
		switch {
		case hasSfx(w, "ational"):
			return s.ifM0(7, "ate")
		case hasSfx(w, "tional"):
			return s.ifM0(6, "tion")
		}
	case 'i':
		switch {
		case hasSfx(w, "enci"):
			return s.ifM0(4, "ence")
		case hasSfx(w, "anci"):
			return s.ifM0(4, "ance")
		case hasSfx(w, "bli"):
			return s.ifM0(3, "ble")
		case hasSfx(w, "alli"):
			return s.ifM0(4, "al")
		case hasSfx(w, "entli"):
			return s.ifM0(5, "ent")
		case hasSfx(w, "eli"):
			return s.ifM0(3, "e")
		case hasSfx(w, "ousli"):
			return s.ifM0(5, "ous")
		case hasSfx(w, "aliti"):
			return s.ifM0(5, "al")
		case hasSfx(w, "iviti"):
			return s.ifM0(5, "ive")
		case hasSfx(w, "biliti"):
			return s.ifM0(6, "ble")
		case hasSfx(w, "fulli"):
			return s.ifM0(5, "ful")
		case hasSfx(w, "logi"): // condLogi
			if s.measure(n-3) > 0 {
				return s.replace(4, "log")
			}
		}
	case 'r':
		switch {
		case hasSfx(w, "izer"):
			return s.ifM0(4, "ize")
		case hasSfx(w, "ator"):
			return s.ifM0(4, "ate")
		}
	case 'n':
		switch {
		case hasSfx(w, "ization"):
			return s.ifM0(7, "ize")
		case hasSfx(w, "ation"):
			return s.ifM0(5, "ate")
		}
	case 'm':
		if hasSfx(w, "alism") {
			return s.ifM0(5, "al")
		}
	case 's':
		switch {
		case hasSfx(w, "iveness"):
			return s.ifM0(7, "ive")
		case hasSfx(w, "fulness"):
			return s.ifM0(7, "ful")
		case hasSfx(w, "ousness"):
			return s.ifM0(7, "ous")
		}
	}
	return s
}

// step3 is applyRules(w, porterRules().step3).
func (s asciiStem) step3() asciiStem {
	w := s.w
	n := len(w)
	if n == 0 {
		return s
	}
	switch w[n-1] {
	case 'e':
		switch {
		case hasSfx(w, "icate"):
			return s.ifM0(5, "ic")
		case hasSfx(w, "ative"):
			return s.ifM0(5, "")
		case hasSfx(w, "alize"):
			return s.ifM0(5, "al")
		}
	case 'i':
		if hasSfx(w, "iciti") {
			return s.ifM0(5, "ic")
		}
	case 'l':
		switch {
		case hasSfx(w, "ical"):
			return s.ifM0(4, "ic")
		case hasSfx(w, "ful"):
			return s.ifM0(3, "")
		}
	case 's':
		if hasSfx(w, "ness") {
			return s.ifM0(4, "")
		}
	}
	return s
}

// step4 is applyRules(w, porterRules().step4): every replacement is empty.
func (s asciiStem) step4() asciiStem {
	w := s.w
	n := len(w)
	if n == 0 {
		return s
	}
	switch w[n-1] {
	case 'l':
		if hasSfx(w, "al") {
			return s.ifM1(2)
		}
	case 'e':
		switch {
		case hasSfx(w, "ance"), hasSfx(w, "ence"), hasSfx(w, "able"), hasSfx(w, "ible"):
			return s.ifM1(4)
		case hasSfx(w, "ate"), hasSfx(w, "ive"), hasSfx(w, "ize"):
			return s.ifM1(3)
		}
	case 'r':
		if hasSfx(w, "er") {
			return s.ifM1(2)
		}
	case 'c':
		if hasSfx(w, "ic") {
			return s.ifM1(2)
		}
	case 't':
		switch {
		case hasSfx(w, "ant"):
			return s.ifM1(3)
		case hasSfx(w, "ement"):
			return s.ifM1(5)
		case hasSfx(w, "ment"):
			return s.ifM1(4)
		case hasSfx(w, "ent"):
			return s.ifM1(3)
		}
	case 'n':
		if hasSfx(w, "ion") { // condIon
			if st := n - 3; s.measure(st) > 1 && (w[st-1] == 's' || w[st-1] == 't') {
				return s.cut(3)
			}
		}
	case 'u':
		if hasSfx(w, "ou") {
			return s.ifM1(2)
		}
	case 'm':
		if hasSfx(w, "ism") {
			return s.ifM1(3)
		}
	case 'i':
		if hasSfx(w, "iti") {
			return s.ifM1(3)
		}
	case 's':
		if hasSfx(w, "ous") {
			return s.ifM1(3)
		}
	}
	return s
}

// step5 is step5a (a final e goes) and step 5b (a final ll becomes l).
func (s asciiStem) step5() asciiStem {
	if n := len(s.w); n > 0 && s.w[n-1] == 'e' {
		if m := s.measure(n - 1); m > 1 || m == 1 && !s.endsCVC(n-1) {
			s = s.cut(1)
		}
	}
	if n := len(s.w); hasSfx(s.w, "ll") && s.measure(n-1) > 1 {
		return s.cut(1)
	}
	return s
}
