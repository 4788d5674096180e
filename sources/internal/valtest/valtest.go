// Package valtest holds the helpers the tests of sources and its format packages share: a
// canonical rendering of values and the encoding/json oracle the JSON decoder must agree
// with. Only tests import it.
package valtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// Canon renders a value so that two values compare equal exactly when they are the same
// (floats by their bits; nil and empty lists alike).
func Canon(v core.Value) string {
	switch v.Kind {
	case core.String:
		return "s:" + strconv.Quote(v.Str)
	case core.StringList:
		return fmt.Sprintf("sl:%q", v.Strs)
	case core.StringLists:
		return fmt.Sprintf("sls:%q", v.Lists)
	case core.Int:
		return fmt.Sprintf("i:%d", v.Int)
	case core.Float:
		return fmt.Sprintf("f:%x", math.Float64bits(v.Float))
	case core.FloatList:
		var b strings.Builder
		b.WriteString("fl:")
		for _, f := range v.Floats {
			fmt.Fprintf(&b, "%x,", math.Float64bits(f))
		}
		return b.String()
	case core.Bool:
		return fmt.Sprintf("b:%d", v.Int)
	case core.Map:
		var b strings.Builder
		b.WriteString("m:")
		for i, k := range v.Strs {
			fmt.Fprintf(&b, "%q=%x,", k, math.Float64bits(v.Floats[i]))
		}
		return b.String()
	}
	return v.Kind.String()
}

// CanonAll is Canon of each value.
func CanonAll(vals []core.Value) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = Canon(v)
	}
	return out
}

// Oracle decodes a line with encoding/json (UseNumber) and core.FromJSON: the reference the
// projecting decoder must agree with.
func Oracle(line []byte, fields []string) ([]core.Value, bool) {
	if !json.Valid(line) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, false
	}
	m, ok := x.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make([]core.Value, len(fields))
	for i, f := range fields {
		if v, ok := m[f]; ok {
			out[i] = core.FromJSON(v)
		}
	}
	return out, true
}

var benchWords = strings.Fields("the a cat dog sat on mat quickly brown fox jumps over lazy model output reference evaluation metric score café naïve 東京 über")

// BenchSentence returns n random words, some of them not ASCII.
func BenchSentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(w, " ")
}

// BenchLines returns n JSON lines shaped like evaluation records (~300 bytes each), with
// fields the benchmark does not request.
func BenchLines(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]byte, n)
	for i := range out {
		rec := map[string]any{
			"id":         i,
			"prediction": BenchSentence(r, 12+r.IntN(8)),
			"references": []string{BenchSentence(r, 14), BenchSentence(r, 10)},
			"label":      r.IntN(5),
			"meta":       map[string]any{"source": "wmt", "lang": "de-en", "scores": []float64{0.25, 0.5}},
		}
		if i%10 == 0 {
			rec["prediction"] = "quote \" and\nnewline " + BenchSentence(r, 8)
		}
		b, _ := json.Marshal(rec)
		out[i] = b
	}
	return out
}

// WriteArrowFile writes records to path as an Arrow IPC file, an Arrow IPC stream or
// Parquet (one record batch / row group per record).
func WriteArrowFile(t testing.TB, path, format string, recs ...arrow.Record) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	schema := recs[0].Schema()
	switch format {
	case "arrow":
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
		require.NoError(t, err)
		for _, r := range recs {
			require.NoError(t, w.Write(r))
		}
		require.NoError(t, w.Close())
	case "arrows":
		w := ipc.NewWriter(f, ipc.WithSchema(schema))
		for _, r := range recs {
			require.NoError(t, w.Write(r))
		}
		require.NoError(t, w.Close())
	case "parquet":
		w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		require.NoError(t, err)
		for _, r := range recs {
			require.NoError(t, w.Write(r))
		}
		require.NoError(t, w.Close())
	}
}

// RecordFromJSON builds a record of the given fields from a JSON array of objects.
func RecordFromJSON(t testing.TB, mem memory.Allocator, fields []arrow.Field, js string) arrow.Record {
	t.Helper()
	rec, _, err := array.RecordFromJSON(mem, arrow.NewSchema(fields, nil), strings.NewReader(js))
	require.NoError(t, err)
	return rec
}

