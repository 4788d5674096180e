package sources

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

func TestArrowColumnTypes(t *testing.T) {
	for _, format := range []string{FormatArrow, FormatArrows, FormatParquet} {
		t.Run(format, func(t *testing.T) {
			cases := typeCases
			if format == FormatParquet {
				cases = nil
				for _, c := range typeCases {
					if c.Parquet {
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
				fields = append(fields, c.Name)
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
						want := c.Want[i%3]
						if format == FormatParquet && hasStruct(c.Typ) && !decodedGroup(c.Typ) {
							want = "other" // not decoded from Parquet (see newParquetIter)
						}
						require.Equal(t, want, r.Vals[j+1], "column %s row %d", c.Name, i)
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
	b := fileread.NewBuilder("", 0, len(typeCases))
	for i := 0; i < 4; i++ {
		b.Add(int64(i), 4)
	}
	for f := range typeCases {
		arrowsrc.FillColumn(sl.Column(f), 0, b.Records, f, &b.Ar)
	}
	for i, r := range b.Records {
		for f, c := range typeCases {
			require.Equal(t, c.Want[(i+1)%3], canon(r.Values[f]), "column %s row %d", c.Name, i)
		}
	}
	// Starting mid-array too.
	b = fileread.NewBuilder("", 0, len(typeCases))
	b.Add(0, 1)
	for f := range typeCases {
		arrowsrc.FillColumn(sl.Column(f), 2, b.Records, f, &b.Ar)
	}
	for f, c := range typeCases {
		require.Equal(t, c.Want[0], canon(b.Records[0].Values[f]), "column %s", c.Name)
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
		if c.Parquet {
			cases = append(cases, c)
		}
	}
	rec := allTypesRecord(t, mem, cases, 20)
	defer rec.Release()
	dir := t.TempDir()
	fields := []string{}
	for _, c := range cases {
		fields = append(fields, c.Name)
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

func TestFloat32Widening(t *testing.T) {
	// float32 values are widened exactly (not through their decimal text).
	v := float32(0.1)
	require.Equal(t, canon(core.Value{Kind: core.Float, Float: float64(v)}), f32bits(v))
	require.NotEqual(t, canon(fv(0.1)), f32bits(v))
}

func unsafeAddr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// TestErrorsNamePosition damages the second row group of a Parquet file: the error names the
// file and the row group. (Package arrow's test of the same name damages Arrow IPC files.)
func TestErrorsNamePosition(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}
	r1 := recordFromJSON(t, mem, fields, `[{"s":"a","i":1},{"s":"b","i":2}]`)
	r2 := recordFromJSON(t, mem, fields, `[{"s":"c","i":3},{"s":"d","i":4}]`)
	defer r1.Release()
	defer r2.Release()
	dir := t.TempDir()
	damage := map[string]func(t *testing.T, path string, data []byte) []byte{
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
	want := map[string]string{FormatParquet: "row group 1"}
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
