package sources

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// gzipMagic starts every gzip member (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// MaybeGunzip returns a reader of r's content, decompressed when it starts with the gzip
// magic bytes, whatever the file is called (a `.txt` that is gzip data, a `.gz` that is
// not). Concatenated gzip members are read as one stream, as gzip(1) does. The returned
// close function releases the decompressor (not r). Not safe for concurrent use.
func MaybeGunzip(r io.Reader) (io.Reader, func() error, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(len(gzipMagic))
	if err != nil && err != io.EOF {
		return nil, nil, err
	}
	if !bytes.Equal(head, gzipMagic) {
		return br, func() error { return nil }, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: gzip: %w", ErrCorrupt, err)
	}
	return gzipErrReader{zr}, zr.Close, nil
}

// gzipErrReader marks decompression errors as corrupt input.
type gzipErrReader struct{ r *gzip.Reader }

func (g gzipErrReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: gzip: %w", ErrCorrupt, err)
	}
	return n, err
}
