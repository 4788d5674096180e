package rank

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "auroc":
		return NewAUROC(o)
	case "average_precision":
		return NewAveragePrecision(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/rank.json", ctor)
}

// TestNameGoldens checks class-name labels against scikit-learn on the same string labels.
func TestNameGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/probnames.json", ctor)
}
