package parquet

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/float16"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/apache/arrow/go/v15/parquet/schema"
	"github.com/stretchr/testify/require"

	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// pqarrowRows reads fields of a Parquet file the way this package did before it decoded
// Parquet itself, with pqarrow and arrow.FillColumn: one canonical value per row and field. As
// then, a column holding a struct is Other (but for the structs and maps of primitives
// the reader now decodes, with a unique name) and the last column of a repeated name that
// holds none wins.
func pqarrowRows(t testing.TB, path string, fields []string) [][]string {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	require.NoError(t, err)
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, memory.NewGoAllocator())
	require.NoError(t, err)
	tbl, err := fr.ReadTable(context.Background())
	require.NoError(t, err)
	defer tbl.Release()
	rows := make([][]string, tbl.NumRows())
	for i := range rows {
		rows[i] = make([]string, len(fields))
	}
	for f, name := range fields {
		col, other := -1, false
		indices := tbl.Schema().FieldIndices(name)
		for _, i := range indices {
			if typ := tbl.Schema().Field(i).Type; hasStruct(typ) && !(len(indices) == 1 && decodedGroup(typ)) {
				other = true
			} else {
				col = i
			}
		}
		if col < 0 {
			for i := range rows {
				rows[i][f] = map[bool]string{false: "missing", true: "other"}[other]
			}
			continue
		}
		row := 0
		for _, chunk := range tbl.Column(col).Data().Chunks() {
			b := fileread.NewBuilder("", 0, 1)
			for i := 0; i < chunk.Len(); i++ {
				b.Add(int64(i), chunk.Len())
			}
			arrowsrc.FillColumn(chunk, 0, b.Records, 0, &b.Ar)
			for _, r := range b.Records {
				rows[row][f] = canon(r.Values[0])
				row++
			}
		}
	}
	return rows
}

// requireSameAsPqarrow reads fields of a Parquet file in batches of several sizes and
// requires the values pqarrowRows reads.
func requireSameAsPqarrow(t *testing.T, path string, fields []string) {
	t.Helper()
	want := pqarrowRows(t, path, fields)
	for _, bs := range []int{1, 1500, 5000} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		src, err := openFiles(FileConfig{Path: path}, fields, bs, 0, mem)
		require.NoError(t, err)
		d := drain(t, src)
		mem.AssertSize(t, 0)
		require.Len(t, d.recs, len(want))
		for i, r := range d.recs {
			require.Empty(t, r.Err)
			require.Equal(t, int64(i), r.Row)
			for f, name := range fields {
				require.Equal(t, want[i][f], r.Vals[f], "batch size %d, row %d, field %s", bs, i, name)
			}
		}
	}
}

// extraParquetCases are columns beyond typeCases, for the comparison with pqarrow: required
// nodes, deep lists and types read as Other.
var extraParquetCases = []struct {
	name     string
	typ      arrow.DataType
	nullable bool
	rows     [3]string
}{
	{"req_s", arrow.BinaryTypes.String, false, [3]string{`"a"`, `""`, `"ü"`}},
	{"req_i", arrow.PrimitiveTypes.Int64, false, [3]string{`9223372036854775807`, `-9223372036854775808`, `0`}},
	{"req_l", arrow.ListOfNonNullable(arrow.BinaryTypes.String), false, [3]string{`["x","y"]`, `[]`, `[""]`}},
	{"lll_s", arrow.ListOf(arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String))), true, [3]string{`[[["a"]],[[]],[]]`, `null`, `[[null],[["b",null]],null]`}},
	{"ll_f", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Float64)), true, [3]string{`[[1.5],[]]`, `null`, `[[2]]`}},
	{"fsl", arrow.FixedSizeListOf(2, arrow.BinaryTypes.String), true, [3]string{`["a","b"]`, `["",""]`, `["c",null]`}},
	{"u64max", arrow.PrimitiveTypes.Uint64, true, [3]string{`18446744073709551615`, `null`, `9223372036854775807`}},
	{"ts", arrow.FixedWidthTypes.Timestamp_ms, true, [3]string{`"2020-01-01T00:00:00Z"`, `null`, `"1970-01-01T00:00:01Z"`}},
	{"dec", &arrow.Decimal128Type{Precision: 5, Scale: 2}, true, [3]string{`"1.23"`, `null`, `"-4.50"`}},
	{"fsb", &arrow.FixedSizeBinaryType{ByteWidth: 3}, true, [3]string{`"YWJj"`, `null`, `"eHl6"`}},
	{"t64", arrow.FixedWidthTypes.Time64us, true, [3]string{`"00:00:01"`, `null`, `"12:00:00"`}},
	{"l_ts", arrow.ListOf(arrow.FixedWidthTypes.Timestamp_ms), true, [3]string{`["2020-01-01T00:00:00Z"]`, `null`, `[]`}},
	{"mp", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), true, [3]string{`[{"key":"a","value":1}]`, `null`, `[]`}},
}

