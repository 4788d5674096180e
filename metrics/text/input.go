package text

import (
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// The roles of the text metrics.
var (
	predictionRole = core.Role{Name: "prediction", Field: "prediction", Required: true,
		Accepts: []core.Kind{core.String, core.StringList}}
	referencesRole = core.Role{Name: "references", Field: "references", Required: true,
		Accepts: []core.Kind{core.StringList, core.String, core.StringLists}}
)

// checkPrediction validates a text prediction: a string or a list of tokens.
func checkPrediction(v core.Value) error {
	const role = "prediction"
	switch v.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", role, "a prediction is required")
	case core.String:
		if !utf8.ValidString(v.Str) {
			return core.Reject("invalid utf-8", role, "the prediction is not valid UTF-8")
		}
	case core.StringList:
		if !validAll(v.Strs) {
			return core.Reject("invalid utf-8", role, "a prediction token is not valid UTF-8")
		}
	default:
		return core.Reject("wrong type", role, "want a string or a list of token strings, got %s", v.Kind)
	}
	return nil
}

// checkReferences validates gold answers: a string (one gold), a list of gold strings or a
// list of token lists, with at least one gold.
func checkReferences(v core.Value) error {
	const role = "references"
	switch v.Kind {
	case core.Missing, core.Null:
		return core.Reject("missing field", role, "references are required")
	case core.String:
		if !utf8.ValidString(v.Str) {
			return core.Reject("invalid utf-8", role, "the reference is not valid UTF-8")
		}
	case core.StringList:
		if len(v.Strs) == 0 {
			return core.Reject("empty references", role, "at least one reference is required")
		}
		if !validAll(v.Strs) {
			return core.Reject("invalid utf-8", role, "a reference is not valid UTF-8")
		}
	case core.StringLists:
		if len(v.Lists) == 0 {
			return core.Reject("empty references", role, "at least one reference is required")
		}
		for _, l := range v.Lists {
			if !validAll(l) {
				return core.Reject("invalid utf-8", role, "a reference token is not valid UTF-8")
			}
		}
	default:
		return core.Reject("wrong type", role, "want a string, a list of strings or a list of token lists, got %s", v.Kind)
	}
	return nil
}

func validAll(ss []string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// answer returns a prediction as one string: tokens are joined by single spaces.
func answer(v core.Value) string {
	if v.Kind == core.StringList {
		return strings.Join(v.Strs, " ")
	}
	return v.Str
}

// numGolds is the number of gold answers of a checked references value: a plain string is
// one gold.
func numGolds(v core.Value) int {
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

// gold returns gold answer i (a token list is joined by single spaces).
func gold(v core.Value, i int) string {
	switch v.Kind {
	case core.String:
		return v.Str
	case core.StringList:
		return v.Strs[i]
	default:
		return strings.Join(v.Lists[i], " ")
	}
}
