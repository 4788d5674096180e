package tokenize

import (
	"sync"
	"unicode/utf8"
)

// This file ports nltk/stem/porter.py (NLTK 3.9.1), mode NLTK_EXTENSIONS,
// rule for rule. The stemmer works in place on a buffer of bytes (ASCII
// words, the rouge hot path) or runes (anything else): no step makes a word
// longer than it was, so appending a replacement never reallocates.

// letter is a character of a word being stemmed.
type letter interface{ ~uint8 | ~int32 }

// porterIrregular is NLTK's irregular_forms dictionary, inverted: form -> stem. (An array,
// not a map: the linker lays it out, with no work at start-up.)
var porterIrregular = [...]struct{ form, stem string }{
	{"sky", "sky"}, {"skies", "sky"},
	{"dying", "die"}, {"lying", "lie"}, {"tying", "tie"},
	{"news", "news"},
	{"innings", "inning"}, {"inning", "inning"},
	{"outings", "outing"}, {"outing", "outing"},
	{"cannings", "canning"}, {"canning", "canning"},
	{"howe", "howe"},
	{"proceed", "proceed"}, {"exceed", "exceed"}, {"succeed", "succeed"},
}

// poolFirst[n] and poolLast[n] have bit c&31 set for the first and the last letter c of
// each form of n bytes of porterIrregular (lowercase ASCII words of 3 to 8 letters).
var poolFirst, poolLast = func() (first, last [9]uint32) {
	for _, f := range porterIrregular {
		w := f.form
		first[len(w)] |= 1 << (w[0] & 31)
		last[len(w)] |= 1 << (w[len(w)-1] & 31)
	}
	return first, last
}()

// porterPool returns the stem of w when it is one of NLTK's irregular forms. Most words are
// ruled out by their length and first and last letters, without a lookup.
func porterPool(w string) (string, bool) {
	if n := len(w); n == 0 || n >= len(poolFirst) ||
		(poolFirst[n]>>(w[0]&31))&(poolLast[n]>>(w[n-1]&31))&1 == 0 {
		return "", false
	}
	for _, f := range porterIrregular {
		if f.form == w {
			return f.stem, true
		}
	}
	return "", false
}

// PorterStem returns nltk.stem.porter.PorterStemmer().stem(word): NLTK's
// Porter stemmer in its default NLTK_EXTENSIONS mode with to_lowercase=True.
// As in NLTK, the irregular-forms lookup and the "two characters or fewer"
// shortcut look at word before lowercasing (PyLower), and the rules count
// characters (runes), not bytes. The result may alias word. Invalid UTF-8
// (which a Python str cannot hold) comes back as U+FFFD in a changed word.
func PorterStem(word string) string {
	if st, ok := porterPool(word); ok {
		return st
	}
	lower := PyLower(word)
	if len(word) <= 2 || utf8.RuneCountInString(word) <= 2 {
		return lower
	}
	ascii := true
	for i := 0; i < len(lower); i++ {
		if lower[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		var arr [64]byte
		var buf []byte
		if len(lower) <= len(arr) {
			buf = arr[:0]
		} else {
			buf = make([]byte, 0, len(lower))
		}
		buf = append(buf, lower...)
		out := stemBytes(buf)
		if string(out) == lower[:len(out)] {
			return lower[:len(out)]
		}
		return string(out)
	}
	out := porterSteps([]rune(lower))
	return string(out)
}

// stemASCII stems a lowercase ASCII word longer than 2 bytes, as
// PorterStem does. When the stem is not a prefix of w it is appended to
// *arena, which must have room for it (a stem is never longer than its
// word), and the result aliases the arena.
func stemASCII(w string, arena *[]byte) string {
	if st, ok := porterPool(w); ok {
		return st
	}
	a := *arena
	off := len(a)
	if cap(a)-off < len(w) {
		a = make([]byte, 0, len(w))
		off = 0
	}
	buf := append(a[off:off], w...)
	out := stemBytes(buf)
	if string(out) == w[:len(out)] {
		return w[:len(out)]
	}
	*arena = a[:off+len(out)]
	return bytesToString(out)
}

// stemBytes is porterSteps of a lowercase ASCII word of 3 or more bytes, in place.
func stemBytes(w []byte) []byte {
	if len(w) <= 64 {
		return porterASCII(w)
	}
	return porterSteps(w)
}

// isVowel reports whether c is one of a, e, i, o, u.
func isVowel[T letter](c T) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'
}

// isConsonant is PorterStemmer._is_consonant: a letter other than a, e,
// i, o, u, and other than a 'y' that follows a consonant.
func isConsonant[T letter](w []T, i int) bool {
	neg := false // the answer is negated once per 'y' walked over
	for {
		c := w[i]
		if isVowel(c) {
			return neg
		}
		if c != 'y' || i == 0 {
			return !neg
		}
		neg = !neg
		i--
	}
}

