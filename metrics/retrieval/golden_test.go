package retrieval

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "mrr":
		return NewMRR(o)
	case "ndcg":
		return NewNDCG(o)
	case "map":
		return NewMAP(o)
	case "precision_at_k":
		return NewPrecisionAtK(o)
	case "recall_at_k":
		return NewRecallAtK(o)
	case "hit_rate":
		return NewHitRate(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

// TestGoldens runs the pytrec_eval goldens of gen_retrieval.py, with the merge laws and split
// invariance of every state.
func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/retrieval.json", ctor)
}
