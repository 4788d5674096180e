package parquet

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/valtest"
)

// hybridRun is one run of the RLE/bit-packing hybrid encoding, for the test encoder.
type hybridRun struct {
	rle    bool
	count  int      // rle: the run's length
	value  uint32   // rle
	packed []uint32 // bit-packed values, padded with zeros to whole groups of 8
}

// encodeHybrid writes runs as the Parquet format's LogicalTypes-independent Encodings.md
// describes: a ULEB128 header (count<<1 for RLE, groups<<1|1 for bit-packed), then the RLE
// value in ceil(width/8) little-endian bytes or the values packed LSB first. It is written
// bit by bit, independently of unpack's word loads.
func encodeHybrid(width int, runs ...hybridRun) []byte {
	var out []byte
	for _, r := range runs {
		if r.rle {
			out = binary.AppendUvarint(out, uint64(r.count)<<1)
			for k := 0; k < (width+7)/8; k++ {
				out = append(out, byte(r.value>>(8*k)))
			}
			continue
		}
		groups := (len(r.packed) + 7) / 8
		out = binary.AppendUvarint(out, uint64(groups)<<1|1)
		bits := make([]byte, groups*width)
		for i, v := range r.packed {
			for b := 0; b < width; b++ {
				if v>>b&1 != 0 {
					pos := i*width + b
					bits[pos/8] |= 1 << (pos % 8)
				}
			}
		}
		out = append(out, bits...)
	}
	return out
}

func seq(n int, width int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i*2654435761) & (1<<width - 1) // spread over the width's range
	}
	return out
}

func TestDecodeHybrid(t *testing.T) {
	for _, width := range []int{1, 2, 3, 4, 7, 8, 9, 12, 16, 17, 24, 31} {
		packed := seq(37, width) // 5 groups, the last one partial
		cases := []struct {
			name string
			src  []byte
			want []uint32
		}{
			{"bit-packed", encodeHybrid(width, hybridRun{packed: packed}), packed},
			{"rle", encodeHybrid(width, hybridRun{rle: true, count: 70, value: packed[5]}), repeat(packed[5], 70)},
			{"rle then bit-packed then rle", encodeHybrid(width,
				hybridRun{rle: true, count: 3, value: packed[1]}, hybridRun{packed: packed[:16]}, hybridRun{rle: true, count: 9, value: packed[2]}),
				append(append(repeat(packed[1], 3), packed[:16]...), repeat(packed[2], 9)...)},
			{"padding past the values read", encodeHybrid(width, hybridRun{packed: packed}), packed[:29]},
		}
		for _, c := range cases {
			got := make([]int32, len(c.want))
			require.NoError(t, decodeHybrid(got, c.src, width), "width %d: %s", width, c.name)
			for i := range got {
				require.Equal(t, int32(c.want[i]), got[i], "width %d: %s: value %d", width, c.name, i)
			}
		}
	}
}

func repeat(v uint32, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestDecodeHybridErrors(t *testing.T) {
	packed := encodeHybrid(5, hybridRun{packed: seq(16, 5)})
	cases := []struct {
		name  string
		src   []byte
		width int
		n     int
	}{
		{"no bytes", nil, 3, 1},
		{"fewer values than asked", encodeHybrid(3, hybridRun{rle: true, count: 4, value: 1}), 3, 5},
		{"a run without its value", []byte{8}, 9, 1},
		{"a truncated bit-packed run", packed[:len(packed)-4], 5, 16},
		{"an empty RLE run", encodeHybrid(3, hybridRun{rle: true, count: 0, value: 1}), 3, 1},
		{"a bit-packed run of no group", []byte{1}, 3, 1},
		{"an unterminated header", []byte{0x80, 0x80}, 3, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Error(t, decodeHybrid(make([]int32, c.n), c.src, c.width))
		})
	}
}

func TestAllDefined(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		n    int
		want bool
	}{
		{"one run of 1", encodeHybrid(1, hybridRun{rle: true, count: 100, value: 1}), 100, true},
		{"two runs of 1", encodeHybrid(1, hybridRun{rle: true, count: 60, value: 1}, hybridRun{rle: true, count: 40, value: 1}), 100, true},
		{"a run of 0", encodeHybrid(1, hybridRun{rle: true, count: 60, value: 1}, hybridRun{rle: true, count: 40, value: 0}), 100, false},
		{"bit-packed", encodeHybrid(1, hybridRun{packed: repeat(1, 8)}), 8, false},
		{"too short", encodeHybrid(1, hybridRun{rle: true, count: 60, value: 1}), 100, false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, allDefined(c.src, c.n), c.name)
	}
}

