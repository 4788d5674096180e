package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

func TestDecompressExactSizes(t *testing.T) {
	data := bytes.Repeat([]byte("evalstream parquet page "), 500)
	block := make([]byte, lz4.CompressBlockBound(len(data)))
	n, err := lz4.CompressBlock(data, block, nil)
	require.NoError(t, err)
	block = block[:n]
	hadoop := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	hadoop = binary.BigEndian.AppendUint32(hadoop, uint32(len(block)))
	hadoop = append(hadoop, block...)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	zs := enc.EncodeAll(data, nil)
	br, err := compress.GetCodec(compress.Codecs.Brotli)
	require.NoError(t, err)
	cases := []struct {
		codec int
		src   []byte
	}{
		{codecUncompressed, data}, {codecSnappy, snappy.Encode(nil, data)}, {codecGzip, gz.Bytes()},
		{codecBrotli, br.Encode(nil, data)}, {codecZstd, zs}, {codecLZ4Raw, block}, {codecLZ4, hadoop}, {codecLZ4, block},
	}
	var d decompressors
	defer d.close()
	for i, c := range cases {
		name := fmt.Sprintf("%d-%s", i, codecName(c.codec))
		dst := make([]byte, len(data))
		require.NoError(t, d.decompress(c.codec, dst, c.src), name)
		require.Equal(t, data, dst, name)
		// One byte more or less than the data holds is an error, never zeros or a cut.
		for _, size := range []int{len(data) - 1, len(data) + 1} {
			err := d.decompress(c.codec, make([]byte, size), c.src)
			require.ErrorIs(t, err, errDecompress, "%s: size %d", name, size)
		}
		if c.codec != codecUncompressed {
			require.Error(t, d.decompress(c.codec, dst, c.src[:len(c.src)/2]), name)
		}
	}
	require.ErrorIs(t, d.decompress(codecLZO, nil, nil), errCodec)
	require.ErrorContains(t, d.decompress(codecLZO, nil, nil), "unsupported Parquet compression LZO")
}

// writeThriftI32 appends a compact-protocol i32 field with the given id delta.
func writeThriftI32(b []byte, delta byte, v int64) []byte {
	b = append(b, delta<<4|tI32)
	return binary.AppendUvarint(b, uint64(v<<1^v>>63))
}

// dataPageHeader is a PageHeader of a data page v1 of n PLAIN values, RLE levels.
func dataPageHeader(uncompressed, compressed, n int64) []byte {
	b := writeThriftI32(nil, 1, pageData)
	b = writeThriftI32(b, 1, uncompressed)
	b = writeThriftI32(b, 1, compressed)
	b = append(b, 2<<4|tStruct) // field 5
	b = writeThriftI32(b, 1, n)
	b = writeThriftI32(b, 1, 0) // PLAIN
	b = writeThriftI32(b, 1, 3) // RLE
	b = writeThriftI32(b, 1, 3)
	return append(b, 0, 0)
}

func TestParsePageHeader(t *testing.T) {
	h, n, err := parsePageHeader(append(dataPageHeader(100, 60, 7), 0xAA))
	require.NoError(t, err)
	require.Equal(t, len(dataPageHeader(100, 60, 7)), n)
	require.Equal(t, pageHeader{typ: pageData, uncompressed: 100, compressed: 60, numValues: 7, encoding: 0, defEncoding: 3, repEncoding: 3, v2Compressed: true}, h)
	full := dataPageHeader(100, 60, 7)
	for i := 0; i < len(full); i++ {
		_, _, err := parsePageHeader(full[:i])
		require.ErrorIs(t, err, errShortHeader, "cut at %d", i)
	}
	// Statistics with a large binary, skipped: a struct (field 5 of the data page header).
	stats := append([]byte{2<<4 | tStruct}, 1<<4|tBinary)
	stats = binary.AppendUvarint(stats, 3000)
	stats = append(stats, make([]byte, 3000)...)
	stats = append(stats, 0)
	withStats := append(append(append([]byte{}, full[:len(full)-2]...), stats...), 0, 0)
	h2, n, err := parsePageHeader(withStats)
	require.NoError(t, err)
	require.Equal(t, h, h2)
	require.Equal(t, len(withStats), n)

	bad := []struct {
		name string
		b    []byte
		want string
	}{
		{"4 GB as an i32", writeThriftI32(nil, 2, 1<<32), "out of the range of an i32"},
		{"no sizes", append(writeThriftI32(nil, 1, pageData), 0), "no type or sizes"},
		{"data page without its header", append(writeThriftI32(writeThriftI32(writeThriftI32(nil, 1, pageData), 1, 1), 1, 1), 0), "without its header"},
		{"a size of another type", append([]byte{1<<4 | tBinary, 0}, 0), "want i32"},
		{"deep nesting", append([]byte{4<<4 | tStruct}, bytes.Repeat([]byte{1<<4 | tStruct}, 100)...), "nested more than 32 deep"},
		{"unknown type", []byte{4<<4 | 13}, "unknown Thrift type 13"},
		{"overlong varint", append([]byte{1<<4 | tI32}, bytes.Repeat([]byte{0xff}, 11)...), "varint of more than 64 bits"},
	}
	for _, c := range bad {
		_, _, err := parsePageHeader(c.b)
		require.ErrorIs(t, err, errPageHeader, c.name)
		require.ErrorContains(t, err, c.want, c.name)
	}
}

