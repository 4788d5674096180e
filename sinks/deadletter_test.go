package sinks

import (
	"math"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/stretchr/testify/require"
)

// TestDeadLetterJSONHoldsAnything: a row from Arrow or Parquet renders as JSON whatever it
// holds (NaN, ±Inf, bytes that are not UTF-8), keeping every value recognisable.
func TestDeadLetterJSONHoldsAnything(t *testing.T) {
	rec := &pipeline.Record{Values: []core.Value{
		{Kind: core.Float, Float: math.NaN()},
		{Kind: core.FloatList, Floats: []float64{0.5, math.Inf(1), math.Inf(-1)}},
		{Kind: core.String, Str: "ok \xff\xfe"},
		{Kind: core.StringList, Strs: []string{"a", "\xc3"}},
		{Kind: core.StringLists, Lists: [][]string{{"b"}, {"\x80"}}},
		{Kind: core.Bool, Int: 1},
		{Kind: core.Null},
	}}
	b, err := DeadLetterJSON(pipeline.DeadLetter{Pos: pipeline.Position{File: "a.arrow", Row: 2}, Reason: "non-finite value", Error: "x", Record: rec,
		Fields: []string{"x", "scores", "pred", "toks", "refs", "flag", "gone"}})
	require.NoError(t, err)
	require.JSONEq(t, `{"position": "a.arrow:3", "file": "a.arrow", "row": 3, "reason": "non-finite value", "error": "x",
		"record": {"x": "NaN", "scores": [0.5, "Infinity", "-Infinity"], "pred": {"base64": "b2sg//4="},
		"toks": ["a", {"base64": "ww=="}], "refs": [["b"], [{"base64": "gA=="}]], "flag": true}}`, string(b))
}
