package jsonl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

// checkDecodeInts requires that DecodeInts, when it accepts b, gives what Decode gives, and
// returns whether it accepted.
func checkDecodeInts(t *testing.T, fields []string, b []byte) bool {
	t.Helper()
	d := NewDecoder(fields)
	got := make([]int64, len(fields))
	if !d.DecodeInts(b, got) {
		return false
	}
	want := make([]core.Value, len(fields))
	blank, rerr := d.Decode(b, want)
	require.False(t, blank, "%q", b)
	require.Nil(t, rerr, "%q", b)
	for i, v := range want {
		require.Equal(t, core.Int, v.Kind, "%q field %s", b, fields[i])
		require.Equal(t, v.Int, got[i], "%q field %s", b, fields[i])
	}
	return true
}

func TestDecodeInts(t *testing.T) {
	fields := []string{"label", "prediction"}
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"label":1,"prediction":0}`, true},
		{` { "prediction" : -7 , "label":12345678901234567 }` + "\n", true},
		{`{"id":"a-1","label":0,"n":-3,"prediction":-0}`, true},
		{`{"label":1,"prediction":2,"label":3}`, true}, // the last repeated key wins
		{`{"label":1}`, false},                         // a field missing
		{`{}`, false},
		{`{"label":1,"prediction":2.0}`, false},
		{`{"label":1,"prediction":2e1}`, false},
		{`{"label":1,"prediction":01}`, false},
		{`{"label":1,"prediction":-}`, false},
		{`{"label":1,"prediction":123456789012345678}`, true},
		{`{"label":1,"prediction":-123456789012345678}`, false}, // 19 characters: Decode's
		{`{"label":1,"prediction":9223372036854775807}`, false},
		{`{"label":1,"prediction":"2"}`, false},
		{`{"label":1,"prediction":null}`, false},
		{`{"label":1,"prediction":2,"x":[1]}`, false},
		{`{"label":1,"prediction":2,"x":"\u00e9"}`, false},
		{`{"lab\u0065l":1,"prediction":2}`, false},
		{`{"label":1,"prediction":2}x`, false},
		{`{"label":1,"prediction":2`, false},
		{`{"label":1 "prediction":2}`, false},
		{`[1,2]`, false},
		{"\xef\xbb\xbf" + `{"label":1,"prediction":2}`, false},
	} {
		require.Equal(t, c.ok, checkDecodeInts(t, fields, []byte(c.line)), "%q", c.line)
	}
	// A field requested twice gets the value in both places.
	d := NewDecoder([]string{"label", "prediction", "label"})
	out := make([]int64, 3)
	require.True(t, d.DecodeInts([]byte(`{"label":4,"prediction":5}`), out))
	require.Equal(t, []int64{4, 5, 4}, out)
}

// FuzzDecodeInts cross-checks the integer fast path against Decode (itself checked against
// encoding/json by FuzzJSONLine).
func FuzzDecodeInts(f *testing.F) {
	for _, s := range []string{
		`{"label":1,"prediction":0}`,
		`{"id":"x","label":-12,"prediction":3,"label":4}`,
		`{"label":0 ,"prediction": 0}`,
		`{"label":1,"prediction":2.5}`,
	} {
		f.Add([]byte(s))
	}
	fields := []string{"label", "prediction"}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeInts(t, fields, b) })
}
