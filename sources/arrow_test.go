package sources

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

// writeArrowFile writes records to path as an Arrow IPC file, an Arrow IPC stream or
// Parquet (one record batch / row group per record).
func writeArrowFile(t testing.TB, path, format string, recs ...arrow.Record) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	schema := recs[0].Schema()
	switch format {
	case FormatArrow:
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
		require.NoError(t, err)
		for _, r := range recs {
			require.NoError(t, w.Write(r))
		}
		require.NoError(t, w.Close())
	case FormatArrows:
		w := ipc.NewWriter(f, ipc.WithSchema(schema))
		for _, r := range recs {
			require.NoError(t, w.Write(r))
		}
		require.NoError(t, w.Close())
	case FormatParquet:
		w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		require.NoError(t, err)
		for _, r := range recs {
			require.NoError(t, w.Write(r))
		}
		require.NoError(t, w.Close())
	}
}

func recordFromJSON(t testing.TB, mem memory.Allocator, fields []arrow.Field, js string) arrow.Record {
	t.Helper()
	rec, _, err := array.RecordFromJSON(mem, arrow.NewSchema(fields, nil), strings.NewReader(js))
	require.NoError(t, err)
	return rec
}

func dictOf(idx arrow.DataType) arrow.DataType {
	return &arrow.DictionaryType{IndexType: idx, ValueType: arrow.BinaryTypes.String}
}

func f32bits(f float32) string { return canon(fv(float64(f))) }

// typeCase is one column of the all-types fixture with the expected value of each row.
type typeCase struct {
	name    string
	typ     arrow.DataType
	rows    [3]string // JSON of each row's value
	want    [3]string // canonical value of each row
	parquet bool      // also round-trips through Parquet
}

