// Package tokenize reproduces, byte for byte, the tokenizers of the Python
// reference implementations the metrics are checked against: sacrebleu 2.6's
// 13a, intl, zh, char and none tokenizers, Python's str.split(), and
// rouge-score 0.1.2's default tokenizer with NLTK 3.9.1's Porter stemmer,
// together with the Python text primitives they rest on (str.split,
// str.lower, str.isspace, re's \w).
//
// Everything here is pure and stateless: every function and every Func is
// safe for concurrent use. Returned tokens are substrings of the input
// where possible, so they may alias (and keep alive) the input string.
//
// Unicode: Python 3.11 str methods use Unicode 14.0, the regex module that
// sacrebleu's intl tokenizer uses has its own tables (Unicode 17.0 for
// regex 2026.11.15), and Go 1.26's unicode package is at 15.0. Measured over
// all code points, Go's unicode.P, unicode.S and unicode.N differ from
// regex's \p{P}, \p{S} and \p{N} on 18, 990 and 416 code points (e.g.
// U+20C1 SAUDI RIYAL SIGN is a symbol only for regex), and letters or
// numbers per Go differ from Python's str.isalnum() on 4388. So the tables
// in tables.go are generated from Python and regex themselves
// (testdata/gen_tables.py) and no result depends on Go's Unicode version.
// Upgrading the regex module (which sacrebleu does not pin) or Python means
// regenerating the tables and the goldens.
//
// Go strings may hold invalid UTF-8, which Python str cannot. Each invalid
// byte is kept as it is and treated as an ordinary character that is not
// whitespace, punctuation, a symbol, a digit, a letter or cased.
package tokenize

import (
	"errors"
	"fmt"
	"strings"
)

// Func splits a text into tokens. Implementations are safe for concurrent
// use; the returned tokens may alias s, and the slice belongs to the caller.
type Func func(s string) []string

// AppendFunc appends the tokens of s to dst and returns the extended slice, like
// append. It is the allocation-free form of a Func: a caller that reuses dst (dst[:0])
// across texts does not allocate once dst is large enough. Tokens may alias s.
// Implementations are safe for concurrent use.
type AppendFunc func(dst []string, s string) []string

// ErrUnknown is returned, wrapped, for a tokenizer name that does not exist.
var ErrUnknown = errors.New("unknown tokenizer")

// names lists the tokenizers in the order Names reports them.
var names = [...]string{"13a", "intl", "zh", "char", "none", "whitespace", "rouge"}

// Names returns the valid tokenizer names: 13a, intl, zh, char, none,
// whitespace and rouge. The caller owns the returned slice.
func Names() []string {
	out := make([]string, len(names))
	copy(out, names[:])
	return out
}

// New returns the named tokenizer. "13a", "intl", "zh", "char" and "none"
// are sacrebleu 2.6's tokenizers applied the way its BLEU applies them,
// tokenizer(segment.rstrip()).split(); "whitespace" is Python's str.split();
// "rouge" is rouge-score's default tokenizer without stemming (see Rouge).
// An unknown name gives an error wrapping ErrUnknown that lists the valid
// names. The returned Func is safe for concurrent use.
func New(name string) (Func, error) {
	switch name {
	case "13a":
		return func(s string) []string { return tokens13a(pyRstrip(s)) }, nil
	case "intl":
		return func(s string) []string { return tokensIntl(pyRstrip(s)) }, nil
	case "zh":
		return tokensZh, nil // strips both ends itself
	case "char":
		return tokensChar, nil // whitespace never becomes a token
	case "none", "whitespace":
		return PySplit, nil
	case "rouge":
		return func(s string) []string { return Rouge(s, false) }, nil
	}
	return nil, unknown(name)
}

// NewAppend returns the named tokenizer (see New) in its appending form: for every name and
// text, NewAppend(name)(dst, s) appends exactly the tokens New(name)(s) returns. The
// "rouge" tokenizer may allocate (its lowercase copy of a text with capitals); the others
// never allocate beyond growing dst.
func NewAppend(name string) (AppendFunc, error) {
	switch name {
	case "13a":
		return func(dst []string, s string) []string { return append13a(dst, pyRstrip(s)) }, nil
	case "intl":
		return func(dst []string, s string) []string { return schemeIntl.appendTokens(dst, pyRstrip(s), false) }, nil
	case "zh":
		return appendZh, nil
	case "char":
		return appendChar, nil
	case "none", "whitespace":
		return appendPySplit, nil
	case "rouge":
		return func(dst []string, s string) []string { return append(dst, Rouge(s, false)...) }, nil
	}
	return nil, unknown(name)
}

// SacreBLEU returns the output string of sacrebleu 2.6's tokenizer name
// (13a, intl, zh, char or none) on line, exactly like
// sacrebleu.tokenizers.TokenizerXXX()(line): no rstrip and no split. For
// every name but none, the tokens are joined by single spaces; none returns
// line unchanged.
func SacreBLEU(name, line string) (string, error) {
	switch name {
	case "13a":
		return strings.Join(tokens13a(line), " "), nil
	case "intl":
		return strings.Join(tokensIntl(line), " "), nil
	case "zh":
		return strings.Join(tokensZh(line), " "), nil
	case "char":
		return charString(line), nil
	case "none":
		return line, nil
	}
	return "", fmt.Errorf("tokenize: %w %q for SacreBLEU (valid: 13a, intl, zh, char, none)", ErrUnknown, name)
}

func unknown(name string) error {
	return fmt.Errorf("tokenize: %w %q (valid: %s)", ErrUnknown, name, strings.Join(names[:], ", "))
}