// randomArrowRows is n rows of JSON for cases picked at random from their three rows, plus
// "rand_s" and "rand_l" columns of random strings (enough distinct ones to make writers
// fall back from dictionary encoding).
func randomArrowRows(n int, seed uint64) ([]arrow.Field, string) {
	r := rand.New(rand.NewPCG(seed, 3))
	var fields []arrow.Field
	var pick []func() string
	for _, c := range typeCases {
		// (pqarrow v15 fails to write list<dictionary> columns of more than a few rows.)
		if c.Parquet && c.Name != "l_d" {
			fields = append(fields, arrow.Field{Name: c.Name, Type: c.Typ, Nullable: true})
			pick = append(pick, func() string { return c.Rows[r.IntN(3)] })
		}
	}
	for _, c := range extraParquetCases {
		fields = append(fields, arrow.Field{Name: c.name, Type: c.typ, Nullable: c.nullable})
		pick = append(pick, func() string { return c.rows[r.IntN(3)] })
	}
	str := func() string {
		if r.IntN(10) == 0 {
			return "null"
		}
		b, _ := json.Marshal(randText(r, 40))
		return string(b)
	}
	fields = append(fields, arrow.Field{Name: "rand_s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "rand_l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true})
	pick = append(pick, str, func() string {
		l := make([]string, r.IntN(4))
		for i := range l {
			l[i] = str()
		}
		return "[" + strings.Join(l, ",") + "]"
	})
	var rows []string
	for i := 0; i < n; i++ {
		kv := make([]string, len(fields))
		for j, f := range fields {
			kv[j] = fmt.Sprintf("%q:%s", f.Name, pick[j]())
		}
		rows = append(rows, "{"+strings.Join(kv, ",")+"}")
	}
	return fields, "[" + strings.Join(rows, ",") + "]"
}

// parquetVariants are writer settings that change the layout of the pages a reader sees:
// page versions, compression, dictionary fallback, pages of a few values (lists spanning
// pages) and small row groups.
var parquetVariants = map[string][]parquet.WriterProperty{
	"default": nil,
	"v2-snappy-fallback": {parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDataPageSize(512), parquet.WithDictionaryPageSizeLimit(256), parquet.WithMaxRowGroupLength(700)},
	"plain-zstd":       {parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Zstd)},
	"gzip":             {parquet.WithCompression(compress.Codecs.Gzip), parquet.WithDataPageSize(4096)},
	"plain-tiny-pages": {parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(64), parquet.WithBatchSize(7)},
	"v2-tiny-pages": {parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(100), parquet.WithBatchSize(5),
		parquet.WithMaxRowGroupLength(1000)},
}

func TestParquetArrowTypesMatchPqarrow(t *testing.T) {
	// Row groups of 1200, 0 and 1800 rows. (pqarrow v15 cannot write slices of nested
	// arrays: each is a record of its own.)
	var recs []arrow.Record
	var afs []arrow.Field
	for i, n := range []int{1200, 0, 1800} {
		var js string
		afs, js = randomArrowRows(n, uint64(i))
		if n == 0 {
			js = "[]"
		}
		recs = append(recs, recordFromJSON(t, memory.NewGoAllocator(), afs, js))
		defer recs[i].Release()
	}
	fields := []string{"missing"}
	for _, f := range afs {
		fields = append(fields, f.Name)
	}
	for name, opts := range parquetVariants {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.parquet")
			f, err := os.Create(path)
			require.NoError(t, err)
			w, err := pqarrow.NewFileWriter(recs[0].Schema(), f, parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
			require.NoError(t, err)
			for _, r := range recs {
				require.NoError(t, w.Write(r))
			}
			require.NoError(t, w.Close())
			requireSameAsPqarrow(t, path, fields)
		})
	}
}