var typeCases = []typeCase{
	{"s", arrow.BinaryTypes.String, [3]string{`"hello"`, `null`, `""`}, [3]string{`s:"hello"`, "null", `s:""`}, true},
	{"ls", arrow.BinaryTypes.LargeString, [3]string{`"large"`, `null`, `"ünï"`}, [3]string{`s:"large"`, "null", `s:"ünï"`}, true},
	{"vs", arrow.BinaryTypes.StringView, [3]string{`"a long string over twelve"`, `null`, `"short"`}, [3]string{`s:"a long string over twelve"`, "null", `s:"short"`}, false},
	{"ds", dictOf(arrow.PrimitiveTypes.Int8), [3]string{`"red"`, `null`, `"blue"`}, [3]string{`s:"red"`, "null", `s:"blue"`}, true},
	{"i8", arrow.PrimitiveTypes.Int8, [3]string{`-128`, `null`, `127`}, [3]string{"i:-128", "null", "i:127"}, true},
	{"i16", arrow.PrimitiveTypes.Int16, [3]string{`-32768`, `null`, `5`}, [3]string{"i:-32768", "null", "i:5"}, true},
	{"i32", arrow.PrimitiveTypes.Int32, [3]string{`7`, `null`, `-7`}, [3]string{"i:7", "null", "i:-7"}, true},
	{"i64", arrow.PrimitiveTypes.Int64, [3]string{`4611686018427387904`, `null`, `-1`}, [3]string{"i:4611686018427387904", "null", "i:-1"}, true},
	{"u8", arrow.PrimitiveTypes.Uint8, [3]string{`255`, `null`, `0`}, [3]string{"i:255", "null", "i:0"}, true},
	{"u16", arrow.PrimitiveTypes.Uint16, [3]string{`65535`, `null`, `1`}, [3]string{"i:65535", "null", "i:1"}, true},
	{"u32", arrow.PrimitiveTypes.Uint32, [3]string{`4294967295`, `null`, `2`}, [3]string{"i:4294967295", "null", "i:2"}, true},
	{"u64", arrow.PrimitiveTypes.Uint64, [3]string{`9223372036854775808`, `null`, `3`}, [3]string{canon(fv(9223372036854775808)), "null", "i:3"}, true},
	{"f16", arrow.FixedWidthTypes.Float16, [3]string{`1.5`, `null`, `-0.25`}, [3]string{canon(fv(1.5)), "null", canon(fv(-0.25))}, false},
	{"f32", arrow.PrimitiveTypes.Float32, [3]string{`0.1`, `null`, `3`}, [3]string{f32bits(0.1), "null", canon(fv(3))}, true},
	{"f64", arrow.PrimitiveTypes.Float64, [3]string{`2.5`, `null`, `-1e300`}, [3]string{canon(fv(2.5)), "null", canon(fv(-1e300))}, true},
	{"b", arrow.FixedWidthTypes.Boolean, [3]string{`true`, `null`, `false`}, [3]string{"b:1", "null", "b:0"}, true},
	{"n", arrow.Null, [3]string{`null`, `null`, `null`}, [3]string{"null", "null", "null"}, true},
	{"l_s", arrow.ListOf(arrow.BinaryTypes.String), [3]string{`["a","b"]`, `null`, `[]`}, [3]string{`sl:["a" "b"]`, "null", "sl:[]"}, true},
	{"ll_s", arrow.LargeListOf(arrow.BinaryTypes.LargeString), [3]string{`["x"]`, `null`, `["y",null]`}, [3]string{`sl:["x"]`, "null", "other"}, false},
	{"fl_s", arrow.FixedSizeListOf(2, arrow.BinaryTypes.String), [3]string{`["p","q"]`, `null`, `["r",null]`}, [3]string{`sl:["p" "q"]`, "null", "other"}, false},
	{"l_ls", arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)), [3]string{`[["a","b"],[]]`, `null`, `[["c"],null]`}, [3]string{`sls:[["a" "b"] []]`, "null", "other"}, true},
	{"ll_ls", arrow.LargeListOf(arrow.FixedSizeListOf(1, arrow.BinaryTypes.LargeString)), [3]string{`[["a"],["b"]]`, `null`, `[]`}, [3]string{`sls:[["a"] ["b"]]`, "null", "sl:[]"}, false},
	{"l_f", arrow.ListOf(arrow.PrimitiveTypes.Float64), [3]string{`[1.5,2]`, `null`, `[]`}, [3]string{canon(fl(1.5, 2)), "null", "sl:[]"}, true},
	{"l_i", arrow.ListOf(arrow.PrimitiveTypes.Int32), [3]string{`[1,2]`, `null`, `[3,null]`}, [3]string{canon(fl(1, 2)), "null", "other"}, true},
	{"l_u64", arrow.ListOf(arrow.PrimitiveTypes.Uint64), [3]string{`[1,2]`, `null`, `[]`}, [3]string{canon(fl(1, 2)), "null", "sl:[]"}, true},
	{"l_f32", arrow.ListOf(arrow.PrimitiveTypes.Float32), [3]string{`[0.1]`, `null`, `[1]`}, [3]string{canon(fl(float64(float32(0.1)))), "null", canon(fl(1))}, true},
	{"l_f16", arrow.ListOf(arrow.FixedWidthTypes.Float16), [3]string{`[0.5]`, `null`, `[1]`}, [3]string{canon(fl(0.5)), "null", canon(fl(1))}, false},
	{"l_b", arrow.ListOf(arrow.FixedWidthTypes.Boolean), [3]string{`[true,false]`, `null`, `[]`}, [3]string{canon(fl(1, 0)), "null", "sl:[]"}, true},
	{"l_d", arrow.ListOf(dictOf(arrow.PrimitiveTypes.Int16)), [3]string{`["r","s","r"]`, `null`, `[]`}, [3]string{`sl:["r" "s" "r"]`, "null", "sl:[]"}, true},
	{"l_vs", arrow.ListOf(arrow.BinaryTypes.StringView), [3]string{`["a long string over twelve","s"]`, `null`, `[]`}, [3]string{`sl:["a long string over twelve" "s"]`, "null", "sl:[]"}, false},
	// Wrong types: Other, never a panic.
	{"date", arrow.FixedWidthTypes.Date32, [3]string{`1`, `null`, `2`}, [3]string{"other", "null", "other"}, true},
	{"bin", arrow.BinaryTypes.Binary, [3]string{`"aGk="`, `null`, `""`}, [3]string{"other", "null", "other"}, true},
	{"st", arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), [3]string{`{"x":1}`, `null`, `{"x":2}`}, [3]string{`m:"x"=3ff0000000000000,`, "null", `m:"x"=4000000000000000,`}, true},
	{"ll_i", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), [3]string{`[[1]]`, `null`, `[]`}, [3]string{"other", "null", "sl:[]"}, true},
	{"l_st", arrow.ListOf(arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true})), [3]string{`[{"x":1}]`, `null`, `[]`}, [3]string{"other", "null", "sl:[]"}, true},
	{"l_n", arrow.ListOf(arrow.Null), [3]string{`[null]`, `null`, `[]`}, [3]string{"other", "null", "sl:[]"}, true},
}

