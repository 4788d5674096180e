package prob

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "log_loss":
		return NewLogLoss(o)
	case "brier":
		return NewBrier(o)
	case "calibration_error":
		return NewCalibration(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

// TestGoldens runs the scikit-learn and torchmetrics goldens of gen_prob.py, with the merge
// laws and split invariance of every state.
func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/prob.json", ctor)
}

// TestNameGoldens checks class-name labels against scikit-learn on the same string labels.
func TestNameGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/probnames_prob.json", ctor)
}
