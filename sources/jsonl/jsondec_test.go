package jsonl

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

func decodeLine(line string, fields ...string) ([]core.Value, bool, *core.RecordError) {
	d := newJSONDecoder(fields)
	out := make([]core.Value, len(fields))
	var ar fileread.Arena
	blank, rerr := d.decode([]byte(line), out, &ar)
	return out, blank, rerr
}

func sv(s string) core.Value       { return core.Value{Kind: core.String, Str: s} }
func iv(i int64) core.Value        { return core.Value{Kind: core.Int, Int: i} }
func fv(f float64) core.Value      { return core.Value{Kind: core.Float, Float: f} }
func bv(b int64) core.Value        { return core.Value{Kind: core.Bool, Int: b} }
func slv(s ...string) core.Value   { return core.Value{Kind: core.StringList, Strs: s} }
func fl(f ...float64) core.Value   { return core.Value{Kind: core.FloatList, Floats: f} }
func sls(l ...[]string) core.Value { return core.Value{Kind: core.StringLists, Lists: l} }
func mv(k []string, f ...float64) core.Value {
	return core.Value{Kind: core.Map, Strs: k, Floats: f}
}

var (
	missing = core.Value{Kind: core.Missing}
	null    = core.Value{Kind: core.Null}
	other   = core.Value{Kind: core.Other}
)

func TestJSONDecodeValues(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []core.Value // for fields a, b
	}{
		{"strings", `{"a":"x","b":"héllo"}`, []core.Value{sv("x"), sv("héllo")}},
		{"missing", `{"a":"x"}`, []core.Value{sv("x"), missing}},
		{"empty object", `{}`, []core.Value{missing, missing}},
		{"null", `{"a":null,"b":1}`, []core.Value{null, iv(1)}},
		{"ints", `{"a":-0,"b":123456789012345678}`, []core.Value{iv(0), iv(123456789012345678)}},
		{"int64 bounds", `{"a":9223372036854775807,"b":-9223372036854775808}`, []core.Value{iv(math.MaxInt64), iv(math.MinInt64)}},
		{"int overflow is float", `{"a":9223372036854775808,"b":-99999999999999999999}`, []core.Value{fv(9223372036854775808), fv(-99999999999999999999)}},
		{"floats", `{"a":1.0,"b":-2.5e-3}`, []core.Value{fv(1), fv(-0.0025)}},
		{"exponent without fraction", `{"a":1e2,"b":1E+2}`, []core.Value{fv(100), fv(100)}},
		{"float overflow is inf", `{"a":1e400,"b":-1e400}`, []core.Value{fv(math.Inf(1)), fv(math.Inf(-1))}},
		{"float underflow", `{"a":1e-400,"b":-0.0}`, []core.Value{fv(0), fv(math.Copysign(0, -1))}},
		{"bools", `{"a":true,"b":false}`, []core.Value{bv(1), bv(0)}},
		{"string list", `{"a":["x","y"],"b":[]}`, []core.Value{slv("x", "y"), slv()}},
		{"list of lists", `{"a":[["x","y"],[]],"b":[[]]}`, []core.Value{sls([]string{"x", "y"}, []string{}), sls([]string{})}},
		{"float list", `{"a":[1,2.5,-3e1],"b":[true,false,2]}`, []core.Value{fl(1, 2.5, -30), fl(1, 0, 2)}},
		{"mixed lists are other", `{"a":["x",1],"b":[1,"x"]}`, []core.Value{other, other}},
		{"null elements are other", `{"a":["x",null],"b":[null]}`, []core.Value{other, other}},
		{"bad inner lists are other", `{"a":[["x"],"y"],"b":[["x",1],["y"]]}`, []core.Value{other, other}},
		{"lists of numbers lists are other", `{"a":[[1]],"b":[{"x":1}]}`, []core.Value{other, other}},
		{"objects are other", `{"a":{"x":[1,{"y":null}]},"b":{"x":1,"y":"2"}}`, []core.Value{other, other}},
		{"objects of numbers are maps", `{"a":{"d2":2,"d1":-1.5e0,"d3":true},"b":{}}`, []core.Value{mv([]string{"d1", "d2", "d3"}, -1.5, 2, 1), mv(nil)}},
		{"maps: last of a repeated key wins", `{"a":{"x":1,"y":2,"x":3},"b":{ "\u0061" : 0 , "a":false }}`, []core.Value{mv([]string{"x", "y"}, 3, 2), mv([]string{"a"}, 0)}},
		{"maps: a later non-number makes other", `{"a":{"x":1,"y":[2]},"b":{"x":1,"y":null}}`, []core.Value{other, other}},
		{"escapes", `{"a":"q\"b\\s\/n\nt\tr\rb\bf\f","b":"\u00e9\u4e2d"}`, []core.Value{sv("q\"b\\s/n\nt\tr\rb\bf\f"), sv("é中")}},
		{"surrogate pair", `{"a":"\ud83d\ude00","b":"x\ud83dy"}`, []core.Value{sv("😀"), sv("x\uFFFDy")}},
		{"lone low surrogate", `{"a":"\ude00\ud83d","b":"\ud83d\u0041"}`, []core.Value{sv("\uFFFD\uFFFD"), sv("\uFFFDA")}},
		{"escaped list elements", `{"a":["\n","\u0041"],"b":[["\"x\""]]}`, []core.Value{slv("\n", "A"), sls([]string{`"x"`})}},
		{"duplicate keys: last wins", `{"a":1,"b":2,"a":"x","b":null}`, []core.Value{sv("x"), null}},
		{"escaped key", `{"\u0061":"x","b\u0000":1}`, []core.Value{sv("x"), missing}},
		{"whitespace", " \t{ \"a\" : [ \"x\" , \"y\" ] , \"b\" : 1 }\r ", []core.Value{slv("x", "y"), iv(1)}},
		{"skipped junk", `{"z":{"q":[1,2,{"r":"\u0000"}],"s":true},"a":1,"y":[null,1e5,"\\"],"b":2}`, []core.Value{iv(1), iv(2)}},
		{"invalid utf-8 elsewhere is fine", "{\"z\":\"\xff\",\"a\":1}", []core.Value{iv(1), missing}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, blank, rerr := decodeLine(tc.line, "a", "b")
			require.False(t, blank)
			require.Nil(t, rerr)
			require.Equal(t, canonAll(tc.want), canonAll(got))
			// encoding/json + core.FromJSON agree.
			want, ok := oracle([]byte(tc.line), []string{"a", "b"})
			require.True(t, ok)
			require.Equal(t, canonAll(want), canonAll(got))
		})
	}
}

func TestJSONDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		reason string
		field  string
		detail string // substring
	}{
		{"not an object", `["a"]`, "invalid json", "", "expected a JSON object at column 1"},
		{"scalar", `  42`, "invalid json", "", "at column 3"},
		{"truncated", `{"a":"x"`, "invalid json", "", "unexpected end of line after object key:value pair at column 9"},
		{"truncated string", `{"a":"x`, "invalid json", "", "end of line in string literal"},
		{"trailing data", `{"a":1} x`, "invalid json", "", "invalid character 'x' after the top-level object at column 9"},
		{"two objects", `{"a":1}{"a":2}`, "invalid json", "", "at column 8"},
		{"trailing comma", `{"a":1,}`, "invalid json", "", "column 8"},
		{"trailing comma in list", `{"a":[1,]}`, "invalid json", "", "column 9"},
		{"single quotes", `{'a':1}`, "invalid json", "", "column 2"},
		{"NaN", `{"a":NaN}`, "invalid json", "", "column 6"},
		{"Infinity", `{"a":Infinity}`, "invalid json", "", "column 6"},
		{"negative infinity", `{"a":-Infinity}`, "invalid json", "", "in numeric literal at column 7"},
		{"leading zero", `{"a":01}`, "invalid json", "", "column 7"},
		{"bare fraction", `{"a":.5}`, "invalid json", "", "column 6"},
		{"empty fraction", `{"a":1.}`, "invalid json", "", "after decimal point"},
		{"empty exponent", `{"a":1e}`, "invalid json", "", "in exponent"},
		{"plus sign", `{"a":+1}`, "invalid json", "", "column 6"},
		{"hex", `{"a":0x10}`, "invalid json", "", "column 7"},
		{"bad literal", `{"a":tru}`, "invalid json", "", "in literal true"},
		{"bad escape", `{"a":"\x"}`, "invalid json", "", "in string escape code"},
		{"bad unicode escape", `{"a":"\u12g4"}`, "invalid json", "", `invalid \u escape`},
		{"control character", "{\"a\":\"x\ty\"}", "invalid json", "", "control character"},
		{"raw newline", "{\"b\":\"x\ny\"}", "invalid json", "", "control character"},
		{"missing colon", `{"a" 1}`, "invalid json", "", "after object key"},
		{"unquoted key", `{a:1}`, "invalid json", "", "beginning of an object key"},
		{"bad skipped value", `{"z":[1,2}`, "invalid json", "", "after array element"},
		{"bad nested skipped", `{"z":{"x":}}`, "invalid json", "", "beginning of value"},
		{"invalid utf-8 string", "{\"b\":\"x\xffy\"}", "invalid utf-8", "b", ""},
		{"invalid utf-8 in list", "{\"a\":[\"ok\",\"\xc3\"]}", "invalid utf-8", "a", ""},
		{"invalid utf-8 in escaped string", "{\"a\":\"\\n\xed\xa0\x80\"}", "invalid utf-8", "a", ""},
		{"invalid utf-8 in list of lists", "{\"a\":[[\"\xff\"]]}", "invalid utf-8", "a", ""},
		{"invalid utf-8 in a map key", "{\"a\":{\"d\xff\":1}}", "invalid utf-8", "a", ""},
		{"truncated map", `{"a":{"x":1`, "invalid json", "", "after object key:value pair"},
		{"trailing comma in map", `{"a":{"x":1,}}`, "invalid json", "", "beginning of object key string at column 13"},
		{"map missing colon", `{"a":{"x" 1}}`, "invalid json", "", "after object key at column 11"},
		{"map bad separator", `{"a":{"x":1;"y":2}}`, "invalid json", "", "after object key:value pair at column 12"},
		{"map bad later value", `{"a":{"x":1,"y":[}}`, "invalid json", "", "beginning of value"},
		{"non-ascii outside strings", "{\"a\":1\xc2\xa0}", "invalid json", "", "0xC2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, blank, rerr := decodeLine(tc.line, "a", "b")
			require.False(t, blank)
			require.NotNil(t, rerr)
			require.Equal(t, tc.reason, rerr.Reason)
			require.Equal(t, tc.field, rerr.Field)
			require.Contains(t, rerr.Detail, tc.detail)
			if tc.reason == "invalid json" {
				require.Equal(t, []string{"missing", "missing"}, canonAll(got))
				_, ok := oracle([]byte(tc.line), []string{"a", "b"})
				require.False(t, ok, "encoding/json accepts %q", tc.line)
			}
		})
	}
}