// patchedFile writes a one-column Parquet file (int32, 2000 values, PLAIN, codec) and
// returns its bytes and the offset of its first page.
func patchedFile(t *testing.T, codec compress.Compression) (string, []byte, int64) {
	root := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{prim("i", req, parquet.Types.Int32, nil)}, -1))
	path := filepath.Join(t.TempDir(), "p.parquet")
	vals := make([]int32, 2000)
	for i := range vals {
		vals[i] = int32(i)
	}
	writeRawParquet(t, path, root, []rawColumn{{nil, nil, vals}}, 1, 1, parquet.WithDictionaryDefault(false), parquet.WithCompression(codec))
	pf, err := file.OpenParquetFile(path, false)
	require.NoError(t, err)
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	require.NoError(t, err)
	start := cc.DataPageOffset()
	require.NoError(t, pf.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return path, data, start
}

// TestParquetPageHeaderClaims overwrites a page header with claims of sizes the file cannot
// hold: each is a clear error naming the file, with little memory allocated.
func TestParquetPageHeaderClaims(t *testing.T) {
	cases := []struct {
		name                     string
		codec                    compress.Compression
		uncompressed, compressed int64
		want                     string
	}{
		{"2 GB uncompressed page", compress.Codecs.Uncompressed, math.MaxInt32, 100, "2147483647 bytes uncompressed, more than 100 bytes of UNCOMPRESSED can hold"},
		{"2 GB compressed page", compress.Codecs.Snappy, 100, math.MaxInt32, "2147483647 compressed bytes where the column chunk has"},
		{"2 GB snappy page", compress.Codecs.Snappy, math.MaxInt32, 100, "more than 100 bytes of SNAPPY can hold"},
		{"2 GB gzip page", compress.Codecs.Gzip, math.MaxInt32, 100, "more than 100 bytes of GZIP can hold"},
		{"4 GB page", compress.Codecs.Uncompressed, 1 << 32, 100, "4294967296 out of the range of an i32"},
		{"negative size", compress.Codecs.Uncompressed, -5, 100, "sizes 100 compressed, -5 uncompressed"},
		{"short uncompressed page", compress.Codecs.Uncompressed, 8000, 100, "8000 bytes uncompressed, more than 100 bytes of UNCOMPRESSED can hold"},
		// zstd sets no bound: the allocator's limit for the file does.
		{"1 GB zstd page", compress.Codecs.Zstd, 1 << 30, 100, "allocation larger than the file can justify: 1073741824 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, data, start := patchedFile(t, c.codec)
			copy(data[start:], dataPageHeader(c.uncompressed, c.compressed, 2000))
			require.NoError(t, os.WriteFile(path, data, 0o644))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := readAllErr(path, []string{"i"})
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, fileread.ErrCorrupt)
			require.ErrorContains(t, err, path+": row group 0")
			require.ErrorContains(t, err, fmt.Sprintf(`field "i": page at offset %d: `, start))
			require.ErrorContains(t, err, c.want)
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
		})
	}
}