// DictOf is dictionary<idx, utf8>.
func DictOf(idx arrow.DataType) arrow.DataType {
	return &arrow.DictionaryType{IndexType: idx, ValueType: arrow.BinaryTypes.String}
}

func f32bits(f float32) string { return Canon(fv(float64(f))) }

// TypeCase is one column of the all-types fixture with the expected value of each row.
type TypeCase struct {
	Name    string
	Typ     arrow.DataType
	Rows    [3]string // JSON of each row's value
	Want    [3]string // canonical value of each row
	Parquet bool      // also round-trips through Parquet
}

// TypeCases is the all-types fixture: one column per Arrow type the sources map, and
// types they do not decode.
var TypeCases = []TypeCase{
	{"s", arrow.BinaryTypes.String, [3]string{`"hello"`, `null`, `""`}, [3]string{`s:"hello"`, "null", `s:""`}, true},
	{"ls", arrow.BinaryTypes.LargeString, [3]string{`"large"`, `null`, `"ünï"`}, [3]string{`s:"large"`, "null", `s:"ünï"`}, true},
	{"vs", arrow.BinaryTypes.StringView, [3]string{`"a long string over twelve"`, `null`, `"short"`}, [3]string{`s:"a long string over twelve"`, "null", `s:"short"`}, false},
	{"ds", DictOf(arrow.PrimitiveTypes.Int8), [3]string{`"red"`, `null`, `"blue"`}, [3]string{`s:"red"`, "null", `s:"blue"`}, true},
	{"i8", arrow.PrimitiveTypes.Int8, [3]string{`-128`, `null`, `127`}, [3]string{"i:-128", "null", "i:127"}, true},
	{"i16", arrow.PrimitiveTypes.Int16, [3]string{`-32768`, `null`, `5`}, [3]string{"i:-32768", "null", "i:5"}, true},
	{"i32", arrow.PrimitiveTypes.Int32, [3]string{`7`, `null`, `-7`}, [3]string{"i:7", "null", "i:-7"}, true},
	{"i64", arrow.PrimitiveTypes.Int64, [3]string{`4611686018427387904`, `null`, `-1`}, [3]string{"i:4611686018427387904", "null", "i:-1"}, true},
	{"u8", arrow.PrimitiveTypes.Uint8, [3]string{`255`, `null`, `0`}, [3]string{"i:255", "null", "i:0"}, true},
	{"u16", arrow.PrimitiveTypes.Uint16, [3]string{`65535`, `null`, `1`}, [3]string{"i:65535", "null", "i:1"}, true},
	{"u32", arrow.PrimitiveTypes.Uint32, [3]string{`4294967295`, `null`, `2`}, [3]string{"i:4294967295", "null", "i:2"}, true},
	{"u64", arrow.PrimitiveTypes.Uint64, [3]string{`9223372036854775808`, `null`, `3`}, [3]string{Canon(fv(9223372036854775808)), "null", "i:3"}, true},
	{"f16", arrow.FixedWidthTypes.Float16, [3]string{`1.5`, `null`, `-0.25`}, [3]string{Canon(fv(1.5)), "null", Canon(fv(-0.25))}, false},
	{"f32", arrow.PrimitiveTypes.Float32, [3]string{`0.1`, `null`, `3`}, [3]string{f32bits(0.1), "null", Canon(fv(3))}, true},
	{"f64", arrow.PrimitiveTypes.Float64, [3]string{`2.5`, `null`, `-1e300`}, [3]string{Canon(fv(2.5)), "null", Canon(fv(-1e300))}, true},
	{"b", arrow.FixedWidthTypes.Boolean, [3]string{`true`, `null`, `false`}, [3]string{"b:1", "null", "b:0"}, true},
	{"n", arrow.Null, [3]string{`null`, `null`, `null`}, [3]string{"null", "null", "null"}, true},
	{"l_s", arrow.ListOf(arrow.BinaryTypes.String), [3]string{`["a","b"]`, `null`, `[]`}, [3]string{`sl:["a" "b"]`, "null", "sl:[]"}, true},
	{"ll_s", arrow.LargeListOf(arrow.BinaryTypes.LargeString), [3]string{`["x"]`, `null`, `["y",null]`}, [3]string{`sl:["x"]`, "null", "other"}, false},
	{"fl_s", arrow.FixedSizeListOf(2, arrow.BinaryTypes.String), [3]string{`["p","q"]`, `null`, `["r",null]`}, [3]string{`sl:["p" "q"]`, "null", "other"}, false},
	{"l_ls", arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), [3]string{`[["a","b"],[]]`, `null`, `[["c"],null]`}, [3]string{`sls:[["a" "b"] []]`, "null", "other"}, true},
	{"ll_ls", arrow.LargeListOf(arrow.FixedSizeListOf(1, arrow.BinaryTypes.LargeString)), [3]string{`[["a"],["b"]]`, `null`, `[]`}, [3]string{`sls:[["a"] ["b"]]`, "null", "sl:[]"}, false},
	{"l_f", arrow.ListOf(arrow.PrimitiveTypes.Float64), [3]string{`[1.5,2]`, `null`, `[]`}, [3]string{Canon(fl(1.5, 2)), "null", "sl:[]"}, true},
	{"l_i", arrow.ListOf(arrow.PrimitiveTypes.Int32), [3]string{`[1,2]`, `null`, `[3,null]`}, [3]string{Canon(fl(1, 2)), "null", "other"}, true},
	{"l_u64", arrow.ListOf(arrow.PrimitiveTypes.Uint64), [3]string{`[1,2]`, `null`, `[]`}, [3]string{Canon(fl(1, 2)), "null", "sl:[]"}, true},
	{"l_f32", arrow.ListOf(arrow.PrimitiveTypes.Float32), [3]string{`[0.1]`, `null`, `[1]`}, [3]string{Canon(fl(float64(float32(0.1)))), "null", Canon(fl(1))}, true},
	{"l_f16", arrow.ListOf(arrow.FixedWidthTypes.Float16), [3]string{`[0.5]`, `null`, `[1]`}, [3]string{Canon(fl(0.5)), "null", Canon(fl(1))}, false},
	{"l_b", arrow.ListOf(arrow.FixedWidthTypes.Boolean), [3]string{`[true,false]`, `null`, `[]`}, [3]string{Canon(fl(1, 0)), "null", "sl:[]"}, true},
	{"l_d", arrow.ListOf(DictOf(arrow.PrimitiveTypes.Int16)), [3]string{`["r","s","r"]`, `null`, `[]`}, [3]string{`sl:["r" "s" "r"]`, "null", "sl:[]"}, true},
	{"l_vs", arrow.ListOf(arrow.BinaryTypes.StringView), [3]string{`["a long string over twelve","s"]`, `null`, `[]`}, [3]string{`sl:["a long string over twelve" "s"]`, "null", "sl:[]"}, false},
	// Wrong types: Other, never a panic.
	{"date", arrow.FixedWidthTypes.Date32, [3]string{`1`, `null`, `2`}, [3]string{"other", "null", "other"}, true},
	{"bin", arrow.BinaryTypes.Binary, [3]string{`"aGk="`, `null`, `""`}, [3]string{"other", "null", "other"}, true},
	{"st", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), [3]string{`{"x":1}`, `null`, `{"x":2}`}, [3]string{`m:"x"=3ff0000000000000,`, "null", `m:"x"=4000000000000000,`}, true},
	{"ll_i", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), [3]string{`[[1]]`, `null`, `[]`}, [3]string{"other", "null", "sl:[]"}, true},
	{"l_st", arrow.ListOf(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true})), [3]string{`[{"x":1}]`, `null`, `[]`}, [3]string{"other", "null", "sl:[]"}, true},
	{"l_n", arrow.ListOf(arrow.Null), [3]string{`[null]`, `null`, `[]`}, [3]string{"other", "null", "sl:[]"}, true},
}