// allTypesRecord builds the fixture (rows repeated `times` times) for the given cases.
func allTypesRecord(t testing.TB, mem memory.Allocator, cases []typeCase, times int) arrow.Record {
	fields := make([]arrow.Field, len(cases))
	for i, c := range cases {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	var rows []string
	for k := 0; k < times; k++ {
		for r := 0; r < 3; r++ {
			var kv []string
			for _, c := range cases {
				kv = append(kv, fmt.Sprintf("%q:%s", c.name, c.rows[r]))
			}
			rows = append(rows, "{"+strings.Join(kv, ",")+"}")
		}
	}
	return recordFromJSON(t, mem, fields, "["+strings.Join(rows, ",")+"]")
}

func TestArrowColumnTypes(t *testing.T) {
	for _, format := range []string{FormatArrow, FormatArrows, FormatParquet} {
		t.Run(format, func(t *testing.T) {
			cases := typeCases
			if format == FormatParquet {
				cases = nil
				for _, c := range typeCases {
					if c.parquet {
						cases = append(cases, c)
					}
				}
			}
			// The fixture is built with its own allocator: arrow's IPC file writer leaks the
			// unified dictionaries it builds from the record's allocator. The checked
			// allocator covers what the source allocates and retains.
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := allTypesRecord(t, memory.NewGoAllocator(), cases, 1)
			path := filepath.Join(t.TempDir(), "types."+format)
			writeArrowFile(t, path, format, rec, rec) // two record batches / row groups
			rec.Release()

			fields := []string{"missing"}
			for _, c := range cases {
				fields = append(fields, c.name)
			}
			for _, bs := range []int{1, 2, 4096} {
				src, err := openFiles(FileConfig{Path: path}, fields, bs, 0, mem)
				require.NoError(t, err)
				d := drain(t, src)
				require.Len(t, d.recs, 6)
				for i, r := range d.recs {
					require.Equal(t, uint64(i), r.Seq)
					require.Equal(t, int64(i), r.Row)
					require.Equal(t, path, r.File)
					require.Empty(t, r.Raw)
					require.Equal(t, "missing", r.Vals[0])
					for j, c := range cases {
						want := c.want[i%3]
						if format == FormatParquet && hasStruct(c.typ) && !decodedGroup(c.typ) {
							want = "other" // not decoded from Parquet (see newParquetIter)
						}
						require.Equal(t, want, r.Vals[j+1], "column %s row %d", c.name, i)
					}
				}
			}
		})
	}
}

func TestArrowSlicedArrays(t *testing.T) {
	// Arrays with a non-zero offset (slices) read the right rows: the IPC writer keeps
	// offsets for some types; build the record directly and feed it through the converter.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := allTypesRecord(t, mem, typeCases, 2)
	defer rec.Release()
	sl := rec.NewSlice(1, 5) // rows 1,2,0,1 of the pattern
	defer sl.Release()
	b := &batchBuilder{nf: len(typeCases)}
	for i := 0; i < 4; i++ {
		b.add(int64(i), 4)
	}
	for f := range typeCases {
		fillColumn(sl.Column(f), 0, b.records, f, &b.ar)
	}
	for i, r := range b.records {
		for f, c := range typeCases {
			require.Equal(t, c.want[(i+1)%3], canon(r.Values[f]), "column %s row %d", c.name, i)
		}
	}
	// Starting mid-array too.
	b = &batchBuilder{nf: len(typeCases)}
	b.add(0, 1)
	for f := range typeCases {
		fillColumn(sl.Column(f), 2, b.records, f, &b.ar)
	}
	for f, c := range typeCases {
		require.Equal(t, c.want[0], canon(b.records[0].Values[f]), "column %s", c.name)
	}
}

func TestArrowStringsAreZeroCopy(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := recordFromJSON(t, mem, []arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String)}},
		`[{"s":"abc","l":["x","yz"]},{"s":"de","l":["w"]}]`)
	path := filepath.Join(t.TempDir(), "z.arrow")
	writeArrowFile(t, path, FormatArrow, rec)
	rec.Release()
	src, err := openFiles(FileConfig{Path: path}, []string{"s", "l"}, 10, 0, mem)
	require.NoError(t, err)
	b, err := src.Next(context.Background())
	require.NoError(t, err)
	require.Len(t, b.Records, 2)
	// The strings point into the Arrow value buffers.
	col := b.Records[0].Values[0].Str
	next := b.Records[1].Values[0].Str
	require.Equal(t, "abc", col)
	require.Equal(t, "de", next)
	require.Equal(t, unsafeAddr(col)+3, unsafeAddr(next))
	l0, l1 := b.Records[0].Values[1].Strs, b.Records[1].Values[1].Strs
	require.Equal(t, []string{"x", "yz"}, l0)
	require.Equal(t, unsafeAddr(l0[1])+2, unsafeAddr(l1[0]))
	require.Equal(t, 2, cap(l0)) // carved, capacity-limited
	b.Release()
	_, err = src.Next(context.Background())
	require.ErrorIs(t, err, io.EOF)
	require.NoError(t, src.Close())
}

