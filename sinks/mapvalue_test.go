package sinks

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

// TestValueJSONMap: a dead letter keeps a map value (graded relevance) as a JSON object.
func TestValueJSONMap(t *testing.T) {
	v := core.Value{Kind: core.Map, Strs: []string{"d2", "d1", "d2"}, Floats: []float64{1, math.NaN(), 3}}
	b, err := json.Marshal(ValueJSON(v))
	require.NoError(t, err)
	require.JSONEq(t, `{"d1":"NaN","d2":3}`, string(b))
}