// TestParquetHugeRowCount sets the file's and the row group's row count to 2^40 in the
// footer: the read ends where the data does, with an error naming the file.
func TestParquetHugeRowCount(t *testing.T) {
	root := schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{prim("i", opt, parquet.Types.Int64, nil)}, -1))
	path := filepath.Join(t.TempDir(), "rows.parquet")
	writeRawParquet(t, path, root, []rawColumn{{[]int16{1, 0, 1}, nil, []int64{7, 8}}}, 4115, 1) // 12345 rows
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	footerLen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footer := data[len(data)-8-footerLen : len(data)-8]
	// FileMetaData.num_rows and RowGroup.num_rows (field 3, i64, after field 2) and
	// ColumnMetaData.num_values (field 5 after 4) = 12345, zigzag varints.
	old := binary.AppendUvarint([]byte{1<<4 | tI64}, 12345<<1)
	huge := binary.AppendUvarint([]byte{1<<4 | tI64}, (1<<40)<<1)
	require.Equal(t, 3, bytes.Count(footer, old))
	footer = bytes.ReplaceAll(footer, old, huge)
	patched := append(append(append([]byte{}, data[:len(data)-8-footerLen]...), footer...),
		binary.LittleEndian.AppendUint32(nil, uint32(len(footer)))...)
	patched = append(patched, "PAR1"...)
	require.NoError(t, os.WriteFile(path, patched, 0o644))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = readAllErr(path, []string{"i"})
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, fileread.ErrCorrupt)
	require.ErrorContains(t, err, path+": row group 0")
	require.ErrorContains(t, err, `field "i": read 12345 of the row group's 1099511627776 rows`)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
}

// split is BYTE_STREAM_SPLIT as the format defines it: byte k of each value to stream k.
func split(src []byte, width int) []byte {
	n := len(src) / width
	out := make([]byte, len(src))
	for i := 0; i < n; i++ {
		for k := 0; k < width; k++ {
			out[k*n+i] = src[i*width+k]
		}
	}
	return out
}

func TestUnsplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, width := range []int{2, 4, 8, 3, 16, 32} {
		for _, n := range []int{0, 1, 7, 100} {
			src := make([]byte, n*width)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			dst := make([]byte, len(src))
			unsplit(dst, split(src, width), width)
			require.Equal(t, src, dst, "width %d, %d values", width, n)
		}
	}
}

// deltaStream is a DELTA_BINARY_PACKED stream as the format defines it (blocks of 128
// values in 4 miniblocks), written independently of the reader.
func deltaStream(vals []int64) []byte {
	b := binary.AppendUvarint(nil, 128)
	b = binary.AppendUvarint(b, 4)
	b = binary.AppendUvarint(b, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendVarint(b, 0)
	}
	b = binary.AppendVarint(b, vals[0])
	for s := 1; s < len(vals); s += 128 {
		block := make([]uint64, 0, 128)
		minDelta := int64(math.MaxInt64)
		for i := s; i < min(s+128, len(vals)); i++ {
			minDelta = min(minDelta, int64(uint64(vals[i])-uint64(vals[i-1])))
		}
		for i := s; i < min(s+128, len(vals)); i++ {
			block = append(block, uint64(vals[i])-uint64(vals[i-1])-uint64(minDelta))
		}
		b = binary.AppendVarint(b, minDelta)
		var widths [4]int
		for m := range widths {
			for _, d := range block[min(m*32, len(block)):min(m*32+32, len(block))] {
				widths[m] = max(widths[m], 64-bitsLeadingZeros(d))
			}
			b = append(b, byte(widths[m]))
		}
		for m := 0; m*32 < len(block); m++ {
			var acc big.Int
			for i := 31; i >= 0; i-- { // LSB first: value i at bit i*width
				acc.Lsh(&acc, uint(widths[m]))
				if m*32+i < len(block) {
					acc.Or(&acc, new(big.Int).SetUint64(block[m*32+i]))
				}
			}
			mini := make([]byte, 32*widths[m]/8)
			le := acc.Bytes() // big-endian
			for k := range le {
				mini[k] = le[len(le)-1-k]
			}
			b = append(b, mini...)
		}
	}
	return b
}

func bitsLeadingZeros(x uint64) int {
	n := 0
	for ; n < 64 && x&(1<<63>>n) == 0; n++ {
	}
	return n
}

