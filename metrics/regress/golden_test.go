package regress

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "pearson":
		return NewPearson(o)
	case "spearman":
		return NewSpearman(o)
	case "perplexity":
		return NewPerplexity(o)
	case "mse":
		return NewMSE(o)
	case "rmse":
		return NewRMSE(o)
	case "mae":
		return NewMAE(o)
	case "mape":
		return NewMAPE(o)
	case "r2":
		return NewR2(o)
	case "explained_variance":
		return NewExplainedVariance(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/regress.json", ctor)
}

// TestGoldensRegErr runs the goldens of issue 15's scikit-learn metrics (gen_regerr.py).
func TestGoldensRegErr(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/regerr_regress.json", ctor)
}