// TestHybridReaderChunks decodes streams in pieces of every size from 1 to 20 values, as
// dictReader decodes a page into the arrays of consecutive batches: the values must be
// those of one whole decode.
func TestHybridReaderChunks(t *testing.T) {
	for _, width := range []int{0, 1, 3, 4, 8, 13, 31} {
		packed := seq(53, width)
		src := encodeHybrid(width, hybridRun{packed: packed[:21]}, hybridRun{rle: true, count: 11, value: packed[3]},
			hybridRun{packed: packed[21:]})
		// A run of 21 bit-packed values is 3 groups: its 3 padding values are in the stream.
		want := append(append(append([]uint32{}, packed[:21]...), make([]uint32, 3)...), repeat(packed[3], 11)...)
		want = append(want, packed[21:]...)
		for size := 1; size <= 20; size++ {
			h := hybridReader{src: src, width: width}
			var got []int32
			for len(got) < len(want) {
				chunk := make([]int32, min(size, len(want)-len(got)))
				require.NoError(t, h.next(chunk), "width %d, pieces of %d", width, size)
				got = append(got, chunk...)
			}
			for i := range want {
				require.Equal(t, int32(want[i]), got[i], "width %d, pieces of %d, value %d", width, size, i)
			}
		}
	}
}

// BenchmarkDecodeHybrid decodes 1Mi bit-packed dictionary indices of 4 bits (10-16 classes)
// in pieces of 16Ki, checked against a dictionary of 10 values, as dictReader does for the
// records of a page without nulls.
func BenchmarkDecodeHybrid(b *testing.B) {
	const n, width = 1 << 20, 4
	vals := seq(n, width)
	for i := range vals {
		vals[i] %= 10
	}
	src := encodeHybrid(width, hybridRun{packed: vals})
	dst := make([]int32, 1<<14)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		h := hybridReader{src: src, width: width, limit: 10}
		for left := n; left > 0; left -= len(dst) {
			if err := h.next(dst); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/value")
}

// fallbackFile writes a file of two row groups whose label (int64) and name (string)
// columns start dictionary-encoded and fall back to PLAIN pages once the dictionary passes
// arrow/go's limit (after 40,000 rows of classes values, in pages of about pageSize bytes),
// as writers do. With lie set, the
// encoding_stats of the footer then claim the PLAIN data pages were RLE_DICTIONARY (the
// bytes of each such entry, page_type DATA_PAGE and encoding PLAIN in thrift's compact
// protocol, are rewritten in place): a metadata error the reader must survive.
func fallbackFile(t *testing.T, path string, lie bool, classes, pageSize int) {
	t.Helper()
	const n = 50000
	labels, names := make([]int64, n), make([]parquet.ByteArray, n)
	for i := range labels {
		v := i % classes
		if i >= 40000 {
			v = i
		}
		labels[i], names[i] = int64(v), parquet.ByteArray(fmt.Sprintf("class-%d", v))
	}
	root := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{
		prim("label", req, parquet.Types.Int64, nil), prim("name", opt, parquet.Types.ByteArray, utf8Type)}, -1))
	def := make([]int16, n)
	for i := range def {
		def[i] = 1
	}
	writeRawParquet(t, path, root, []rawColumn{{vals: labels}, {def: def, vals: names}}, 1, 2,
		parquet.WithDictionaryPageSizeLimit(int64(classes)*40), parquet.WithDataPageSize(int64(pageSize)))
	if !lie {
		return
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	flen := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	footer := b[len(b)-8-flen : len(b)-8]
	plainData := []byte{0x15, 0x00, 0x15, 0x00, 0x15} // page_type 0, encoding 0, then count
	k := bytes.Count(footer, plainData)
	require.Equal(t, 4, k, "one PLAIN data page entry per column chunk")
	copy(footer, bytes.ReplaceAll(footer, plainData, []byte{0x15, 0x00, 0x15, 0x10, 0x15}))
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// readColumnar reads fields of path as the pipeline's workers do (columns when the batch
// has them, else records), checking the columns against the records they decode to.
func readColumnar(t *testing.T, path string, fields []string) [][]string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	src, err := openFiles(FileConfig{Path: path}, fields, 1024, 0, mem)
	require.NoError(t, err)
	ctx := pipeline.WithColumns(context.Background())
	var rows [][]string
	for {
		b, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		cols := b.Columns
		require.NoError(t, pipeline.DecodeBatch(b))
		for i, r := range b.Records {
			require.Nil(t, r.Err)
			if cols != nil {
				for f, d := range cols.Dicts {
					if d != nil {
						require.Equal(t, d.Values[d.Codes[i]], r.Values[f])
					}
				}
			}
			rows = append(rows, valtest.CanonAll(r.Values))
		}
		b.Release()
	}
	require.NoError(t, src.Close())
	mem.AssertSize(t, 0)
	return rows
}