func TestDeltaReader(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 31, 33, 128, 129, 300} {
		for _, spread := range []int64{0, 1, 1000, math.MaxInt64} {
			vals := make([]int64, n)
			for i := range vals {
				if spread == math.MaxInt64 {
					vals[i] = int64(r.Uint64()) // extremes: deltas wrap
				} else {
					vals[i] = r.Int64N(spread+1) - spread/2
				}
			}
			stream := append(deltaStream(vals), 0xEE) // bytes after the stream are not its
			d, err := newDeltaReader(stream, n)
			require.NoError(t, err)
			var got []int64
			for d.left() > 0 {
				v, err := d.next()
				require.NoError(t, err)
				got = append(got, v)
			}
			require.Equal(t, fmt.Sprint(vals), fmt.Sprint(got), "%d values, spread %d", n, spread)
			require.Equal(t, len(stream)-1, d.pos, "end of %d values", n)
			skipped, err := newDeltaReader(stream, n)
			require.NoError(t, err)
			require.NoError(t, skipped.skipAll())
			require.Equal(t, d.pos, skipped.pos)
		}
	}
	head := func(block, minis, total uint64) []byte {
		b := binary.AppendUvarint(nil, block)
		b = binary.AppendUvarint(b, minis)
		b = binary.AppendUvarint(b, total)
		return binary.AppendVarint(b, 0)
	}
	bad := []struct {
		name string
		b    []byte
		want string
	}{
		{"block of 0", head(0, 1, 1), "blocks of 0 values"},
		{"block of 100", head(100, 1, 1), "blocks of 100 values"},
		{"no miniblocks", head(128, 0, 1), "0 miniblocks"},
		{"miniblocks of 16", head(128, 8, 1), "8 miniblocks"},
		{"more values than the page", head(128, 4, 11), "11 values in a page of 10"},
		{"truncated header", head(128, 4, 5)[:3], "truncated header"},
		{"truncated block", append(head(128, 4, 5), 0, 8, 8), "needed"},
		{"deltas of 65 bits", append(append(head(128, 4, 5), 0), 65, 0, 0, 0), "deltas of 65 bits"},
	}
	for _, c := range bad {
		d, err := newDeltaReader(c.b, 10)
		for err == nil && d.left() > 0 {
			_, err = d.next()
		}
		require.ErrorIs(t, err, errDelta, c.name)
		require.ErrorContains(t, err, c.want, c.name)
	}
	// A block of 2^30 values of 0-bit deltas takes a few bytes: its PLAIN page is limited by
	// the file's allocation budget, not by the header's count.
	bomb := append(head(1<<30, 1, 1<<30), 0, 0)
	p := &plainPageReader{phys: parquet.Types.Int64, width: 8, mem: fileread.LimitAllocator{Allocator: memory.NewGoAllocator(), Limit: 1 << 20, Live: new(atomic.Int64)}}
	var err error
	func() {
		defer fileread.Recovered(&err)
		out := &pageOut{buf: memory.NewResizableBuffer(p.mem)}
		defer out.buf.Release()
		err = p.decode(out, encDeltaBinaryPacked, bomb, 1<<30)
	}()
	require.ErrorIs(t, err, fileread.ErrAllocTooLarge)
}

func TestPlainPageErrors(t *testing.T) {
	cases := []struct {
		phys  parquet.Type
		width int
		enc   int
		src   []byte
		want  string
	}{
		{parquet.Types.Double, 8, encByteStreamSplit, make([]byte, 12), "12 bytes for at most 10 values of 8 bytes"},
		{parquet.Types.Float, 4, encByteStreamSplit, make([]byte, 44), "44 bytes for at most 10 values of 4 bytes"},
		{parquet.Types.ByteArray, 0, encByteStreamSplit, nil, "on BYTE_ARRAY"},
		{parquet.Types.Double, 8, encDeltaBinaryPacked, nil, "on DOUBLE"},
		{parquet.Types.Int32, 4, encDeltaLengthByteArray, nil, "on INT32"},
		{parquet.Types.ByteArray, 0, encDeltaLengthByteArray, append(deltaStream([]int64{3, 5}), "abc"...), "a value of 5 bytes where 0 are left"},
		{parquet.Types.ByteArray, 0, encDeltaByteArray, append(append(deltaStream([]int64{0, 4}), deltaStream([]int64{1, 1})...), "ab"...), "a prefix of 4 bytes of a value of 1"},
		{parquet.Types.FixedLenByteArray, 3, encDeltaByteArray, append(append(deltaStream([]int64{0, 1}), deltaStream([]int64{3, 1})...), "abcd"...), "a value of 2 bytes in a column of 3-byte values"},
		{parquet.Types.ByteArray, 0, encDeltaByteArray, append(deltaStream([]int64{0, 0}), deltaStream([]int64{1})...), "2 prefix lengths and 1 suffix lengths"},
	}
	for _, c := range cases {
		p := &plainPageReader{phys: c.phys, width: c.width, mem: memory.NewGoAllocator()}
		out := &pageOut{buf: memory.NewResizableBuffer(p.mem)}
		err := p.decode(out, c.enc, c.src, 10)
		require.ErrorContains(t, err, c.want)
	}
	// DELTA_BYTE_ARRAY to PLAIN: "ab", "abc", "x" (prefixes 0, 2, 0).
	p := &plainPageReader{phys: parquet.Types.ByteArray, mem: memory.NewGoAllocator()}
	out := &pageOut{buf: memory.NewResizableBuffer(p.mem)}
	src := append(append(deltaStream([]int64{0, 2, 0}), deltaStream([]int64{2, 1, 1})...), "abcx"...)
	require.NoError(t, p.decode(out, encDeltaByteArray, src, 3))
	require.Equal(t, "\x02\x00\x00\x00ab\x03\x00\x00\x00abc\x01\x00\x00\x00x", string(out.done().Bytes()))
}