// rawColumn is a leaf column of a hand-built Parquet file: its node, and the levels and
// non-null values of a few records.
type rawColumn struct {
	def, rep []int16
	vals     any // []int32, []int64, []float64, []bool, []parquet.ByteArray, ...
}

// writeRawParquet writes root's columns, each repeated `times` times per row group.
func writeRawParquet(t testing.TB, path string, root *schema.GroupNode, cols []rawColumn, times, rowGroups int, opts ...parquet.WriterProperty) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w := file.NewParquetWriter(f, root, file.WithWriterProps(parquet.NewWriterProperties(opts...)))
	rep := func(l []int16) []int16 {
		if l == nil {
			return nil
		}
		var out []int16
		for i := 0; i < times; i++ {
			out = append(out, l...)
		}
		return out
	}
	for g := 0; g < rowGroups; g++ {
		rg := w.AppendRowGroup()
		for _, c := range cols {
			cw, err := rg.NextColumn()
			require.NoError(t, err)
			def, reps := rep(c.def), rep(c.rep)
			switch cw := cw.(type) {
			case *file.Int32ColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]int32), times), def, reps)
			case *file.Int64ColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]int64), times), def, reps)
			case *file.Float32ColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]float32), times), def, reps)
			case *file.Float64ColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]float64), times), def, reps)
			case *file.BooleanColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]bool), times), def, reps)
			case *file.ByteArrayColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]parquet.ByteArray), times), def, reps)
			case *file.FixedLenByteArrayColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]parquet.FixedLenByteArray), times), def, reps)
			case *file.Int96ColumnChunkWriter:
				_, err = cw.WriteBatch(repeated(c.vals.([]parquet.Int96), times), def, reps)
			default:
				t.Fatalf("column writer %T", cw)
			}
			require.NoError(t, err)
		}
		require.NoError(t, rg.Close())
	}
	require.NoError(t, w.Close())
}

func repeated[T any](xs []T, times int) []T {
	var out []T
	for i := 0; i < times; i++ {
		out = append(out, xs...)
	}
	return out
}

func strs(ss ...string) []parquet.ByteArray {
	out := make([]parquet.ByteArray, len(ss))
	for i, s := range ss {
		out[i] = parquet.ByteArray(s)
	}
	return out
}

func f16s(fs ...float32) []parquet.FixedLenByteArray {
	out := make([]parquet.FixedLenByteArray, len(fs))
	for i, f := range fs {
		out[i] = float16.New(f).ToLEBytes()
	}
	return out
}

var (
	opt, req, rpt = parquet.Repetitions.Optional, parquet.Repetitions.Required, parquet.Repetitions.Repeated
	utf8Type      = schema.StringLogicalType{}
)

func prim(name string, rep parquet.Repetition, typ parquet.Type, lt schema.LogicalType) schema.Node {
	length := -1
	if typ == parquet.Types.FixedLenByteArray {
		length = 2
	}
	return schema.Must(schema.NewPrimitiveNodeLogical(name, rep, lt, typ, length, -1))
}

func group(name string, rep parquet.Repetition, lt schema.LogicalType, fields ...schema.Node) schema.Node {
	return schema.Must(schema.NewGroupNodeLogical(name, rep, fields, lt, -1))
}

