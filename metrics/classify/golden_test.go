package classify

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "accuracy":
		return NewAccuracy(o)
	case "precision":
		return NewPrecision(o)
	case "recall":
		return NewRecall(o)
	case "f1":
		return NewF1(o)
	case "confusion_matrix":
		return NewConfusionMatrix(o)
	case "mcc":
		return NewMCC(o)
	case "cohen_kappa":
		return NewCohenKappa(o)
	case "balanced_accuracy":
		return NewBalancedAccuracy(o)
	case "classification_report":
		return NewClassificationReport(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/classify.json", ctor)
}

// TestGoldensRegErr runs the goldens of issue 15's scikit-learn metrics (gen_regerr.py).
func TestGoldensRegErr(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/regerr_classify.json", ctor)
}

// TestGoldensReport runs the classification_report goldens (gen_report.py).
func TestGoldensReport(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/report.json", ctor)
}

// TestGoldensNames runs the goldens of class names without the classes option (gen_names.py):
// scikit-learn's values on string labels, and the names' order in details.classes.
func TestGoldensNames(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/names.json", ctor)
}