// TestParquetDeltaEncodingsMatchPqarrow writes DELTA_BINARY_PACKED integers and
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY strings (with nulls, extremes and lists) with
// arrow/go's writer and requires the values pqarrow reads with v15's own decoders.
func TestParquetDeltaEncodingsMatchPqarrow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 3000
	var def []int16
	var i32 []int32
	var i64 []int64
	var ss []parquet.ByteArray
	for i := 0; i < n; i++ {
		if r.IntN(7) == 0 {
			def = append(def, 0)
			continue
		}
		def = append(def, 1)
		switch r.IntN(4) {
		case 0:
			i32 = append(i32, int32(r.Uint32()))
			i64 = append(i64, int64(r.Uint64()))
		case 1:
			i32 = append(i32, math.MinInt32+int32(r.IntN(3)))
			i64 = append(i64, math.MaxInt64-int64(r.IntN(3)))
		default:
			i32 = append(i32, int32(i))
			i64 = append(i64, int64(i)*1000)
		}
		s := "prefix/shared/" + strconv.Itoa(r.IntN(50))
		if r.IntN(5) == 0 {
			s = strings.Repeat("ü", r.IntN(30))
		}
		ss = append(ss, parquet.ByteArray(s))
	}
	nodes := schema.FieldList{prim("dbp32", opt, parquet.Types.Int32, nil), prim("dbp64", opt, parquet.Types.Int64, nil),
		prim("dlba", opt, parquet.Types.ByteArray, utf8Type), prim("dba", opt, parquet.Types.ByteArray, utf8Type),
		group("ldba", opt, schema.NewListLogicalType(), group("list", rpt, nil, prim("element", opt, parquet.Types.ByteArray, utf8Type)))}
	root := schema.MustGroup(schema.NewGroupNode("schema", req, nodes, -1))
	// The list: each record's list holds the record's string (or is empty when null).
	listDef := make([]int16, n)
	for i, d := range def {
		listDef[i] = 1 + 2*d
	}
	cols := []rawColumn{{def, nil, i32}, {def, nil, i64}, {def, nil, ss}, {def, nil, ss}, {listDef, make([]int16, n), ss}}
	fields := []string{"dbp32", "dbp64", "dlba", "dba", "ldba"}
	for name, v := range map[string][]parquet.WriterProperty{"v1": nil, "v2-zstd": {parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithCompression(compress.Codecs.Zstd)}} {
		t.Run(name, func(t *testing.T) {
			opts := append([]parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(1000), parquet.WithBatchSize(100),
				parquet.WithEncodingFor("dbp32", parquet.Encodings.DeltaBinaryPacked), parquet.WithEncodingFor("dbp64", parquet.Encodings.DeltaBinaryPacked),
				parquet.WithEncodingFor("dlba", parquet.Encodings.DeltaLengthByteArray), parquet.WithEncodingFor("dba", parquet.Encodings.DeltaByteArray),
				parquet.WithEncodingFor("ldba.list.element", parquet.Encodings.DeltaByteArray)}, v...)
			path := filepath.Join(t.TempDir(), "delta.parquet")
			writeRawParquet(t, path, root, cols, 1, 2, opts...)
			pf, err := file.OpenParquetFile(path, false)
			require.NoError(t, err)
			for c := 0; c < len(cols); c++ {
				cc, err := pf.MetaData().RowGroup(0).ColumnChunk(c)
				require.NoError(t, err)
				require.Contains(t, fmt.Sprint(cc.Encodings()), "DELTA", "column %d", c)
			}
			require.NoError(t, pf.Close())
			requireSameAsPqarrow(t, path, fields)
		})
	}
}

