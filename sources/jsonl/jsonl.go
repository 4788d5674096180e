package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// jsonlReader reads the records of one JSON Lines file (optionally gzip-compressed).
type jsonlReader struct {
	fi  fileread.Info
	f   io.Closer
	cnt *countReader
	br  *bufio.Reader
	r   io.Reader
	gz  *gzip.Reader

	cur     *fileread.LineChunk // the buffer being read into; chunk is cur.buf
	chunk   []byte              // len == cap
	start   int                 // first byte of the next line
	scanned int                 // chunk[start:scanned] holds no '\n'
	end     int                 // end of the data read so far
	eof     bool

	chunkSize int // of the line buffers (fileread.LineChunkSizeFor)

	line int64 // 0-based index of the next physical line
	dec  *jsonDecoder
	max  int

	fields   []string
	decoders *sync.Pool // *jsonDecoder for deferred decoding (shared by the source's files)

	peek       jline // looked-ahead line, when hasPeek
	hasPeek    bool
	peekPos    int64 // file offset before the looked-ahead line (uncompressed files)
	pendingErr error // found while looking ahead; returned by the next fill
}

// Open opens the JSON Lines file fi (gzip-compressed when its name ends in .gz or its bytes
// start with the gzip magic). A line that is not a valid JSON object, or is over
// s.MaxRecord, is a record with Err set; the rest of the file is still read.
func Open(fi fileread.Info, s *fileread.Options) (fileread.Reader, error) {
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	f, err := fileread.OpenFile(ctx, fi.Path)
	if err != nil {
		return nil, fmt.Errorf("sources: %w", err)
	}
	r := &jsonlReader{fi: fi, f: f, cnt: &countReader{r: f}, dec: newJSONDecoder(s.Fields), max: s.MaxRecord, fields: s.Fields, decoders: &s.Decoders}
	// A small buffer to peek at the magic: lines are read into the line buffers, with reads
	// of their size that bypass it; gzip gets a large buffer of its own.
	br := bufio.NewReaderSize(r.cnt, 4<<10)
	r.br = br
	magic, _ := br.Peek(2)
	if strings.HasSuffix(strings.ToLower(fi.Path), ".gz") || bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(bufio.NewReaderSize(br, 64<<10))
		if err != nil {
			f.Close()
			return nil, fileread.FileError(fi.Path, "gzip header", fmt.Errorf("%w: %w", fileread.ErrCorrupt, err))
		}
		r.gz, r.r = gz, gz
		r.chunkSize = fileread.LineChunkSize // the size decompressed is not known
	} else {
		r.r = br
		r.chunkSize = fileread.LineChunkSizeFor(fi.Size)
	}
	return r, nil
}

// OpenReader reads JSON Lines from in (standard input), gzip-compressed when its bytes start
// with the gzip magic, as Open reads a file; fi names it in positions and errors. The reader
// does not close in.
func OpenReader(fi fileread.Info, s *fileread.Options, in io.Reader) (fileread.Reader, error) {
	r := &jsonlReader{fi: fi, cnt: &countReader{r: in}, dec: newJSONDecoder(s.Fields), max: s.MaxRecord, fields: s.Fields, decoders: &s.Decoders, chunkSize: fileread.LineChunkSize}
	r.br = bufio.NewReaderSize(r.cnt, 64<<10)
	r.r = r.br
	if magic, _ := r.br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(r.br)
		if err != nil {
			return nil, fileread.FileError(fi.Path, "gzip header", fmt.Errorf("%w: %w", fileread.ErrCorrupt, err))
		}
		r.gz, r.r = gz, gz
	}
	return r, nil
}

// BytesRead does not count the bytes read ahead into buffers (they may be a whole file's
// worth of lines) or the looked-ahead line, except in a compressed file, whose buffered
// bytes are decompressed ones.
func (r *jsonlReader) BytesRead() int64 {
	if r.gz != nil {
		return r.cnt.n
	}
	if r.hasPeek {
		return r.peekPos
	}
	return r.cnt.n - int64(r.br.Buffered()) - int64(r.end-r.start)
}

