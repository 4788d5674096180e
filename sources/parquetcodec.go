package sources

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	_ "unsafe" // go:linkname

	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/pierrec/lz4/v4"
)

// arrow/go v15 decompresses Parquet pages with the codecs of its parquet/compress package,
// which has none for LZ4_RAW (codec 7: what pyarrow, polars and duckdb write for "lz4") or
// the deprecated LZ4 (codec 5) and no function to add one (v18 has RegisterCodec). The
// codecs below are added to its table at start-up through a linkname: the module pins
// v15.0.2, whose table is `var codecs = map[Compression]Codec{}`, and
// TestParquetCodecsRegistered fails if that ever stops working. Both use
// github.com/pierrec/lz4/v4, which arrow/go already uses for Arrow IPC LZ4 frames.

//go:linkname pqCodecs github.com/apache/arrow/go/v15/parquet/compress.codecs
var pqCodecs map[compress.Compression]compress.Codec

// Parquet codec numbers (parquet.thrift CompressionCodec).
const (
	codecLZ4    compress.Compression = 5
	codecLZ4Raw compress.Compression = 7
)

func init() {
	pqCodecs[codecLZ4Raw] = lz4RawCodec{}
	pqCodecs[codecLZ4] = lz4HadoopCodec{}
}

// errLZ4 is an LZ4 page that does not decompress to the size its header gives. The page
// reader's Decode has no error result: the codecs panic with it, and the Parquet reader
// recovers the panic as a corrupt-file error.
var errLZ4 = errors.New("invalid LZ4 page")

// lz4RawCodec is Parquet's LZ4_RAW: each page one LZ4 block, without framing. It is safe
// for concurrent use.
type lz4RawCodec struct{}

func (lz4RawCodec) Decode(dst, src []byte) []byte {
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		panic(fmt.Errorf("%w: LZ4_RAW: %w", errLZ4, err))
	}
	if dst != nil && n != len(dst) {
		panic(fmt.Errorf("%w: LZ4_RAW block of %d bytes where the page header says %d", errLZ4, n, len(dst)))
	}
	return dst[:n]
}

func (lz4RawCodec) Encode(dst, src []byte) []byte {
	if bound := lz4.CompressBlockBound(len(src)); cap(dst) < bound {
		dst = make([]byte, bound)
	}
	dst = dst[:cap(dst)]
	// With room for the bound, LZ4 always compresses (incompressible data as literals).
	n, err := lz4.CompressBlock(src, dst, nil)
	if err != nil || n == 0 && len(src) > 0 {
		panic(fmt.Errorf("LZ4_RAW: %d bytes compressed to %d: %v", len(src), n, err))
	}
	return dst[:n]
}

func (c lz4RawCodec) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

func (lz4RawCodec) CompressBound(n int64) int64 { return int64(lz4.CompressBlockBound(int(n))) }

// NewReader and NewWriter: Parquet pages are compressed and decompressed whole (Encode,
// Decode); LZ4_RAW has no stream form.
func (lz4RawCodec) NewReader(io.Reader) io.ReadCloser { return errReadCloser{errLZ4Stream} }

func (lz4RawCodec) NewWriter(io.Writer) io.WriteCloser { return errReadCloser{errLZ4Stream} }

func (lz4RawCodec) NewWriterLevel(io.Writer, int) (io.WriteCloser, error) {
	return nil, errLZ4Stream
}

var errLZ4Stream = errors.New("parquet LZ4 pages are blocks, not streams")

type errReadCloser struct{ err error }

func (e errReadCloser) Read([]byte) (int, error)  { return 0, e.err }
func (e errReadCloser) Write([]byte) (int, error) { return 0, e.err }
func (e errReadCloser) Close() error              { return nil }

// lz4HadoopCodec is Parquet's deprecated LZ4: pages in the Hadoop framing (blocks each
// preceded by their big-endian 32-bit decompressed and compressed sizes), or, as some
// writers did and Arrow C++ accepts, one raw LZ4 block. It reads both; it writes the Hadoop
// framing. It is safe for concurrent use.
type lz4HadoopCodec struct{ lz4RawCodec }

func (c lz4HadoopCodec) Decode(dst, src []byte) []byte {
	if n, ok := hadoopLZ4(dst, src); ok {
		return dst[:n]
	}
	return c.lz4RawCodec.Decode(dst, src)
}

// hadoopLZ4 decompresses src as Hadoop-framed LZ4 blocks filling dst exactly; ok is false
// when src is not in that framing.
func hadoopLZ4(dst, src []byte) (int, bool) {
	n := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return 0, false
		}
		raw, size := int(binary.BigEndian.Uint32(src)), int(binary.BigEndian.Uint32(src[4:]))
		src = src[8:]
		if size > len(src) || raw > len(dst)-n {
			return 0, false
		}
		k, err := lz4.UncompressBlock(src[:size], dst[n:n+raw])
		if err != nil || k != raw {
			return 0, false
		}
		n += k
		src = src[size:]
	}
	return n, n == len(dst)
}

func (c lz4HadoopCodec) Encode(dst, src []byte) []byte {
	block := c.lz4RawCodec.Encode(nil, src)
	out := append(dst[:0], make([]byte, 8)...)
	binary.BigEndian.PutUint32(out, uint32(len(src)))
	binary.BigEndian.PutUint32(out[4:], uint32(len(block)))
	return append(out, block...)
}

func (c lz4HadoopCodec) EncodeLevel(dst, src []byte, _ int) []byte { return c.Encode(dst, src) }

func (lz4HadoopCodec) CompressBound(n int64) int64 { return int64(lz4.CompressBlockBound(int(n))) + 8 }