// beBytes is v as a big-endian two's-complement number of n bytes.
func beBytes(v *big.Int, n int) parquet.ByteArray {
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	u := new(big.Int).Mod(v, m) // two's complement
	b := u.FillBytes(make([]byte, n))
	return b
}

// TestParquetDecimalPhysicalTypes reads DECIMAL on each physical type the format allows,
// BYTE_ARRAY included (no writer at hand writes it), with values of every width.
func TestParquetDecimalPhysicalTypes(t *testing.T) {
	dec := func(name string, typ parquet.Type, length int, p, s int32) schema.Node {
		return schema.Must(schema.NewPrimitiveNodeLogical(name, opt, schema.NewDecimalLogicalType(p, s), typ, length, -1))
	}
	n := func(s string) *big.Int {
		v, _ := new(big.Int).SetString(s, 10)
		return v
	}
	nodes := schema.FieldList{dec("i32", parquet.Types.Int32, -1, 9, 2), dec("i64", parquet.Types.Int64, -1, 18, 0),
		dec("flba", parquet.Types.FixedLenByteArray, 9, 20, 3), dec("ba", parquet.Types.ByteArray, -1, 38, 4),
		dec("wide", parquet.Types.ByteArray, -1, 60, 10)}
	root := schema.MustGroup(schema.NewGroupNode("schema", req, nodes, -1))
	def := []int16{1, 1, 0, 1}
	cols := []rawColumn{
		{def, nil, []int32{12345, -1, math.MaxInt32}},
		{def, nil, []int64{math.MaxInt64, -5, 0}},
		{def, nil, []parquet.FixedLenByteArray{parquet.FixedLenByteArray(beBytes(big.NewInt(-1), 9)),
			parquet.FixedLenByteArray(beBytes(n("99999999999999999999"), 9)), parquet.FixedLenByteArray(beBytes(big.NewInt(7), 9))}},
		// Minimal and sign-extended (20 bytes for a 16-byte decimal) encodings.
		{def, nil, []parquet.ByteArray{{0x01}, beBytes(big.NewInt(-123456), 20), {0x00, 0x80}}},
		{def, nil, []parquet.ByteArray{beBytes(n("100000000000000000000000000000000000000000000000000000000000"), 32), {0xff}, beBytes(n("-31415926535"), 6)}},
	}
	path := filepath.Join(t.TempDir(), "dec.parquet")
	writeRawParquet(t, path, root, cols, 1, 1)
	d := drain(t, mustOpen(t, path, []string{"i32", "i64", "flba", "ba", "wide"}))
	i := func(v int64) string { return canon(core.Value{Kind: core.Int, Int: v}) }
	f := func(v float64) string { return canon(fv(v)) }
	require.Equal(t, [][]string{
		{f(123.45), i(math.MaxInt64), f(-0.001), f(0.0001), f(1e49)},
		{f(-0.01), i(-5), f(99999999999999999.999), f(-12.3456), f(-1e-10)},
		{"null", "null", "null", "null", "null"},
		{f(21474836.47), i(0), f(0.007), f(0.0128), f(-3.1415926535)},
	}, [][]string{d.recs[0].Vals, d.recs[1].Vals, d.recs[2].Vals, d.recs[3].Vals})

	// A BYTE_ARRAY value wider than the decimal that does not merely extend its sign.
	root = schema.MustGroup(schema.NewGroupNode("schema", req, schema.FieldList{dec("ba", parquet.Types.ByteArray, -1, 38, 4)}, -1))
	for _, v := range []parquet.ByteArray{append([]byte{0x01}, make([]byte, 16)...), append([]byte{0xff}, make([]byte, 16)...), {}} {
		writeRawParquet(t, path, root, []rawColumn{{[]int16{1}, nil, []parquet.ByteArray{v}}}, 1, 1)
		err := readAllErr(path, []string{"ba"})
		require.ErrorIs(t, err, fileread.ErrCorrupt)
		require.ErrorContains(t, err, path+`: row group 0: corrupt input file: field "ba": invalid DECIMAL value: value 0 `)
	}
}

