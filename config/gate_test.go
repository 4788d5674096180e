package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGateSection(t *testing.T) {
	const base = "source: {type: file, path: x.jsonl}\nmetrics: [{type: bleu}, {type: ter}]\nsinks: [{type: stdout}]\n"
	for _, tc := range []struct {
		name  string
		gate  string
		sets  []string
		check func(t *testing.T, g *Gate)
		probs []string
	}{
		{"defaults", "gate: {rules: [{metric: bleu, min: 0.2}]}", nil, func(t *testing.T, g *Gate) {
			require.Equal(t, DefaultGateAlpha, g.Alpha)
			require.Equal(t, 0.2, *g.Rules[0].Min)
			require.Nil(t, g.Rules[0].MaxDrop)
		}, nil},
		{"--set alpha and a rule bound", "gate: {baseline: b.state, rules: [{metric: ter, max_drop: 0.1}]}", []string{"gate.alpha=0.01", "gate.rules[0].max_drop_relative=0.02"}, func(t *testing.T, g *Gate) {
			require.Equal(t, 0.01, g.Alpha)
			require.Equal(t, 0.02, *g.Rules[0].MaxDropRelative)
			require.True(t, g.Rules[0].HasDrop())
		}, nil},
		{"--set adds a gate", "", []string{"gate.rules[0].metric=bleu", "gate.rules[0].max=1"}, func(t *testing.T, g *Gate) {
			require.Equal(t, "bleu", g.Rules[0].Metric)
			require.Equal(t, 1.0, *g.Rules[0].Max)
		}, nil},
		{"every problem named by its rule", "gate:\n  alpha: 1\n  rules:\n    - {metric: bleu}\n    - {metric: blue, min: 0, slice: a=b, slices: all}\n    - {metric: ter, max_drop: -0.1, significant_only: true}\n    - {min: 0}\n", nil, nil, []string{
			"gate.alpha: 1 is not strictly between 0 and 1",
			"gate.rules[0] (bleu): has no bound: set min, max, max_drop or max_drop_relative",
			`gate.rules[1] (blue).metric: unknown metric "blue" (metrics: [bleu ter])`,
			"gate.rules[1] (blue): set slice or slices, not both",
			"gate.rules[2] (ter).max_drop: -0.1 is negative (it bounds a drop in the worse direction)",
			"gate.rules[2] (ter): max_drop/max_drop_relative need gate.baseline",
			"gate.rules[3].metric: is required",
		}},
		{"significant_only needs a drop rule", "gate: {baseline: b.state, rules: [{metric: bleu, min: 0, significant_only: true}]}", nil, nil, []string{
			"gate.rules[0] (bleu).significant_only: applies to max_drop/max_drop_relative, and the rule has neither",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(base+tc.gate), tc.sets)
			require.NoError(t, err)
			require.NotNil(t, c.Gate)
			err = c.Validate()
			if tc.probs == nil {
				require.NoError(t, err)
				tc.check(t, c.Gate)
				return
			}
			var p Problems
			require.ErrorAs(t, err, &p)
			for _, want := range tc.probs {
				require.Contains(t, p, want)
			}
		})
	}
}

func TestGateUnknownKeyNamesTheRule(t *testing.T) {
	_, err := Parse([]byte("gate: {rules: [{metric: bleu, mni: 0.2}], alfa: 0.1}\n"), nil)
	require.ErrorContains(t, err, `gate.rules[0].mni: unknown key "mni" in a gate rule (valid keys: max, max_drop, max_drop_relative, metric, min, significant_only, slice, slices); did you mean "min"?`)
	require.ErrorContains(t, err, `gate.alfa: unknown key "alfa" in gate (valid keys: alpha, baseline, rules); did you mean "alpha"?`)
}