func (r *jsonlReader) Close() error {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// jline is a non-blank line of a JSON Lines file.
type jline struct {
	b        []byte
	row      int64
	tooLarge bool
	size     int64
}

// nextRecordLine returns the next non-blank line.
func (r *jsonlReader) nextRecordLine() (jline, error) {
	if r.hasPeek {
		r.hasPeek = false
		return r.peek, nil
	}
	for {
		line, tooLarge, size, err := r.nextLine()
		if err == io.EOF {
			return jline{}, io.EOF
		}
		if err != nil {
			if r.gz != nil {
				err = fmt.Errorf("%w: gzip: %w", fileread.ErrCorrupt, err)
			}
			return jline{}, fileread.FileError(r.fi.Path, fmt.Sprintf("line %d", r.line+1), err)
		}
		row := r.line
		r.line++
		if tooLarge {
			return jline{row: row, tooLarge: true, size: size}, nil
		}
		if row == 0 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if isBlank(line) {
			continue
		}
		if line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		return jline{b: line, row: row}, nil
	}
}

func (r *jsonlReader) Fill(b *fileread.Builder, n int) error {
	if r.pendingErr != nil {
		return r.pendingErr
	}
	lineBytes := 0
	for added := 0; added < n && (b.MaxBytes <= 0 || lineBytes < b.MaxBytes); added++ {
		l, err := r.nextRecordLine()
		if err != nil {
			return err
		}
		lineBytes += len(l.b) + 1
		rec := b.Add(l.row, n)
		if l.tooLarge {
			rec.Err = fileread.TooLargeError(l.size, r.max)
			continue
		}
		rec.Raw = l.b[:len(l.b):len(l.b)]
		b.UseChunk(r.cur)
		if b.Deferred {
			if b.Decode == nil {
				b.Decode = r.decodeBatch
			}
			continue
		}
		if _, rerr := r.dec.decode(l.b, rec.Values, &b.Ar); rerr != nil {
			rec.Err = rerr
		} else {
			rec.UTF8Checked = true // the decoder validates every string it returns
		}
	}
	// Look ahead, so that the last batch of a file is known as such (it then covers the
	// rest of the file's bytes). An error surfaces on the next call.
	pos := r.BytesRead()
	l, err := r.nextRecordLine()
	switch {
	case err == io.EOF:
		return io.EOF
	case err != nil:
		r.pendingErr = err
	default:
		r.peek, r.hasPeek, r.peekPos = l, true, pos
	}
	return nil
}

// decodeBatch parses the lines of a batch built in deferred mode, on the consumer's goroutine.
// Decoders are not safe for concurrent use; each call takes one from the source's pool.
func (r *jsonlReader) decodeBatch(b *fileread.Builder) error {
	d, _ := r.decoders.Get().(*jsonDecoder)
	if d == nil {
		d = newJSONDecoder(r.fields)
	}
	for i := range b.Records {
		rec := &b.Records[i]
		if rec.Err != nil || rec.Raw == nil {
			continue
		}
		if _, rerr := d.decode(rec.Raw, rec.Values, &b.Ar); rerr != nil {
			rec.Err = rerr
		} else {
			rec.UTF8Checked = true
		}
	}
	r.decoders.Put(d)
	return nil
}

func isBlank(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

// nextLine returns the next line without its '\n'. A line longer than r.max (when > 0) is
// skipped without being buffered and reported as tooLarge with its size.
func (r *jsonlReader) nextLine() (line []byte, tooLarge bool, size int64, err error) {
	for {
		if i := bytes.IndexByte(r.chunk[r.scanned:r.end], '\n'); i >= 0 {
			nl := r.scanned + i
			line = r.chunk[r.start:nl]
			r.start, r.scanned = nl+1, nl+1
			if r.max > 0 && len(line) > r.max {
				return nil, true, int64(len(line)), nil
			}
			return line, false, 0, nil
		}
		r.scanned = r.end
		if r.eof {
			if r.start < r.end {
				line = r.chunk[r.start:r.end]
				r.start = r.end
				if r.max > 0 && len(line) > r.max {
					return nil, true, int64(len(line)), nil
				}
				return line, false, 0, nil
			}
			return nil, false, 0, io.EOF
		}
		if r.max > 0 && r.end-r.start > r.max {
			return r.discardLine()
		}
		if r.end == len(r.chunk) {
			r.grow()
		}
		n, err := r.r.Read(r.chunk[r.end:])
		r.end += n
		if err == io.EOF {
			r.eof = true
		} else if err != nil {
			return nil, false, 0, err
		}
	}
}

// grow moves the partial line at the end of the chunk to a new chunk. The old chunk is left
// untouched: lines already handed out alias it.
func (r *jsonlReader) grow() {
	need := r.end - r.start
	// A long line grows its chunk 4x at a time: the chunks it leaves behind are garbage
	// until the next collection, and 4x keeps their sum at a third of the last chunk's size
	// (2x would double it): a line of max_record_bytes or more costs at most 4/3 of the limit.
	size := r.chunkSize
	for size < 4*need {
		size *= 2
	}
	// A line longer than r.max is discarded as soon as r.max+1 of its bytes are buffered
	// (nextLine never grows for more), so a larger chunk would only cost memory.
	if r.max > 0 && size >= r.max && need <= r.max {
		size = r.max + 1
	}
	nc := fileread.NewLineChunk(size)
	copy(nc.Buf, r.chunk[r.start:r.end])
	r.scanned -= r.start
	r.end -= r.start
	r.start = 0
	r.setChunk(nc)
}

// setChunk makes c the buffer being read into, dropping the reader's reference to the old one.
func (r *jsonlReader) setChunk(c *fileread.LineChunk) {
	if r.cur != nil {
		r.cur.Release()
	}
	r.cur, r.chunk = c, c.Buf
}

// discardLine skips the rest of an over-long line. Only bytes of that line (which nobody
// references) are overwritten.
func (r *jsonlReader) discardLine() ([]byte, bool, int64, error) {
	size := int64(r.end - r.start)
	for {
		if len(r.chunk)-r.start < 4096 {
			r.setChunk(fileread.NewLineChunk(r.chunkSize))
			r.start = 0
		}
		n, err := r.r.Read(r.chunk[r.start:])
		if i := bytes.IndexByte(r.chunk[r.start:r.start+n], '\n'); i >= 0 {
			size += int64(i)
			r.end = r.start + n
			r.start += i + 1
			r.scanned = r.start
			if err == io.EOF {
				r.eof = true
			} else if err != nil {
				return nil, false, 0, err
			}
			return nil, true, size, nil
		}
		size += int64(n)
		r.end, r.scanned = r.start, r.start
		if errors.Is(err, io.EOF) {
			r.eof = true
			return nil, true, size, nil
		}
		if err != nil {
			return nil, false, 0, err
		}
	}
}

// bstr returns a string aliasing b without copying (fileread.Bstr, under the short name the
// decoder's hot paths use). b must not be modified afterwards.
func bstr(b []byte) string { return fileread.Bstr(b) }
