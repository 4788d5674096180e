package bleu

import (
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
)

// checkText validates the prediction and references of a text record without tokenizing.
func checkText(ex *core.Example) error {
	if len(ex.Values) < 2 {
		return core.Reject("missing field", "references", "record has %d of 2 fields", len(ex.Values))
	}
	if err := textinput.Prediction(ex.Values[0], "prediction", ex.UTF8Checked); err != nil {
		return err
	}
	return textinput.References(ex.Values[1], "references", ex.UTF8Checked)
}

// usable reports whether Add can score the example (Check accepted it, or it is at least of
// a usable shape, so that Add never panics on an unchecked record).
func usable(ex *core.Example) bool {
	if len(ex.Values) < 2 || textinput.Count(ex.Values[1]) == 0 {
		return false
	}
	k := ex.Values[0].Kind
	return k == core.String || k == core.StringList
}
