package core

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFromJSONObjects(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{`{}`, Value{Kind: Map, Strs: []string{}, Floats: []float64{}}},
		{`{"b":2,"a":1.5,"c":true}`, Value{Kind: Map, Strs: []string{"a", "b", "c"}, Floats: []float64{1.5, 2, 1}}},
		{`{"a":1,"a":3}`, Value{Kind: Map, Strs: []string{"a"}, Floats: []float64{3}}},
		{`{"a":"1"}`, Value{Kind: Other}},
		{`{"a":null}`, Value{Kind: Other}},
		{`{"a":[1]}`, Value{Kind: Other}},
	}
	for _, tc := range tests {
		dec := json.NewDecoder(strings.NewReader(tc.in))
		dec.UseNumber()
		var x any
		require.NoError(t, dec.Decode(&x))
		require.Equal(t, tc.want, FromJSON(x), tc.in)
	}
	require.Equal(t, "map<string, number>", Map.String())
}
