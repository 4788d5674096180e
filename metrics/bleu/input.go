package bleu

import (
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// checkText validates the prediction and references of a text record without tokenizing.
func checkText(ex *core.Example) error {
	if len(ex.Values) < 2 {
		return core.Reject("missing field", "references", "record has %d of 2 fields", len(ex.Values))
	}
	p := ex.Values[0]
	switch p.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", "prediction", "no prediction")
	case core.String:
		if !utf8.ValidString(p.Str) {
			return core.Reject("invalid utf-8", "prediction", "the prediction is not valid UTF-8")
		}
	case core.StringList:
		for i, t := range p.Strs {
			if !utf8.ValidString(t) {
				return core.Reject("invalid utf-8", "prediction", "token %d is not valid UTF-8", i)
			}
		}
	default:
		return core.Reject("wrong type", "prediction", "want a string or a list of tokens, got %s", p.Kind)
	}
	r := ex.Values[1]
	switch r.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", "references", "no references")
	case core.String:
		if !utf8.ValidString(r.Str) {
			return core.Reject("invalid utf-8", "references", "the reference is not valid UTF-8")
		}
	case core.StringList:
		if len(r.Strs) == 0 {
			return core.Reject("empty references", "references", "the reference list is empty")
		}
		for i, s := range r.Strs {
			if !utf8.ValidString(s) {
				return core.Reject("invalid utf-8", "references", "reference %d is not valid UTF-8", i)
			}
		}
	case core.StringLists:
		if len(r.Lists) == 0 {
			return core.Reject("empty references", "references", "the reference list is empty")
		}
		for i, l := range r.Lists {
			for _, t := range l {
				if !utf8.ValidString(t) {
					return core.Reject("invalid utf-8", "references", "reference %d is not valid UTF-8", i)
				}
			}
		}
	default:
		return core.Reject("wrong type", "references", "want a string, a list of strings or a list of token lists, got %s", r.Kind)
	}
	return nil
}

// refCount is the number of references of a references value (0 for an unusable one).
func refCount(v core.Value) int {
	switch v.Kind {
	case core.String:
		return 1
	case core.StringList:
		return len(v.Strs)
	case core.StringLists:
		return len(v.Lists)
	}
	return 0
}

// usable reports whether Add can score the example (Check accepted it, or it is at least of
// a usable shape, so that Add never panics on an unchecked record).
func usable(ex *core.Example) bool {
	if len(ex.Values) < 2 || refCount(ex.Values[1]) == 0 {
		return false
	}
	k := ex.Values[0].Kind
	return k == core.String || k == core.StringList
}
