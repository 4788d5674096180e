// Package textinput validates the text inputs that the text metrics (bleu, chrf, rouge_*,
// distinct, exact_match, token_f1) share: a prediction that is a string or a list of tokens,
// and references that are a string, a list of strings or a list of token lists. All of them
// reject a record for the same reasons with the same messages.
package textinput

import (
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// Prediction validates a prediction in role: a string or a list of token strings. When
// utf8Checked is set (core.Example.UTF8Checked) the strings are known to be valid UTF-8.
func Prediction(v core.Value, role string, utf8Checked bool) error {
	switch v.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", role, "a prediction is required")
	case core.String:
		if !utf8Checked && !utf8.ValidString(v.Str) {
			return core.Reject("invalid utf-8", role, "the prediction is not valid UTF-8")
		}
	case core.StringList:
		if i := firstInvalid(v.Strs, utf8Checked); i >= 0 {
			return core.Reject("invalid utf-8", role, "prediction token %d is not valid UTF-8", i)
		}
	default:
		return core.Reject("wrong type", role, "want a string or a list of token strings, got %s", v.Kind)
	}
	return nil
}

// References validates the references in role: a string (one reference), a list of
// reference strings or a list of token lists, with at least one reference.
func References(v core.Value, role string, utf8Checked bool) error {
	switch v.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", role, "references are required")
	case core.String:
		if !utf8Checked && !utf8.ValidString(v.Str) {
			return core.Reject("invalid utf-8", role, "the reference is not valid UTF-8")
		}
	case core.StringList:
		if len(v.Strs) == 0 {
			return core.Reject("empty references", role, "at least one reference is required")
		}
		if i := firstInvalid(v.Strs, utf8Checked); i >= 0 {
			return core.Reject("invalid utf-8", role, "reference %d is not valid UTF-8", i)
		}
	case core.StringLists:
		if len(v.Lists) == 0 {
			return core.Reject("empty references", role, "at least one reference is required")
		}
		for i, l := range v.Lists {
			if firstInvalid(l, utf8Checked) >= 0 {
				return core.Reject("invalid utf-8", role, "a token of reference %d is not valid UTF-8", i)
			}
		}
	default:
		return core.Reject("wrong type", role, "want a string, a list of strings or a list of token lists, got %s", v.Kind)
	}
	return nil
}

// Count is the number of references in a value References accepts (0 for any other).
func Count(v core.Value) int {
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

func firstInvalid(ss []string, utf8Checked bool) int {
	if utf8Checked {
		return -1
	}
	for i, s := range ss {
		if !utf8.ValidString(s) {
			return i
		}
	}
	return -1
}

// AllValid reports whether every string of ss is valid UTF-8.
func AllValid(ss []string) bool { return firstInvalid(ss, false) < 0 }

// CheckPair validates the prediction (Values[0]) and references (Values[1]) of a text record
// without tokenizing: the Check of a metric with those two roles.
func CheckPair(ex *core.Example) error {
	if len(ex.Values) < 2 {
		return core.Reject("missing field", "references", "record has %d of 2 fields", len(ex.Values))
	}
	if err := Prediction(ex.Values[0], "prediction", ex.UTF8Checked); err != nil {
		return err
	}
	return References(ex.Values[1], "references", ex.UTF8Checked)
}

// Usable reports whether a state's Add can score the example (CheckPair accepted it, or it
// is at least of a usable shape), so that Add never panics on an unchecked record.
func Usable(ex *core.Example) bool {
	if len(ex.Values) < 2 || Count(ex.Values[1]) == 0 {
		return false
	}
	k := ex.Values[0].Kind
	return k == core.String || k == core.StringList
}
