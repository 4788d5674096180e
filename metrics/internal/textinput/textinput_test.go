package textinput

import (
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

func TestChecks(t *testing.T) {
	str := func(s string) core.Value { return core.Value{Kind: core.String, Str: s} }
	strs := func(s ...string) core.Value { return core.Value{Kind: core.StringList, Strs: s} }
	lists := func(l ...[]string) core.Value { return core.Value{Kind: core.StringLists, Lists: l} }
	cases := []struct {
		name       string
		pred, refs core.Value
		reason     string // "" = accepted
		field      string
		checked    string // reason when the source promised valid UTF-8
	}{
		{"strings", str("a b"), str("a"), "", "", ""},
		{"tokens and lists", strs("a", "b"), lists([]string{"a"}, []string{}), "", "", ""},
		{"missing prediction", core.Value{}, str("a"), "missing field", "prediction", "missing field"},
		{"null references", str("a"), core.Value{Kind: core.Null}, "missing field", "references", "missing field"},
		{"number prediction", core.Value{Kind: core.Int, Int: 3}, str("a"), "wrong type", "prediction", "wrong type"},
		{"float references", str("a"), core.Value{Kind: core.FloatList, Floats: []float64{1}}, "wrong type", "references", "wrong type"},
		{"no references", str("a"), strs(), "empty references", "references", "empty references"},
		{"no token lists", str("a"), lists(), "empty references", "references", "empty references"},
		{"bad prediction", str("a\xff"), str("a"), "invalid utf-8", "prediction", ""},
		{"bad prediction token", strs("a", "\xc3"), str("a"), "invalid utf-8", "prediction", ""},
		{"bad reference", str("a"), str("\xed\xa0\x80"), "invalid utf-8", "references", ""},
		{"bad second reference", str("a"), strs("a", "\xff"), "invalid utf-8", "references", ""},
		{"bad reference token", str("a"), lists([]string{"a"}, []string{"b", "\xff"}), "invalid utf-8", "references", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, checked := range []bool{false, true} {
				err := Prediction(c.pred, "prediction", checked)
				if err == nil {
					err = References(c.refs, "references", checked)
				}
				want := c.reason
				if checked {
					want = c.checked
				}
				if want == "" {
					require.NoError(t, err, "utf8Checked=%v", checked)
					continue
				}
				var re *core.RecordError
				require.ErrorAs(t, err, &re, "utf8Checked=%v", checked)
				require.Equal(t, want, re.Reason)
				require.Equal(t, c.field, re.Field)
			}
		})
	}
	require.Equal(t, 1, Count(str("x")))
	require.Equal(t, 2, Count(strs("x", "y")))
	require.Equal(t, 3, Count(lists(nil, nil, nil)))
	require.Equal(t, 0, Count(core.Value{Kind: core.Int}))
	require.True(t, AllValid([]string{"a", "ü"}))
	require.False(t, AllValid([]string{"a", "\xff"}))
}
