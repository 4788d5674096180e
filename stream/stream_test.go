package stream

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/pipeline/gate"
)

func TestGateLogLine(t *testing.T) {
	start := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	de := "lang=de"
	v := &gate.Verdict{Rules: []gate.RuleResult{
		{Metric: "bleu", Passed: true, Reason: "0.3 ≥ min 0.25"},
		{Metric: "bleu", Slice: &de, Reason: "0.2 < min 0.25"},
		{Metric: "chrf", Reason: "dropped 0.02 > max_drop 0.01 (p = 0.0040)"},
	}}
	require.Equal(t, "bleu [lang=de]: 0.2 < min 0.25; chrf: dropped 0.02 > max_drop 0.01 (p = 0.0040)", failures(v))
	for _, tc := range []struct {
		name string
		r    *pipeline.Results
		what emission
		want string
	}{
		{"window", &pipeline.Results{Records: 7, Window: &pipeline.WindowSpan{Start: start, End: start.Add(time.Hour)}}, emitWindow,
			"window [2026-11-25T10:00:00Z, 2026-11-25T11:00:00Z) (7 records)"},
		{"running total", &pipeline.Results{Records: 12}, emitRunning, "the running total (12 records)"},
		{"final total", &pipeline.Results{Records: 12}, emitFinal, "the final total (12 records)"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, describe(tc.r, tc.what)) })
	}
}