func TestArrowRecordTooLarge(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := recordFromJSON(t, mem, []arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}},
		`[{"s":"short"},{"s":"`+strings.Repeat("x", 100)+`"},{"s":"ok"}]`)
	path := filepath.Join(t.TempDir(), "big.parquet")
	writeArrowFile(t, path, FormatParquet, rec)
	rec.Release()
	src, err := openFiles(FileConfig{Path: path}, []string{"s"}, 10, 50, mem)
	require.NoError(t, err)
	d := drain(t, src)
	require.Len(t, d.recs, 3)
	require.Empty(t, d.recs[0].Err)
	require.Contains(t, d.recs[1].Err, "record too large")
	require.Equal(t, []string{"missing"}, d.recs[1].Vals)
	require.Equal(t, []string{`s:"ok"`}, d.recs[2].Vals)
}

func TestArrowBatchesSpanRecordBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var recs []arrow.Record
	n := 0
	for _, size := range []int{5, 1, 0, 20} {
		var rows []string
		for i := 0; i < size; i++ {
			rows = append(rows, fmt.Sprintf(`{"i":%d}`, n))
			n++
		}
		recs = append(recs, recordFromJSON(t, mem, []arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}}, "["+strings.Join(rows, ",")+"]"))
	}
	dir := t.TempDir()
	for _, format := range []string{FormatArrow, FormatArrows, FormatParquet} {
		path := filepath.Join(dir, "b."+format)
		writeArrowFile(t, path, format, recs...)
		for _, bs := range []int{1, 4, 13, 4096} {
			src, err := openFiles(FileConfig{Path: path}, []string{"i"}, bs, 0, mem)
			require.NoError(t, err)
			d := drain(t, src)
			require.Len(t, d.recs, n, "%s batch %d", format, bs)
			for i, r := range d.recs {
				require.Equal(t, []string{fmt.Sprintf("i:%d", i)}, r.Vals)
				require.Equal(t, int64(i), r.Row)
			}
			for i, s := range d.sizes {
				if i < len(d.sizes)-1 {
					require.Equal(t, bs, s)
				}
			}
			require.Equal(t, src.TotalBytes(), d.bytes)
		}
	}
	for _, r := range recs {
		r.Release()
	}
}

func TestParquetNoRequestedColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := recordFromJSON(t, mem, []arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, `[{"s":"a"},{"s":"b"},{"s":"c"}]`)
	path := filepath.Join(t.TempDir(), "n.parquet")
	writeArrowFile(t, path, FormatParquet, rec, rec)
	rec.Release()
	src, err := openFiles(FileConfig{Path: path}, []string{"other"}, 4, 0, mem)
	require.NoError(t, err)
	d := drain(t, src)
	require.Equal(t, []int{4, 2}, d.sizes)
	for i, r := range d.recs {
		require.Equal(t, []string{"missing"}, r.Vals)
		require.Equal(t, int64(i), r.Row)
	}
}

// TestCorruptFiles truncates and corrupts valid files: reading must end with an error
// naming the file (or, for damage the format cannot detect, succeed), never panic.
func TestCorruptFiles(t *testing.T) {
	mem := memory.NewGoAllocator()
	var cases []typeCase
	for _, c := range typeCases {
		if c.parquet {
			cases = append(cases, c)
		}
	}
	rec := allTypesRecord(t, mem, cases, 20)
	defer rec.Release()
	dir := t.TempDir()
	fields := []string{}
	for _, c := range cases {
		fields = append(fields, c.name)
	}
	for _, format := range []string{FormatArrow, FormatArrows, FormatParquet} {
		t.Run(format, func(t *testing.T) {
			good := filepath.Join(dir, "good."+format)
			writeArrowFile(t, good, format, rec, rec)
			data, err := os.ReadFile(good)
			require.NoError(t, err)
			bad := filepath.Join(dir, "bad."+format)
			errs := 0
			try := func(content []byte, mustFail bool) {
				require.NoError(t, os.WriteFile(bad, content, 0o644))
				err := readAllErr(bad, fields)
				if err != nil {
					errs++
					require.Contains(t, err.Error(), bad)
					require.ErrorIs(t, err, ErrCorrupt, "%v", err)
				} else if mustFail {
					t.Fatalf("no error for %d of %d bytes", len(content), len(data))
				}
			}
			for n := 0; n < len(data); n += 1 + len(data)/97 {
				// A stream cut exactly at a message boundary is a valid shorter stream.
				try(data[:n], format != FormatArrows)
			}
			for i := 0; i < len(data); i += 1 + len(data)/211 {
				c := append([]byte(nil), data...)
				c[i] ^= 0xA5
				try(c, false)
				c[i] = 0xFF
				if i+4 < len(c) {
					c[i+1], c[i+2], c[i+3] = 0xFF, 0xFF, 0x7F
				}
				try(c, false)
			}
			require.Positive(t, errs)
		})
	}
}