// legacyColumns are columns in the list forms of the Parquet format's backward-compatibility
// rules and types that need annotations pqarrow does not write, four records each.
var legacyColumns = []struct {
	node schema.Node
	cols []rawColumn
}{
	// Two-level list of a repeated primitive: [1 2], null, [], [3].
	{group("two", opt, schema.NewListLogicalType(), prim("element", rpt, parquet.Types.Int32, nil)),
		[]rawColumn{{[]int16{2, 2, 0, 1, 2}, []int16{0, 1, 0, 0, 0}, []int32{1, 2, 3}}}},
	// Two-level lists of one-field structs (named "array" or "<list>_tuple"): Other.
	{group("arr", opt, schema.NewListLogicalType(), group("array", rpt, nil, prim("str", req, parquet.Types.ByteArray, utf8Type))),
		[]rawColumn{{[]int16{2, 0, 1, 2, 2}, []int16{0, 0, 0, 0, 1}, strs("x", "y", "z")}}},
	{group("tup", opt, schema.NewListLogicalType(), group("tup_tuple", rpt, nil, prim("str", req, parquet.Types.ByteArray, utf8Type))),
		[]rawColumn{{[]int16{2, 0, 1, 2, 2}, []int16{0, 0, 0, 0, 1}, strs("x", "y", "z")}}},
	// Required list of required strings: ["p" "q"], [], ["r"], [].
	{group("reql", req, schema.NewListLogicalType(), group("list", rpt, nil, prim("element", req, parquet.Types.ByteArray, utf8Type))),
		[]rawColumn{{[]int16{1, 1, 0, 1, 0}, []int16{0, 1, 0, 0, 0}, strs("p", "q", "r")}}},
	// One-level lists: ["s"], [], ["t" "u"], [] and [7], [], [8 9], [].
	{prim("one", rpt, parquet.Types.ByteArray, utf8Type), []rawColumn{{[]int16{1, 0, 1, 1, 0}, []int16{0, 0, 0, 1, 0}, strs("s", "t", "u")}}},
	{prim("onei", rpt, parquet.Types.Int64, nil), []rawColumn{{[]int16{1, 0, 1, 1, 0}, []int16{0, 0, 0, 1, 0}, []int64{7, 8, 9}}}},
	// Three-level list of lists with other names: [["a" "b"] []], null, [null ["c" null]], [].
	{group("nest", opt, schema.NewListLogicalType(), group("bag", rpt, nil,
		group("inner", opt, schema.NewListLogicalType(), group("items", rpt, nil, prim("it", opt, parquet.Types.ByteArray, utf8Type))))),
		[]rawColumn{{[]int16{5, 5, 3, 0, 2, 5, 4, 1}, []int16{0, 2, 1, 0, 0, 1, 2, 0}, strs("a", "b", "c")}}},
	// A repeated element in a three-level list (a list of one-level lists): [[1 2] []], null, [], [[5]].
	{group("rep_elem", opt, schema.NewListLogicalType(), group("list", rpt, nil, prim("element", rpt, parquet.Types.Int32, nil))),
		[]rawColumn{{[]int16{3, 3, 2, 0, 1, 3}, []int16{0, 2, 1, 0, 0, 0}, []int32{1, 2, 5}}}},
	{prim("half", opt, parquet.Types.FixedLenByteArray, schema.Float16LogicalType{}), []rawColumn{{[]int16{1, 0, 1, 1}, nil, f16s(1.5, -0.25, 0)}}},
	{group("l_half", opt, schema.NewListLogicalType(), group("list", rpt, nil, prim("element", opt, parquet.Types.FixedLenByteArray, schema.Float16LogicalType{}))),
		[]rawColumn{{[]int16{3, 3, 0, 1, 2}, []int16{0, 1, 0, 0, 0}, f16s(0.5, 2)}}},
	// Integers beyond their annotation's range wrap as Go conversions do.
	{prim("i8", opt, parquet.Types.Int32, schema.NewIntLogicalType(8, true)), []rawColumn{{[]int16{1, 1, 0, 1}, nil, []int32{300, -1, 127}}}},
	{prim("u16", opt, parquet.Types.Int32, schema.NewIntLogicalType(16, false)), []rawColumn{{[]int16{1, 1, 0, 1}, nil, []int32{-1, 65535, 70000}}}},
	{prim("u32", opt, parquet.Types.Int32, schema.NewIntLogicalType(32, false)), []rawColumn{{[]int16{1, 1, 0, 1}, nil, []int32{-1, 5, 0}}}},
	{prim("u64", opt, parquet.Types.Int64, schema.NewIntLogicalType(64, false)), []rawColumn{{[]int16{1, 1, 0, 1}, nil, []int64{-1, 7, 0}}}},
	{prim("i32req", req, parquet.Types.Int32, nil), []rawColumn{{nil, nil, []int32{1, -2, 3, 4}}}},
	{prim("f32", opt, parquet.Types.Float, nil), []rawColumn{{[]int16{1, 0, 1, 1}, nil, []float32{0.1, float32(math.Inf(1)), -0}}}},
	{prim("breq", req, parquet.Types.Boolean, nil), []rawColumn{{nil, nil, []bool{true, false, false, true}}}},
	{prim("enum", opt, parquet.Types.ByteArray, schema.EnumLogicalType{}), []rawColumn{{[]int16{1, 0, 1, 1}, nil, strs("x", "", "y")}}},
	{prim("json", opt, parquet.Types.ByteArray, schema.JSONLogicalType{}), []rawColumn{{[]int16{1, 0, 1, 1}, nil, strs("{}", "1", "[]")}}},
	{prim("int96", opt, parquet.Types.Int96, nil), []rawColumn{{[]int16{1, 0, 1, 1}, nil, make([]parquet.Int96, 3)}}},
	{prim("date", req, parquet.Types.Int32, schema.DateLogicalType{}), []rawColumn{{nil, nil, []int32{1, 2, 3, 4}}}},
	{prim("nul", opt, parquet.Types.Int32, schema.NullLogicalType{}), []rawColumn{{[]int16{0, 0, 0, 0}, nil, []int32{}}}},
	// Structs, repeated groups and maps: Other.
	{group("st", req, nil, prim("x", req, parquet.Types.Int32, nil)), []rawColumn{{nil, nil, []int32{1, 2, 3, 4}}}},
	{group("rgrp", rpt, nil, prim("x", opt, parquet.Types.Int32, nil)), []rawColumn{{[]int16{2, 0, 1, 2}, []int16{0, 0, 0, 0}, []int32{1, 2}}}},
	{group("mp", opt, schema.MapLogicalType{}, group("key_value", rpt, nil, prim("key", req, parquet.Types.ByteArray, utf8Type), prim("value", opt, parquet.Types.Int32, nil))),
		[]rawColumn{{[]int16{2, 0, 1, 2}, []int16{0, 0, 0, 0}, strs("k", "l")}, {[]int16{3, 0, 1, 2}, []int16{0, 0, 0, 0}, []int32{1}}}},
	// Lists of two-field structs, read as maps: [{a 1} {b null}], null, [], [{c 3}] in the
	// two-level form (a repeated group named "array") and the three-level form.
	{group("lst2", opt, schema.NewListLogicalType(), group("array", rpt, nil, prim("k", req, parquet.Types.ByteArray, utf8Type), prim("v", opt, parquet.Types.Int32, nil))),
		[]rawColumn{{[]int16{2, 2, 0, 1, 2}, []int16{0, 1, 0, 0, 0}, strs("a", "b", "c")}, {[]int16{3, 2, 0, 1, 3}, []int16{0, 1, 0, 0, 0}, []int32{1, 3}}}},
	{group("lst3", opt, schema.NewListLogicalType(), group("list", rpt, nil, group("element", opt, nil, prim("k", opt, parquet.Types.ByteArray, utf8Type), prim("v", opt, parquet.Types.Int64, nil)))),
		[]rawColumn{{[]int16{4, 4, 0, 1, 4}, []int16{0, 1, 0, 0, 0}, strs("a", "b", "c")}, {[]int16{4, 3, 0, 1, 4}, []int16{0, 1, 0, 0, 0}, []int64{1, 3}}}},
	// A repeated name: the last column that holds no struct wins.
	{prim("dup", opt, parquet.Types.ByteArray, utf8Type), []rawColumn{{[]int16{1, 0, 1, 1}, nil, strs("d1", "d2", "d3")}}},
	{group("dup", opt, nil, prim("x", opt, parquet.Types.Int32, nil)), []rawColumn{{[]int16{2, 0, 1, 2}, nil, []int32{1, 2}}}},
}

