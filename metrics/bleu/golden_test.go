package bleu

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

const goldenPath = "../../testdata/goldens/bleu.json"

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "bleu":
		return NewBLEU(o)
	case "chrf":
		return NewCHRF(o)
	}
	return nil, nil
}

func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, goldenPath, ctor)
}

// goldenSignatures maps golden case names to the sacrebleu signature the generator recorded.
func goldenSignatures(t *testing.T) map[string]string {
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Name string `json:"name"`
			Sig  string `json:"sacrebleu_signature"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range f.Cases {
		if c.Sig != "" {
			out[c.Name] = c.Sig
		}
	}
	return out
}
