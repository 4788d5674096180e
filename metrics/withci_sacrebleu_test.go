package metrics

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/metrics/stats/sacrebleu"
	"github.com/stretchr/testify/require"
)

func TestWithCISacrebleu(t *testing.T) {
	c := stats.Config{Method: stats.MethodSacrebleu, Resamples: 100, Level: 0.95, Seed: 12345}
	cases := []struct {
		entry map[string]any
		err   string // "" = accepted
	}{
		{map[string]any{"type": "bleu"}, ""},
		{map[string]any{"type": "chrf", "word_order": 2}, ""},
		{map[string]any{"type": "ter"}, ""},
		{map[string]any{"type": "bleu", "compat": "ignite"}, "compat ignite"},
		{map[string]any{"type": "rouge_n"}, "only types bleu, chrf and ter"},
		{map[string]any{"type": "accuracy"}, "only types bleu, chrf and ter"},
	}
	for _, tc := range cases {
		m, err := New(tc.entry)
		require.NoError(t, err)
		w, err := m.WithCI(c)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "%v", tc.entry)
			continue
		}
		require.NoError(t, err, "%v", tc.entry)
		require.IsType(t, &sacrebleu.Metric{}, w.Metric)
		require.Contains(t, w.Metric.Signature(), "|ci:sacrebleu,B=100,level=0.95,seed=12345")
	}
}
