package jsonl

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// fuzzFields are the fields FuzzJSONLine projects onto: common names, a name that only a
// coerced (invalid UTF-8) key matches, and the empty name.
var fuzzFields = []string{"a", "b", "prediction", "references", "\uFFFD", ""}

// FuzzJSONLine cross-checks the projecting decoder against encoding/json (UseNumber) +
// core.FromJSON: for any input both reject, or the projected values agree bit for bit. The
// decoder may reject a line encoding/json accepts only for invalid UTF-8 in a requested
// string (encoding/json coerces it to U+FFFD).
func FuzzJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"a":"x","b":[1,2.5,-3e-2]}`,
		`{"prediction":"the cat","references":["a cat","the cat"]}`,
		`{"references":[["a","cat"],[]],"a":{"z":[null,true]}}`,
		`{"a":1e400,"b":-0,"a":9223372036854775808}`,
		`{"\u0061":"\ud83d\ude00\u0000","b":"\ud800"}`,
		"{\"\xff\":1,\"a\":\"\xc3\"}",
		` {"a" : [ ] , "b" : [ [ ] ] } `,
		`{"a":[true,false,1],"b":[null]}`,
		`{"a":{"x":1,"y":2.5e0,"x":true},"b":{},"references":{"d":[1]}}`,
		`{"a":NaN}`,
		`[1,2]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		d := newJSONDecoder(fuzzFields)
		out := make([]core.Value, len(fuzzFields))
		var ar fileread.Arena
		blank, rerr := d.decode(line, out, &ar)
		want, ok := oracle(line, fuzzFields)
		if blank {
			require.True(t, isBlank(line), "%q", line)
			require.False(t, ok)
			return
		}
		if rerr != nil {
			switch rerr.Reason {
			case "invalid json":
				require.False(t, ok, "encoding/json accepts %q, we say %v", line, rerr)
				require.Equal(t, canonAll(make([]core.Value, len(fuzzFields))), canonAll(out))
			case "invalid utf-8":
				require.True(t, ok, "%q", line)
				require.False(t, utf8.Valid(line), "%q", line)
			default:
				t.Fatalf("unexpected reason %q", rerr.Reason)
			}
			return
		}
		require.True(t, ok, "we accept what encoding/json rejects: %q", line)
		require.Equal(t, canonAll(want), canonAll(out), "%q", line)
	})
}

var updateSeeds = flag.Bool("update-fuzz-seeds", false, "rewrite the seed corpora under testdata/fuzz")

// jsonSeeds are edge cases kept as seed corpus files (testdata/fuzz/FuzzJSONLine).
var jsonSeeds = []string{
	`{"prediction":"ok","references":["a","b"],"label":3}`,
	`{"a":[[],["x"],[]],"b":[[[]]]}`,
	`{"a":[1,-0.0,1E-7,123456789012345678901234567890],"b":[1,{}]}`,
	`{"a":-9223372036854775808,"b":-9223372036854775809}`,
	`{"a":0.1e1,"b":1e-324,"references":4.9e-324}`,
	`{"a":"\u00e9\u00E9\\u00e9","b":"\/\b\f\n\r\t"}`,
	`{"a":"\udbff\udfff","b":"\udc00\ud800"}`,
	"{\"a\":\"\xed\xa0\x80\",\"b\":\"\xf4\x90\x80\x80\"}",
	"{\"a\xff\":1,\"\xff\":2}",
	`{"a":"x","a":["y"],"a":null}`,
	"\t{\"a\"\r:\n1}\r",
	`{"a":tru}`,
	`{"a":"unterminated`,
	`{"a":[1,2,]}`,
	`{"a":1}}`,
	`{"b":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}`,
	`{"z":{"y":{"x":[{"w":"\"}\""}]}},"a":"after nested"}`,
	`{"":"empty key","\ufffd":"replacement"}`,
	`{"a":01}`,
	`{"a":-}`,
	`{"a":"\u12"}`,
	"{\"a\":\"tab\tinside\"}",
}

// TestWriteFuzzSeeds regenerates the seed corpus: go test -run TestWriteFuzzSeeds
// -update-fuzz-seeds ./sources/jsonl/
func TestWriteFuzzSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -update-fuzz-seeds to rewrite testdata/fuzz")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzJSONLine")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i, s := range jsonSeeds {
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", []byte(s))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(content), 0o644))
	}
}
