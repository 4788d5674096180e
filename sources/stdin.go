package sources

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/evalstream/evalstream/sources/jsonl"
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

// stdinInput is standard input after its first bytes were looked at: br holds them.
type stdinInput struct {
	br *bufio.Reader
}

// openStdin looks at the first bytes of c.Stdin (os.Stdin when nil) and returns it with the
// format it is read with. It reads no further than those bytes.
func openStdin(c FileConfig) (*stdinInput, string, error) {
	f := c.Stdin
	if f == nil {
		f = os.Stdin
	}
	in := &stdinInput{br: bufio.NewReaderSize(f, sniffBytes)}
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
		return nil, "", fileread.FileError(Stdin, "", s.refused)
	}
	format, want := s.format, c.format()
	switch {
	case want == FormatAuto && format == "":
		return nil, "", errCannotTell(Stdin, s)
	case want == FormatAuto:
	case format != "" && family(format) != family(want) && (s.binary || want != FormatJSONL):
		return nil, "", fileread.FileError(Stdin, "", fmt.Errorf("%w: the format is set to %s (--input-format / source.format), but standard input is %s by its first bytes; set the format to %s or auto",
			ErrFormat, want, describe(format), format))
	case !s.binary:
		format = want
	}
	if format == FormatArrow || format == FormatParquet {
		return nil, "", fileread.FileError(Stdin, "", fmt.Errorf("%w: standard input holds %s, which is read from its footer and so cannot come through a pipe; give its path instead, or write an Arrow IPC stream (pyarrow.ipc.new_stream) or JSON Lines to standard input",
			ErrFormat, describe(format)))
	}
	return in, format, nil
}

// open returns the reader of standard input read as fi.Format (FormatArrows or FormatJSONL).
func (in *stdinInput) open(fi fileread.Info, o *fileread.Options) (fileread.Reader, error) {
	if fi.Format == FormatJSONL {
		return jsonl.OpenReader(fi, o, in.br)
	}
	return arrowsrc.OpenStream(fi, o, in.br, stdinAllocLimit)
}