func mustOpen(t *testing.T, path string, fields []string) pipeline.Source {
	src, err := OpenFiles(FileConfig{Path: path}, fields, 10, 0)
	require.NoError(t, err)
	return src
}

// TestParquetCorruptedFixturesFailCleanly flips bytes across the pages of real writers'
// files (LZ4_RAW, BYTE_STREAM_SPLIT, DELTA encodings, data pages v2, dictionaries): each
// read ends cleanly or with an error naming the file.
func TestParquetCorruptedFixturesFailCleanly(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pa_bss_v2_lz4", "pa_delta_v1", "duck_v2_zstd", "pa_none_v1_plaindict"} {
		data, err := os.ReadFile(filepath.Join("testdata", "parquet", name+".parquet"))
		require.NoError(t, err)
		pages := len(data) - 8 - int(binary.LittleEndian.Uint32(data[len(data)-8:])) // the footer's start
		path := filepath.Join(dir, name+".parquet")
		errs := 0
		for i, pos := 0, 4; pos < pages; i, pos = i+1, pos+pages/150 {
			c := append([]byte{}, data...)
			c[pos] ^= []byte{0xff, 0x80, 0x01}[i%3]
			require.NoError(t, os.WriteFile(path, c, 0o644))
			if err := readAllErr(path, interopFields); err != nil {
				errs++
				require.ErrorIs(t, err, fileread.ErrCorrupt, "%s: byte %d", name, pos)
				require.ErrorContains(t, err, path, "%s: byte %d", name, pos)
			}
		}
		require.Positive(t, errs, name)
	}
}

// dataPageV2Header is a PageHeader of a data page v2 of n values with levels of defLen bytes.
func dataPageV2Header(uncompressed, compressed, n, defLen int64, isCompressed bool) []byte {
	b := writeThriftI32(nil, 1, pageDataV2)
	b = writeThriftI32(b, 1, uncompressed)
	b = writeThriftI32(b, 1, compressed)
	b = append(b, 5<<4|tStruct) // field 8
	b = writeThriftI32(b, 1, n)
	b = writeThriftI32(b, 1, 0) // nulls
	b = writeThriftI32(b, 1, n) // rows
	b = writeThriftI32(b, 1, 0) // PLAIN
	b = writeThriftI32(b, 1, defLen)
	b = writeThriftI32(b, 1, 0)
	b = append(b, 1<<4|map[bool]byte{true: tBoolTrue, false: tBoolFalse}[isCompressed])
	return append(b, 0, 0)
}

// TestChunkPageReaderV2 reads data pages v2 of a SNAPPY chunk: levels stored uncompressed
// before compressed values, and a page stored uncompressed (is_compressed false), as the
// format allows; a page whose stored bytes run short of its size is an error, not zeros.
func TestChunkPageReaderV2(t *testing.T) {
	levels := []byte{9, 9, 9}
	values := bytes.Repeat([]byte("value"), 40)
	comp := snappy.Encode(nil, values)
	var chunk []byte
	chunk = append(chunk, dataPageV2Header(int64(len(levels)+len(values)), int64(len(levels)+len(comp)), 4, 3, true)...)
	chunk = append(append(chunk, levels...), comp...)
	chunk = append(chunk, dataPageV2Header(int64(len(levels)+len(values)), int64(len(levels)+len(values)), 4, 3, false)...)
	chunk = append(append(chunk, levels...), values...)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	read := func(chunk []byte) ([][]byte, error) {
		p := &chunkPageReader{src: bytes.NewReader(chunk), end: int64(len(chunk)), valuesLeft: 8, codec: codecSnappy,
			mem: mem, dec: &decompressors{}, win: &pageWindow{}}
		defer p.release()
		var pages [][]byte
		for p.Next() {
			dp := p.Page().(*file.DataPageV2)
			require.Equal(t, int32(3), dp.DefinitionLevelByteLen())
			pages = append(pages, append([]byte{}, dp.Data()...))
		}
		return pages, p.Err()
	}
	pages, err := read(chunk)
	require.NoError(t, err)
	want := append(append([]byte{}, levels...), values...)
	require.Equal(t, [][]byte{want, want}, pages)
	// The second page's values cut by 10 bytes (the chunk ends there).
	_, err = read(chunk[:len(chunk)-10])
	require.ErrorIs(t, err, errPageHeader)
	require.ErrorContains(t, err, "203 compressed bytes where the column chunk has 193 left")
}