// measure is PorterStemmer._measure: the number of vowel-consonant pairs.
func measure[T letter](w []T) int {
	m := 0
	prevVowel := false
	prevCons := false
	for i, c := range w {
		var cons bool
		switch {
		case isVowel(c):
			cons = false
		case c == 'y':
			cons = i == 0 || !prevCons
		default:
			cons = true
		}
		if cons && prevVowel {
			m++
		}
		prevVowel = !cons
		prevCons = cons
	}
	return m
}

// containsVowel is PorterStemmer._contains_vowel.
func containsVowel[T letter](w []T) bool {
	prevCons := false
	for i, c := range w {
		switch {
		case isVowel(c):
			return true
		case c == 'y':
			if i > 0 && prevCons {
				return true
			}
			prevCons = true
		default:
			prevCons = true
		}
	}
	return false
}

// endsDoubleConsonant is PorterStemmer._ends_double_consonant.
func endsDoubleConsonant[T letter](w []T) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && isConsonant(w, n-1)
}

// endsCVC is PorterStemmer._ends_cvc in NLTK_EXTENSIONS mode.
func endsCVC[T letter](w []T) bool {
	n := len(w)
	if n >= 3 && isConsonant(w, n-3) && !isConsonant(w, n-2) && isConsonant(w, n-1) &&
		w[n-1] != 'w' && w[n-1] != 'x' && w[n-1] != 'y' {
		return true
	}
	return n == 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}

// hasSuffix reports whether w ends with the ASCII string suf.
func hasSuffix[T letter](w []T, suf string) bool {
	if len(w) < len(suf) {
		return false
	}
	// Compare from the end, where words differ soonest.
	for i, j := len(suf)-1, len(w)-1; i >= 0; i, j = i-1, j-1 {
		if w[j] != T(suf[i]) {
			return false
		}
	}
	return true
}

// appendASCII appends the ASCII string s to w.
func appendASCII[T letter](w []T, s string) []T {
	for i := 0; i < len(s); i++ {
		w = append(w, T(s[i]))
	}
	return w
}

// cond is the condition of a suffix rule.
type cond uint8

const (
	condNone cond = iota // unconditional
	condM0               // measure(stem) > 0
	condM1               // measure(stem) > 1
	condLogi             // measure(word[:-3]) > 0 (NLTK's "logi" rule)
	condIon              // measure(stem) > 1 and stem ends in s or t
	condLL               // measure(word[:-1]) > 1 (step 5b)
)

// rule replaces suf by repl when cond holds.
type rule struct {
	suf, repl string
	cond      cond
}

// ruleSet is a rule list indexed by the last letter of the suffixes, which
// keeps the list order within each letter: a word can only match rules
// whose suffix ends with its own last letter.
type ruleSet [utf8.RuneSelf][]rule

// newRuleSet indexes rules, none of which may have an empty suffix.
func newRuleSet(rules ...rule) *ruleSet {
	var rs ruleSet
	for _, r := range rules {
		last := r.suf[len(r.suf)-1]
		rs[last] = append(rs[last], r)
	}
	return &rs
}

// applyRules is PorterStemmer._apply_rule_list for rules without "*d" or
// "": the first rule whose suffix matches decides, whether or not its
// condition holds.
func applyRules[T letter](w []T, rs *ruleSet) []T {
	if len(w) == 0 {
		return w
	}
	last := w[len(w)-1]
	if last < 0 || last >= utf8.RuneSelf {
		return w
	}
	for _, r := range rs[last] {
		if !hasSuffix(w, r.suf) {
			continue
		}
		stem := w[:len(w)-len(r.suf)]
		var ok bool
		switch r.cond {
		case condNone:
			ok = true
		case condM0:
			ok = measure(stem) > 0
		case condM1:
			ok = measure(stem) > 1
		case condLogi:
			ok = measure(w[:len(w)-3]) > 0
		case condIon:
			ok = measure(stem) > 1 && (stem[len(stem)-1] == 's' || stem[len(stem)-1] == 't')
		case condLL:
			ok = measure(w[:len(w)-1]) > 1
		}
		if ok {
			return appendASCII(stem, r.repl)
		}
		return w
	}
	return w
}

// step1bRules are step 1b's repairs (applied by hand: their stem is not the word's).
var step1bRules = []rule{{"at", "ate", condNone}, {"bl", "ble", condNone}, {"iz", "ize", condNone}}

// porterRuleSets are the rule lists of the steps that applyRules applies.
type porterRuleSets struct {
	step1a, step2, step3, step4, step5b *ruleSet
}