func TestParquetLegacyListsMatchPqarrow(t *testing.T) {
	var nodes schema.FieldList
	var cols []rawColumn
	fields := []string{"missing"}
	for _, c := range legacyColumns {
		nodes = append(nodes, c.node)
		cols = append(cols, c.cols...)
		fields = append(fields, c.node.Name())
	}
	root := schema.MustGroup(schema.NewGroupNode("schema", req, nodes, -1))
	for name, opts := range parquetVariants {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "legacy.parquet")
			writeRawParquet(t, path, root, cols, 700, 3, opts...)
			requireSameAsPqarrow(t, path, fields)
		})
	}
	// Spot checks of what pqarrow (and so the comparison) reads.
	path := filepath.Join(t.TempDir(), "legacy.parquet")
	writeRawParquet(t, path, root, cols, 1, 1)
	src, err := OpenFiles(FileConfig{Path: path}, []string{"two", "reql", "one", "nest", "half", "i8", "u64", "arr", "nul", "dup"}, 10, 0)
	require.NoError(t, err)
	d := drain(t, src)
	require.Equal(t, []string{canon(fl(1, 2)), `sl:["p" "q"]`, `sl:["s"]`, `sls:[["a" "b"] []]`, canon(fv(1.5)), "i:44", canon(fv(math.MaxUint64)), "other", "null", `s:"d1"`}, d.recs[0].Vals)
	require.Equal(t, []string{"null", "sl:[]", "sl:[]", "null", "null", "i:-1", "i:7", "other", "null", "null"}, d.recs[1].Vals)
	require.Equal(t, []string{"sl:[]", `sl:["r"]`, `sl:["t" "u"]`, "other", canon(fv(-0.25)), "null", "null", "other", "null", `s:"d2"`}, d.recs[2].Vals)
}