// TestDictFallbackPage reads column chunks whose pages turn from dictionary-encoded to PLAIN
// part way (after rows already returned as dictionary arrays) while their metadata claims
// only dictionary-encoded data pages: the file is valid, and its values are those of the
// same file with truthful metadata (read by the generic path), in every mode.
func TestDictFallbackPage(t *testing.T) {
	dir := t.TempDir()
	honest, lying := filepath.Join(dir, "honest.parquet"), filepath.Join(dir, "lying.parquet")
	fallbackFile(t, honest, false, 100, 4000)
	fallbackFile(t, lying, true, 100, 4000)
	pf, err := file.OpenParquetFile(lying, false)
	require.NoError(t, err)
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		for c, name := range []string{"label", "name"} {
			cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(c)
			require.NoError(t, err)
			f := &pqField{name: name}
			require.NoError(t, f.resolve(pf.MetaData().Schema, pf.MetaData().Schema.Root().Field(c), file.LevelInfo{NullSlotUsage: 1}))
			col := pf.MetaData().Schema.Column(c)
			require.True(t, dictEligible(f, cc, col.MaxDefinitionLevel(), col.MaxRepetitionLevel()), "row group %d column %s", rg, name)
		}
	}
	require.NoError(t, pf.Close())
	fields := []string{"label", "name"}
	want := readCanon(t, honest, fields, 1000)
	require.Len(t, want, 100000)
	require.Equal(t, []string{"i:40000", `s:"class-40000"`}, want[40000])
	require.Equal(t, want, readCanon(t, lying, fields, 1000))
	require.Equal(t, want, readColumnar(t, lying, fields))
	require.Equal(t, want, pqarrowRows(t, lying, fields))
}

// TestHybridLimit checks dictionary indices against every dictionary size for every width
// up to 12 bits, one value past the limit at every position of the stream (bit-packed, in
// a partial last group, or an RLE run): the decode fails exactly when a value is past it,
// and otherwise gives the values.
func TestHybridLimit(t *testing.T) {
	for width := 1; width <= 12; width++ {
		for _, limit := range []uint32{1, 2, 3, 5, 1<<width - 1, 1 << width, 1<<width + 7} {
			if limit == 0 {
				continue
			}
			ok := make([]uint32, 37)
			for i := range ok {
				ok[i] = uint32(i*2654435761) % min(limit, 1<<width)
			}
			for pos := -1; pos < len(ok)+1; pos++ {
				vals := append([]uint32{}, ok...)
				rleVal := ok[0]
				want := true
				if pos >= 0 && limit < 1<<width {
					want = false
					if pos < len(ok) {
						vals[pos] = limit + uint32(pos)%(1<<width-limit)
					} else {
						rleVal = limit
					}
				}
				src := encodeHybrid(width, hybridRun{packed: vals[:32]}, hybridRun{rle: true, count: 5, value: rleVal}, hybridRun{packed: vals[32:]})
				dst := make([]int32, 32+5+5)
				h := hybridReader{src: src, width: width, limit: limit}
				err := h.next(dst)
				if want {
					require.NoError(t, err, "width %d, limit %d", width, limit)
					for i, v := range vals[:32] {
						require.Equal(t, int32(v), dst[i])
					}
					continue
				}
				require.Error(t, err, "width %d, limit %d, bad value at %d", width, limit, pos)
			}
		}
	}
}