// readAllErr reads a file to the end and returns the first error.
func readAllErr(path string, fields []string) error {
	src, err := OpenFiles(FileConfig{Path: path}, fields, 7, 1<<20)
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		b, err := src.Next(context.Background())
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if b.Release != nil {
			b.Release()
		}
	}
}

func TestLimitAllocator(t *testing.T) {
	a := limitAllocator{Allocator: memory.NewGoAllocator(), limit: 10}
	b := a.Allocate(10)
	b = a.Reallocate(5, b)
	a.Free(b)
	var err error
	func() {
		defer recovered(&err)
		a.Allocate(11)
	}()
	require.ErrorIs(t, err, errAllocTooLarge)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Equal(t, 1<<46, allocLimit(math.MaxInt64/2))
}

func TestFloat32Widening(t *testing.T) {
	// float32 values are widened exactly (not through their decimal text).
	v := float32(0.1)
	require.Equal(t, canon(core.Value{Kind: core.Float, Float: float64(v)}), f32bits(v))
	require.NotEqual(t, canon(fv(0.1)), f32bits(v))
}

func unsafeAddr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// TestErrorsNamePosition damages the second record batch / row group of a file: the error
// names the file and the batch or row group.
func TestErrorsNamePosition(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}
	r1 := recordFromJSON(t, mem, fields, `[{"s":"a","i":1},{"s":"b","i":2}]`)
	r2 := recordFromJSON(t, mem, fields, `[{"s":"c","i":3},{"s":"d","i":4}]`)
	defer r1.Release()
	defer r2.Release()
	dir := t.TempDir()
	damage := map[string]func(t *testing.T, path string, data []byte) []byte{
		FormatArrows: func(t *testing.T, _ string, data []byte) []byte {
			return data[:len(data)-20] // into the last message's body
		},
		FormatArrow: func(t *testing.T, path string, data []byte) []byte {
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			ft, err := readFooter(f, int64(len(data)))
			require.NoError(t, err)
			blocks := ft.records
			require.Len(t, blocks, 2)
			for i := blocks[1].offset + 8; i < blocks[1].offset+blocks[1].meta; i++ {
				data[i] = 0xFF
			}
			return data
		},
		FormatParquet: func(t *testing.T, path string, data []byte) []byte {
			pf, err := file.OpenParquetFile(path, false)
			require.NoError(t, err)
			defer pf.Close()
			cc, err := pf.MetaData().RowGroup(1).ColumnChunk(0)
			require.NoError(t, err)
			off := cc.DataPageOffset()
			for i := off; i < off+12; i++ {
				data[i] = 0xFF
			}
			return data
		},
	}
	want := map[string]string{FormatArrows: "record batch 1", FormatArrow: "record batch 1", FormatParquet: "row group 1"}
	for format, fn := range damage {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(dir, "d."+format)
			writeArrowFile(t, path, format, r1, r2)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, fn(t, path, data), 0o644))
			src, err := OpenFiles(FileConfig{Path: path}, []string{"s", "i"}, 2, 0)
			require.NoError(t, err)
			var got []string
			for {
				b, err := src.Next(context.Background())
				if err != nil {
					require.NotErrorIs(t, err, io.EOF)
					require.ErrorIs(t, err, ErrCorrupt)
					require.Contains(t, err.Error(), path+": "+want[format])
					break
				}
				for _, r := range b.Records {
					got = append(got, canon(r.Values[0]))
				}
				b.Release()
			}
			require.Equal(t, []string{`s:"a"`, `s:"b"`}, got, "the first batch is delivered before the error")
			require.NoError(t, src.Close())
		})
	}
}
