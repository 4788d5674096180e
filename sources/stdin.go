package sources

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/klauspost/compress/gzip"
)

// Stdin is the FileConfig.Path that reads standard input. A pipe has no name to fall back on
// and cannot be read twice, so its format comes from its first bytes alone, and only the
// formats read front to back are accepted: an Arrow IPC stream (what pyarrow.ipc.new_stream,
// polars and the evalstream Python package write) and JSON Lines, gzip-compressed or not.
// Arrow IPC files and Parquet files are read from their footer: they must be given as files.
const Stdin = "-"

// stdinAllocLimit bounds a single allocation while decoding an Arrow stream from stdin. A
// file's limit scales with its size; a pipe's size is unknown, so this bounds what a corrupt
// length field can make the reader allocate. It is far above what any real record batch
// buffer needs (utf8 columns hold at most 2 GiB per batch).
const stdinAllocLimit = 4 << 30

// stdinInput is standard input after its first bytes were looked at.
type stdinInput struct {
	cf *countFile   // counts the bytes read from the pipe (Arrow)
	cr *countReader // the same bytes, for the JSON Lines reader
	br *bufio.Reader
}

// openStdin looks at the first bytes of c.Stdin (os.Stdin when nil) and returns it with the
// format it is read with. It reads no further than those bytes.
func openStdin(c FileConfig) (*stdinInput, string, error) {
	f := c.Stdin
	if f == nil {
		f = os.Stdin
	}
	in := &stdinInput{cf: &countFile{f: f}}
	in.cr = &countReader{r: in.cf}
	in.br = bufio.NewReaderSize(in.cr, sniffBytes)
	head, err := in.br.Peek(sniffBytes)
	size := int64(1 << 62) // unknown: more than the head
	if err != nil {
		if !errors.Is(err, io.EOF) {
			return nil, "", fmt.Errorf("sources: read standard input: %w", err)
		}
		size = int64(len(head))
	}
	s := sniff(head, size)
	if s.format == FormatJSONL && len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		s.refused = gzippedBinary(bytes.NewReader(head))
	}
	if s.refused != nil {
		return nil, "", fileError(Stdin, "", s.refused)
	}
	format, want := s.format, c.format()
	switch {
	case want == FormatAuto && format == "":
		return nil, "", errCannotTell(Stdin, s)
	case want == FormatAuto:
	case format != "" && family(format) != family(want) && (s.binary || want != FormatJSONL):
		return nil, "", fileError(Stdin, "", fmt.Errorf("%w: the format is set to %s (--input-format / source.format), but standard input is %s by its first bytes; set the format to %s or auto",
			ErrFormat, want, describe(format), format))
	case !s.binary:
		format = want
	}
	if format == FormatArrow || format == FormatParquet {
		return nil, "", fileError(Stdin, "", fmt.Errorf("%w: standard input holds %s, which is read from its footer and so cannot come through a pipe; give its path instead, or write an Arrow IPC stream (pyarrow.ipc.new_stream) or JSON Lines to standard input",
			ErrFormat, describe(format)))
	}
	return in, format, nil
}

// open returns the reader of standard input read as fi.format (FormatArrows or FormatJSONL).
func (in *stdinInput) open(fi fileInfo, s *fileSource) (_ fileReader, err error) {
	if fi.format == FormatJSONL {
		r := &jsonlReader{fi: fi, cnt: in.cr, br: in.br, r: in.br, dec: newJSONDecoder(s.fields), max: s.maxRecord, fields: s.fields, decoders: &s.decoders}
		if magic, _ := in.br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
			gz, err := gzip.NewReader(in.br)
			if err != nil {
				return nil, fileError(Stdin, "gzip header", fmt.Errorf("%w: %w", ErrCorrupt, err))
			}
			r.gz, r.r = gz, gz
		}
		return r, nil
	}
	r := &arrowReader{fi: fi, cnt: in.cf, fields: s.fields, max: s.maxRecord}
	base := s.mem
	if base == memory.DefaultAllocator {
		base = arrowBuffers
	}
	mem := limitAllocator{Allocator: base, limit: stdinAllocLimit}
	defer func() {
		if err != nil {
			err = fileError(Stdin, "schema", err)
		}
	}()
	defer recovered(&err)
	// The length checks against the bytes left in a file cannot apply; the allocator's limit
	// bounds what a corrupt length can cost instead.
	mr := newSafeMessageReader(in.br, 1<<62, mem)
	mr.bodies = s.bodies()
	sr, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(mem))
	if err != nil {
		mr.Release()
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	r.it = &ipcStreamIter{r: sr, mr: mr, want: -1}
	return r, nil
}