// AllTypesRecord builds the fixture (rows repeated `times` times) for the given cases.
func AllTypesRecord(t testing.TB, mem memory.Allocator, cases []TypeCase, times int) arrow.Record {
	fields := make([]arrow.Field, len(cases))
	for i, c := range cases {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Typ, Nullable: true}
	}
	var rows []string
	for k := 0; k < times; k++ {
		for r := 0; r < 3; r++ {
			var kv []string
			for _, c := range cases {
				kv = append(kv, fmt.Sprintf("%q:%s", c.Name, c.Rows[r]))
			}
			rows = append(rows, "{"+strings.Join(kv, ",")+"}")
		}
	}
	return RecordFromJSON(t, mem, fields, "["+strings.Join(rows, ",")+"]")
}

// GotRec is a record copied out of a batch (values in canonical form).
type GotRec struct {
	Seq  uint64
	File string
	Row  int64
	Vals []string
	Raw  string
	Err  string
}

// Drained is what Drain read.
type Drained struct {
	Recs  []GotRec
	Sizes []int // records per batch
	Files []string
	Bytes int64
}

// Drain reads a source to the end, releasing every batch after copying it out.
func Drain(t testing.TB, src pipeline.Source) Drained {
	t.Helper()
	var d Drained
	for {
		b, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.NotEmpty(t, b.Records)
		d.Sizes = append(d.Sizes, len(b.Records))
		d.Files = append(d.Files, b.Records[0].Pos.File)
		d.Bytes += b.Bytes
		for _, r := range b.Records {
			require.Equal(t, b.Records[0].Pos.File, r.Pos.File, "a batch spans files")
			g := GotRec{Seq: r.Seq, File: r.Pos.File, Row: r.Pos.Row, Vals: CanonAll(r.Values), Raw: string(r.Raw)}
			if r.Err != nil {
				g.Err = r.Err.Error()
			}
			d.Recs = append(d.Recs, g)
		}
		if b.Release != nil {
			b.Release()
			b.Release() // idempotent
		}
	}
	_, err := src.Next(context.Background())
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, src.Close())
	require.NoError(t, src.Close())
	return d
}