func TestJSONDecodeInvalidUTF8OnlyWhenKept(t *testing.T) {
	// A list that becomes Other or a later duplicate key drops the invalid string.
	for _, line := range []string{"{\"a\":[\"\xff\",1]}", "{\"a\":\"\xff\",\"a\":\"ok\"}", "{\"a\":{\"k\":\"\xff\"}}"} {
		_, _, rerr := decodeLine(line, "a")
		require.Nil(t, rerr, line)
	}
}

func TestJSONDecodeBlank(t *testing.T) {
	for _, line := range []string{"", " ", "\t\r", "  \r"} {
		_, blank, rerr := decodeLine(line, "a")
		require.True(t, blank)
		require.Nil(t, rerr)
	}
}

func TestJSONDecodeDepth(t *testing.T) {
	deep := func(n int) string {
		return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	}
	for _, field := range []string{"a", "z"} { // requested and skipped
		_, _, rerr := decodeLine(deep(maxNestingDepth-1), field)
		require.Nil(t, rerr)
		_, _, rerr = decodeLine(deep(maxNestingDepth), field)
		require.NotNil(t, rerr)
		require.Contains(t, rerr.Detail, "exceeded max depth")
		_, ok := oracle([]byte(deep(maxNestingDepth)), []string{field})
		require.False(t, ok)
		_, ok = oracle([]byte(deep(maxNestingDepth-1)), []string{field})
		require.True(t, ok)
	}
}

func TestJSONDecodeFieldLookup(t *testing.T) {
	// Repeated requested fields and the map lookup used for many fields.
	got, _, rerr := decodeLine(`{"a":1,"b":"x"}`, "b", "a", "b")
	require.Nil(t, rerr)
	require.Equal(t, []string{`s:"x"`, "i:1", `s:"x"`}, canonAll(got))

	fields := []string{"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f3"}
	got, _, rerr = decodeLine(`{"f9":9,"f3":3,"zz":0,"f0":0}`, fields...)
	require.Nil(t, rerr)
	require.Equal(t, []string{"i:0", "missing", "missing", "i:3", "missing", "missing", "missing", "missing", "missing", "i:9", "i:3"}, canonAll(got))
}

func TestJSONDecodeAliasing(t *testing.T) {
	// Strings without escapes alias the line; escaped strings do not.
	line := []byte(`{"a":"plain","b":"esc\n"}`)
	d := newJSONDecoder([]string{"a", "b"})
	out := make([]core.Value, 2)
	var ar fileread.Arena
	_, rerr := d.decode(line, out, &ar)
	require.Nil(t, rerr)
	copy(line[6:], "PLAIN")
	require.Equal(t, "PLAIN", out[0].Str)
	require.Equal(t, "esc\n", out[1].Str)
}