func TestParquetSchemaErrors(t *testing.T) {
	bad := group("bad", opt, schema.NewListLogicalType(), prim("a", rpt, parquet.Types.Int32, nil), prim("b", rpt, parquet.Types.Int32, nil))
	root := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{prim("ok", req, parquet.Types.Int32, nil), bad}, -1))
	path := filepath.Join(t.TempDir(), "bad.parquet")
	writeRawParquet(t, path, root, []rawColumn{{nil, nil, []int32{1}}, {[]int16{2}, []int16{0}, []int32{2}}, {[]int16{2}, []int16{0}, []int32{3}}}, 1, 1)
	// An unrequested field does not matter.
	src, err := OpenFiles(FileConfig{Path: path}, []string{"ok"}, 10, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"i:1"}, drain(t, src).recs[0].Vals)
	src, err = OpenFiles(FileConfig{Path: path}, []string{"ok", "bad"}, 10, 0)
	require.NoError(t, err)
	_, err = src.Next(context.Background())
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, path+": footer")
	require.ErrorContains(t, err, `field "bad": invalid Parquet schema: LIST group "bad" must have one child`)
	require.NoError(t, src.Close())
}

// TestParquetSkippedPagesBudget reads a column chunk of page headers of a type readers skip,
// each claiming 50 MB: arrow/go's page reader allocated every one and freed them only when
// it returned. The chunk page reader skips them without reading (or allocating) anything:
// the chunk holds no data page, which is the error.
func TestParquetSkippedPagesBudget(t *testing.T) {
	root := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{prim("i", req, parquet.Types.Int32, nil)}, -1))
	path := filepath.Join(t.TempDir(), "skip.parquet")
	writeRawParquet(t, path, root, []rawColumn{{nil, nil, make([]int32, 2000)}}, 1, 1, parquet.WithDictionaryDefault(false))
	pf, err := file.OpenParquetFile(path, false)
	require.NoError(t, err)
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	require.NoError(t, err)
	start, size := cc.DataPageOffset(), cc.TotalCompressedSize()
	require.NoError(t, pf.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	// PageHeader{type: INDEX_PAGE, uncompressed_page_size: 50e6, compressed_page_size: 0}
	// in Thrift's compact protocol (zigzag varints).
	hdr := binary.AppendUvarint([]byte{0x15, 1 << 1, 0x15}, 50e6<<1)
	hdr = append(hdr, 0x15, 0, 0)
	for i := start; i+int64(len(hdr)) <= start+size; i += int64(len(hdr)) {
		copy(data[i:], hdr)
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = readAllErr(path, []string{"i"})
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, path+": row group 0")
	require.ErrorContains(t, err, `field "i": read 0 of the row group's 2000 rows`)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(20<<20), "bytes allocated")
}
