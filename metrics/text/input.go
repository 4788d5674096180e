package text

import (
	"strings"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// The roles of the text metrics.
var (
	predictionRole = core.Role{Name: "prediction", Field: "prediction", Required: true,
		Accepts: []core.Kind{core.String, core.StringList}}
	referencesRole = core.Role{Name: "references", Field: "references", Required: true,
		Accepts: []core.Kind{core.StringList, core.String, core.StringLists}}
)

func checkPrediction(ex *core.Example) error {
	return textinput.Prediction(ex.Values[0], "prediction", ex.UTF8Checked)
}

func checkReferences(ex *core.Example) error {
	return textinput.References(ex.Values[1], "references", ex.UTF8Checked)
}

// answer returns a prediction as one string: tokens are joined by single spaces.
func answer(v core.Value) string {
	if v.Kind == core.StringList {
		return strings.Join(v.Strs, " ")
	}
	return v.Str
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
