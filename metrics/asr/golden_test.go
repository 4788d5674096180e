package asr

import (
	"fmt"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

func ctor(typ string, o *core.Options) (core.Metric, error) {
	switch typ {
	case "wer":
		return NewWER(o)
	case "cer":
		return NewCER(o)
	case "mer":
		return NewMER(o)
	case "wil":
		return NewWIL(o)
	case "wip":
		return NewWIP(o)
	}
	return nil, fmt.Errorf("unknown metric type %q", typ)
}

func TestGoldens(t *testing.T) {
	goldentest.RunFile(t, "../../testdata/goldens/asr.json", ctor)
}
