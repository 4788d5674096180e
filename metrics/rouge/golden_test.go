package rouge

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

// TestGoldens runs the values of the real rouge-score 0.1.2 and pytorch-ignite 0.5.5, and of
// the seed-checked MindNLP/PaddleNLP re-implementations (testdata/goldens/gen_rouge.py).
func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/rouge.json", ctor)
}