var corpusAlphabet = []string{"a", "b", "Z", " ", "é", "中", "😀", "\"", "\\", "\n", "\t", "\u0001", "/", "<", "&", "\u2028", "0"}

// RandText is up to max characters drawn from an alphabet of JSON's and HTML's special
// characters, multi-byte UTF-8 and controls.
func RandText(r *rand.Rand, max int) string {
	n := r.IntN(max + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(corpusAlphabet[r.IntN(len(corpusAlphabet))])
	}
	return b.String()
}

func fv(f float64) core.Value    { return core.Value{Kind: core.Float, Float: f} }
func fl(f ...float64) core.Value { return core.Value{Kind: core.FloatList, Floats: f} }

// DecodedGroup reports whether the Parquet reader decodes a top-level column of type dt that
// holds a struct or a map (parquet/parquetmap.go): a struct or map of primitives, or a list
// of two-field structs of primitives.
func DecodedGroup(dt arrow.DataType) bool {
	var fields []arrow.Field
	switch t := dt.(type) {
	case *arrow.StructType:
		fields = t.Fields()
	case *arrow.MapType:
		fields = t.Elem().(*arrow.StructType).Fields()
	case *arrow.ListType:
		st, ok := t.Elem().(*arrow.StructType)
		if !ok || st.NumFields() != 2 {
			return false
		}
		fields = st.Fields()
	default:
		return false
	}
	for _, f := range fields {
		if _, nested := f.Type.(arrow.NestedType); nested {
			return false
		}
	}
	return len(fields) > 0
}

// HasStruct reports whether dt is or holds a struct (maps are lists of structs): such
// Parquet columns are read as Other, null slots included, without being decoded.
func HasStruct(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.StructType, *arrow.MapType:
		return true
	case arrow.ListLikeType:
		return HasStruct(t.Elem())
	}
	return false
}