// TestDictEligibleWriters pins which column chunks the dictionary path reads among the
// fixtures the real writers produced: the defaults of pyarrow, duckdb (PLAIN_DICTIONARY,
// and RLE_DICTIONARY in pages v2) and polars (which writes no encoding_stats) all take it;
// columns written in another encoding do not.
func TestDictEligibleWriters(t *testing.T) {
	cases := map[string]bool{
		"pa_brotli.parquet": true, "pa_zstd_v2_dict.parquet": true, "pa_none_v1_plaindict.parquet": true,
		"duck_default.parquet": true, "duck_v2.parquet": true, "pl_default.parquet": true, "pl_lz4.parquet": true,
		"pa_gzip_plain.parquet": false, "pa_delta_v1.parquet": false, "pa_bss_v1.parquet": false,
	}
	for name, want := range cases {
		pf, err := file.OpenParquetFile(filepath.Join("testdata", "parquet", name), false)
		require.NoError(t, err)
		sc := pf.MetaData().Schema
		c := sc.Root().FieldIndexByName("label")
		f := &pqField{name: "label"}
		require.NoError(t, f.resolve(sc, sc.Root().Field(c), file.LevelInfo{NullSlotUsage: 1}))
		col := sc.Column(f.col)
		for rg := 0; rg < pf.NumRowGroups(); rg++ {
			cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(f.col)
			require.NoError(t, err)
			require.Equal(t, want, dictEligible(f, cc, col.MaxDefinitionLevel(), col.MaxRepetitionLevel()), "%s row group %d", name, rg)
		}
		require.NoError(t, pf.Close())
	}
}

// TestLargeIntDictionary reads a column of 100,000 distinct integers, dictionary-encoded in
// one row group, as the pipeline's workers do: its batches share one conversion of the
// dictionary (not one per batch), and the values are the generic path's.
func TestLargeIntDictionary(t *testing.T) {
	const n = 200000
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i*7919) % 100000
	}
	path := filepath.Join(t.TempDir(), "big.parquet")
	root := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{prim("label", req, parquet.Types.Int64, nil)}, -1))
	writeRawParquet(t, path, root, []rawColumn{{vals: vals}}, 1, 1, parquet.WithDictionaryPageSizeLimit(4<<20))
	src, err := openFiles(FileConfig{Path: path}, []string{"label"}, 1024, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	ctx := pipeline.WithColumns(context.Background())
	var shared *core.Value
	batches, row := 0, 0
	for {
		b, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		require.NotNil(t, b.Columns)
		d := b.Columns.Dicts[0]
		require.NotNil(t, d, "batch %d is dictionary-encoded", batches)
		require.Len(t, d.Values, 100000)
		if shared == nil {
			shared = &d.Values[0]
		}
		require.Same(t, shared, &d.Values[0], "batch %d converted the dictionary again", batches)
		for _, c := range d.Codes {
			require.Equal(t, core.Value{Kind: core.Int, Int: vals[row]}, d.Values[c])
			row++
		}
		b.Release()
		batches++
	}
	require.NoError(t, src.Close())
	require.Equal(t, n, row)
	require.Greater(t, batches, 1)
}

// TestDictPagesAfterRelease reads dictionary-encoded column chunks by the generic path
// (their PLAIN fallback pages are listed in encoding_stats) with pages of 8 KB, as large as
// the dictionary page and in the recycling pool's size classes: arrow/go's column reader
// decodes the dictionary lazily from its page, after the page reader has moved on, so the
// generic path's pages must not come from memory the next page reuses. The values are
// those written.
func TestDictPagesAfterRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.parquet")
	fallbackFile(t, path, false, 1000, 8000)
	got := readCanon(t, path, []string{"label"}, 1000)
	src, err := openFiles(FileConfig{Path: path}, []string{"label"}, 1000, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	d := drain(t, src)
	require.Len(t, d.recs, 100000)
	for i, r := range d.recs {
		v := i % 50000
		if v < 40000 {
			v %= 1000
		}
		require.Equal(t, []string{fmt.Sprintf("i:%d", v)}, r.Vals, "row %d", i)
		require.Equal(t, got[i], r.Vals)
	}
}
