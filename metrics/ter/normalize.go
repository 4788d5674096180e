package ter

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/tokenize"
)

// textOptions are the options of sacrebleu's TercomTokenizer.
type textOptions struct {
	normalized, noPunct, asian, caseSensitive bool
}

// The regular expressions of sacrebleu's _normalize_general_and_western, in its order. They
// are simple enough that Go's leftmost-first, non-overlapping replacement gives what Python's
// re.sub gives. `'s$` is left out: it never matches, because the text always ends with the
// space added before it runs (and no newline is left). They are compiled on first use, not
// at init: every evalstream process would pay for them (0.08 ms), most never score TER.
var (
	rePunct      = lazyRegexp("([{-~[-` -&(-+:-@/])")
	rePeriodPre  = lazyRegexp(`([^0-9])([\.,])`)
	rePeriodPost = lazyRegexp(`([\.,])([^0-9])`)
	reDash       = lazyRegexp(`([0-9])(-)`)
)

// lazyRegexp returns a function that compiles expr on its first call and returns the same
// *regexp.Regexp on every call. Safe for concurrent use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// normalizeGeneral is sacrebleu's _normalize_general_and_western.
func normalizeGeneral(s string) string {
	s = strings.ReplaceAll(s, "\n-", "")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "&quot;", `"`)
	s = strings.ReplaceAll(s, "&amp;", "&")
	s = strings.ReplaceAll(s, "&lt;", "<")
	s = strings.ReplaceAll(s, "&gt;", ">")
	s = " " + s + " "
	s = rePunct().ReplaceAllString(s, " ${1} ")
	s = strings.ReplaceAll(s, "'s ", " 's ")
	s = rePeriodPre().ReplaceAllString(s, "${1} ${2} ")
	s = rePeriodPost().ReplaceAllString(s, " ${1} ${2}")
	s = reDash().ReplaceAllString(s, "${1} ${2} ")
	return s
}

// isAsianPunct is TercomTokenizer.ASIAN_PUNCT.
func isAsianPunct(r rune) bool {
	return r == 0x3001 || r == 0x3002 || r >= 0x3008 && r <= 0x3011 || r >= 0x3014 && r <= 0x301f ||
		r >= 0xff61 && r <= 0xff65 || r == 0x30fb
}

// isFullWidthPunct is TercomTokenizer.FULL_WIDTH_PUNCT.
func isFullWidthPunct(r rune) bool {
	switch r {
	case 0xff0e, 0xff0c, 0xff1f, 0xff1a, 0xff1b, 0xff01, 0xff02, 0xff08, 0xff09:
		return true
	}
	return false
}

// isAsianSplit reports whether _normalize_asian puts spaces around r. Its Hiragana, Katakana
// and Katakana Phonetic Extensions rules are anchored at both ends of the text (`^...$`
// without MULTILINE) and never match the space-padded text they get, so they are no-ops.
func isAsianSplit(r rune) bool {
	return r >= 0x4e00 && r <= 0x9fff || r >= 0x3400 && r <= 0x4dbf ||
		r >= 0x31c0 && r <= 0x31ef || r >= 0x2e80 && r <= 0x2eff ||
		r >= 0x3300 && r <= 0x33ff || r >= 0xf900 && r <= 0xfaff || r >= 0xfe30 && r <= 0xfe4f ||
		r >= 0x3200 && r <= 0x3f22 ||
		isAsianPunct(r) || isFullWidthPunct(r)
}

// normalizeAsian is sacrebleu's _normalize_asian. Every rule puts spaces around single
// characters, and only the final whitespace split reads the spaces, so one pass that pads
// each matching character once gives the same tokens.
func normalizeAsian(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for _, r := range s {
		if isAsianSplit(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// removePunct is sacrebleu's _remove_punct, plus _remove_asian_punct when asian is set.
func removePunct(s string, asian bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch r {
		case '.', ',', '?', ':', ';', '!', '"', '(', ')':
			continue
		}
		if asian && (isAsianPunct(r) || isFullWidthPunct(r)) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// rstrip is Python's str.rstrip() with no arguments.
func rstrip(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if !tokenize.PyIsSpace(r) {
			return s
		}
		s = s[:len(s)-n]
	}
	return s
}

// prepare is TER._preprocess_segment: rstrip, then TercomTokenizer (lowercase unless
// case-sensitive, normalization, punctuation removal). It returns the text whose Python
// whitespace split is the token list.
func (o textOptions) prepare(s string) string {
	s = rstrip(s)
	if s == "" {
		return ""
	}
	if !o.caseSensitive {
		s = tokenize.PyLower(s)
	}
	if o.normalized {
		s = normalizeGeneral(s)
		if o.asian {
			s = normalizeAsian(s)
		}
	}
	if o.noPunct {
		s = removePunct(s, o.asian)
	}
	return s
}