// porterRules returns the rule lists, built on first use (about 16 KB, mostly empty
// entries): the rouge tokenizer's words take porterASCII, so most processes never need
// them.
var porterRules = sync.OnceValue(func() *porterRuleSets {
	return &porterRuleSets{
		step1a: newRuleSet(rule{"sses", "ss", condNone}, rule{"ies", "i", condNone}, rule{"ss", "ss", condNone}, rule{"s", "", condNone}),
		step2: newRuleSet([]rule{
			{"ational", "ate", condM0}, {"tional", "tion", condM0}, {"enci", "ence", condM0},
			{"anci", "ance", condM0}, {"izer", "ize", condM0}, {"bli", "ble", condM0},
			{"alli", "al", condM0}, {"entli", "ent", condM0}, {"eli", "e", condM0},
			{"ousli", "ous", condM0}, {"ization", "ize", condM0}, {"ation", "ate", condM0},
			{"ator", "ate", condM0}, {"alism", "al", condM0}, {"iveness", "ive", condM0},
			{"fulness", "ful", condM0}, {"ousness", "ous", condM0}, {"aliti", "al", condM0},
			{"iviti", "ive", condM0}, {"biliti", "ble", condM0},
			{"fulli", "ful", condM0}, {"logi", "log", condLogi}, // NLTK_EXTENSIONS
		}...),
		step3: newRuleSet([]rule{
			{"icate", "ic", condM0}, {"ative", "", condM0}, {"alize", "al", condM0},
			{"iciti", "ic", condM0}, {"ical", "ic", condM0}, {"ful", "", condM0}, {"ness", "", condM0},
		}...),
		step4: newRuleSet([]rule{
			{"al", "", condM1}, {"ance", "", condM1}, {"ence", "", condM1}, {"er", "", condM1},
			{"ic", "", condM1}, {"able", "", condM1}, {"ible", "", condM1}, {"ant", "", condM1},
			{"ement", "", condM1}, {"ment", "", condM1}, {"ent", "", condM1}, {"ion", "", condIon},
			{"ou", "", condM1}, {"ism", "", condM1}, {"ate", "", condM1}, {"iti", "", condM1},
			{"ous", "", condM1}, {"ive", "", condM1}, {"ize", "", condM1},
		}...),
		step5b: newRuleSet(rule{"ll", "l", condLL}),
	}
})

// porterSteps runs steps 1a to 5b on a lowercase word of 3 or more
// characters, in place.
func porterSteps[T letter](w []T) []T {
	w = step1a(w)
	w = step1b(w)
	w = step1c(w)
	w = step2(w)
	rs := porterRules()
	w = applyRules(w, rs.step3)
	w = applyRules(w, rs.step4)
	w = step5a(w)
	return applyRules(w, rs.step5b)
}

// step1a is PorterStemmer._step1a: plurals (sses, ies, ss, s).
func step1a[T letter](w []T) []T {
	if len(w) == 4 && hasSuffix(w, "ies") { // NLTK: "ties" -> "tie"
		return appendASCII(w[:1], "ie")
	}
	return applyRules(w, porterRules().step1a)
}

// step1b is PorterStemmer._step1b: ied, eed, ed and ing, then the
// at/bl/iz, double-consonant and cvc repairs.
func step1b[T letter](w []T) []T {
	if hasSuffix(w, "ied") { // NLTK
		if len(w) == 4 {
			return appendASCII(w[:1], "ie")
		}
		return appendASCII(w[:len(w)-3], "i")
	}
	if hasSuffix(w, "eed") {
		if stem := w[:len(w)-3]; measure(stem) > 0 {
			return appendASCII(stem, "ee")
		}
		return w
	}
	var st []T
	switch {
	case hasSuffix(w, "ed") && containsVowel(w[:len(w)-2]):
		st = w[:len(w)-2]
	case hasSuffix(w, "ing") && containsVowel(w[:len(w)-3]):
		st = w[:len(w)-3]
	default:
		return w
	}
	for _, r := range step1bRules {
		if hasSuffix(st, r.suf) {
			return appendASCII(st[:len(st)-len(r.suf)], r.repl)
		}
	}
	// ("*d", st[-1], st[-1] not in l, s, z): a double consonant, or (as a
	// side effect of NLTK's rule encoding) the literal suffix "*d".
	n := len(st)
	if endsDoubleConsonant(st) || hasSuffix(st, "*d") {
		last := st[n-1]
		if last != 'l' && last != 's' && last != 'z' {
			return append(st[:n-2], last)
		}
		return st
	}
	// ("", "e", measure(st) == 1 and ends_cvc(st))
	if measure(st) == 1 && endsCVC(st) {
		return append(st, 'e')
	}
	return st
}

// step1c is PorterStemmer._step1c: a final y becomes i.
func step1c[T letter](w []T) []T {
	// NLTK: y -> i when preceded by a consonant that is not the first letter.
	n := len(w)
	if n > 0 && w[n-1] == 'y' && n-1 > 1 && isConsonant(w, n-2) {
		w[n-1] = 'i'
	}
	return w
}

// step2 is PorterStemmer._step2: double suffixes such as ational.
func step2[T letter](w []T) []T {
	// NLTK: "alli" -> "al" and step 2 again when measure(stem) > 0.
	if hasSuffix(w, "alli") && measure(w[:len(w)-4]) > 0 {
		w = appendASCII(w[:len(w)-4], "al") // cannot end in "alli" again
	}
	return applyRules(w, porterRules().step2)
}

// step5a is PorterStemmer._step5a: a final e goes.
func step5a[T letter](w []T) []T {
	if !hasSuffix(w, "e") {
		return w
	}
	st := w[:len(w)-1]
	if m := measure(st); m > 1 || m == 1 && !endsCVC(st) {
		return st
	}
	return w
}
