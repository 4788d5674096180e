package metrics

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

// TestDidYouMean pins the hints for a misspelt metric type or option (validate and run print
// them after the list of valid names).
func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct {
		entry map[string]any
		want  string
	}{
		{map[string]any{"type": "bleuu"}, `type: unknown metric type "bleuu" (valid: [`},
		{map[string]any{"type": "bleuu"}, `]); did you mean "bleu"?`},
		{map[string]any{"type": "acuracy"}, `did you mean "accuracy"?`},
		{map[string]any{"type": "bleu", "tokenise": "13a"}, `tokenise: unknown option (valid: `},
		{map[string]any{"type": "bleu", "tokenise": "13a"}, `; did you mean "tokenize"?`},
		{map[string]any{"type": "f1", "averge": "macro"}, `averge: unknown option`},
		{map[string]any{"type": "f1", "averge": "macro"}, `did you mean "average"?`},
	} {
		_, err := New(tc.entry)
		require.Error(t, err)
		_, ok := core.AsOptionError(err)
		require.True(t, ok)
		require.Contains(t, err.Error(), tc.want)
	}
	_, err := New(map[string]any{"type": "zzzzzzzz"})
	require.NotContains(t, err.Error(), "did you mean")
}
