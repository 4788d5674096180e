package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Parquet pages are decompressed here rather than by arrow/go v15's parquet/compress, which
// has no LZ4_RAW (codec 7: what pyarrow, polars and duckdb write for "lz4") nor LZ4 (codec
// 5, deprecated), and whose Decode grows its output to whatever the compressed data holds.
// Each page decompresses into a buffer of exactly the size its header gives: more or less
// data is an error, and the header's size is checked against what the codec can expand the
// compressed bytes to before anything is allocated, where the codec bounds it. The
// libraries are those arrow/go uses: golang/snappy, klauspost/compress (gzip, zstd),
// andybalholm/brotli and pierrec/lz4.

// Parquet codec numbers (parquet.thrift CompressionCodec).
const (
	codecUncompressed = 0
	codecSnappy       = 1
	codecGzip         = 2
	codecLZO          = 3
	codecBrotli       = 4
	codecLZ4          = 5
	codecZstd         = 6
	codecLZ4Raw       = 7
)

var codecNames = map[int]string{codecUncompressed: "UNCOMPRESSED", codecSnappy: "SNAPPY", codecGzip: "GZIP", codecLZO: "LZO",
	codecBrotli: "BROTLI", codecLZ4: "LZ4", codecZstd: "ZSTD", codecLZ4Raw: "LZ4_RAW"}

func codecName(c int) string {
	if n, ok := codecNames[c]; ok {
		return n
	}
	return fmt.Sprintf("codec %d", c)
}

// errCodec is a column chunk compressed with a codec this reader does not have.
var errCodec = errors.New("unsupported Parquet compression")

// errDecompress is a page whose data does not decompress to the size its header gives.
var errDecompress = errors.New("invalid compressed page")

// maxExpansion is the most a codec can expand n compressed bytes to, or -1 when it sets no
// useful bound (zstd and brotli encode long runs in a few bytes).
func maxExpansion(codec, n int) int64 {
	switch codec {
	case codecUncompressed:
		return int64(n)
	case codecSnappy:
		return int64(n)*22 + 32 // a 3-byte copy emits at most 64 bytes
	case codecGzip:
		return int64(n)*1032 + 1024 // deflate's most
	case codecLZ4, codecLZ4Raw:
		return int64(n)*256 + 64 // each byte of a match length adds at most 255
	}
	return -1
}

// decompressors holds the decoders of one file's pages, reused from page to page. It is not
// safe for concurrent use; close releases it.
type decompressors struct {
	zstd   *zstd.Decoder
	gzip   *gzip.Reader
	brotli *brotli.Reader
}

func (d *decompressors) close() {
	if d.zstd != nil {
		d.zstd.Close()
		d.zstd = nil
	}
}

// decompress fills dst with the decompressed src, which must decompress to exactly
// len(dst) bytes.
func (d *decompressors) decompress(codec int, dst, src []byte) error {
	var err error
	switch codec {
	case codecUncompressed:
		if len(src) != len(dst) {
			return fmt.Errorf("%w: %d bytes where the header says %d", errDecompress, len(src), len(dst))
		}
		copy(dst, src)
		return nil
	case codecSnappy:
		var n int
		if n, err = snappy.DecodedLen(src); err == nil && n != len(dst) {
			return fmt.Errorf("%w: SNAPPY data of %d bytes where the header says %d", errDecompress, n, len(dst))
		}
		if err == nil {
			_, err = snappy.Decode(dst, src)
		}
	case codecGzip:
		if d.gzip == nil {
			d.gzip, err = gzip.NewReader(bytes.NewReader(src))
		} else {
			err = d.gzip.Reset(bytes.NewReader(src))
		}
		if err == nil {
			err = readExactly(d.gzip, dst)
		}
	case codecBrotli:
		if d.brotli == nil {
			d.brotli = brotli.NewReader(bytes.NewReader(src))
		} else {
			err = d.brotli.Reset(bytes.NewReader(src))
		}
		if err == nil {
			err = readExactly(d.brotli, dst)
		}
	case codecZstd:
		if d.zstd == nil {
			// One decoder, synchronous (no goroutine), never writing past dst's capacity.
			if d.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true)); err != nil {
				return err
			}
		}
		var out []byte
		if out, err = d.zstd.DecodeAll(src, dst[:0]); err == nil && len(out) != len(dst) {
			return fmt.Errorf("%w: ZSTD data of %d bytes where the header says %d", errDecompress, len(out), len(dst))
		}
	case codecLZ4Raw:
		err = lz4Block(dst, src)
	case codecLZ4:
		if !hadoopLZ4(dst, src) {
			err = lz4Block(dst, src) // as Arrow C++: writers before the Hadoop framing wrote raw blocks
		}
	default:
		return fmt.Errorf("%w %s", errCodec, codecName(codec))
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errDecompress, codecName(codec), err)
	}
	return nil
}

// readExactly fills dst from r and requires r to end there.
func readExactly(r io.Reader, dst []byte) error {
	if n, err := io.ReadFull(r, dst); err != nil {
		return fmt.Errorf("%d bytes where the header says %d: %w", n, len(dst), err)
	}
	var one [1]byte
	switch n, err := io.ReadFull(r, one[:]); {
	case n > 0:
		return fmt.Errorf("more bytes than the header's %d", len(dst))
	case err != io.EOF:
		return err
	}
	return nil
}

// lz4Block decompresses one LZ4 block filling dst exactly.
func lz4Block(dst, src []byte) error {
	n, err := lz4.UncompressBlock(src, dst)
	if err == nil && n != len(dst) {
		err = fmt.Errorf("%d bytes where the header says %d", n, len(dst))
	}
	return err
}

// hadoopLZ4 decompresses src as Hadoop-framed LZ4 (blocks each preceded by their
// big-endian 32-bit decompressed and compressed sizes) filling dst exactly; false when src
// is not that.
func hadoopLZ4(dst, src []byte) bool {
	n := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return false
		}
		raw, size := binary.BigEndian.Uint32(src), binary.BigEndian.Uint32(src[4:])
		src = src[8:]
		if uint64(size) > uint64(len(src)) || uint64(raw) > uint64(len(dst)-n) {
			return false
		}
		if lz4Block(dst[n:n+int(raw)], src[:size]) != nil {
			return false
		}
		n += int(raw)
		src = src[size:]
	}
	return n == len(dst)
}
