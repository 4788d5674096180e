// Package sources reads evalstream's input files: JSON Lines (optionally gzip-compressed),
// Arrow IPC files and streams, and Parquet. A source projects each record onto the fields
// the pipeline asks for and hands out pipeline.Batch values.
//
// Values follow core.FromJSON. JSON: a string is a String, an integer literal that fits
// int64 an Int (any other number a Float, ±Inf on overflow), true/false a Bool, null Null, a
// list of strings a StringList, a list of lists of strings StringLists, a list of numbers
// (booleans count as 0/1) a FloatList, an empty list an empty StringList, anything else
// Other. Arrow and Parquet columns map the same way: utf8, large_utf8, string_view and
// dictionary<_, utf8> are String; int8..int64 and uint8..uint64 are Int (a uint64 above
// MaxInt64 is a Float, like the JSON literal); float16/32/64 are Float (widened exactly);
// bool is Bool; decimal128/256 (Parquet DECIMAL on any physical type) is an Int when its
// scale is 0 and it fits int64, else the correctly rounded Float (Python's float(Decimal));
// list, large_list and fixed_size_list of strings, of lists of strings or of numbers are
// StringList, StringLists and FloatList (a list with a null element is Other); a null slot is
// Null; every other type is Other. NaN and ±Inf are decoded as they are: the pipeline
// rejects them (pipeline.CheckFinite). A field absent from a record or file is
// Missing.
//
// Memory: strings of Arrow and Parquet records alias the Arrow buffers, and strings of JSON
// lines alias the line buffer (only strings with escapes are copied); lists are carved from
// per-batch backing arrays. They are valid until Batch.Release.
//
// Malformed files end the read with an error naming the file and the record batch or row
// group, wrapping ErrCorrupt: arrow/go v15 panics (or allocates without bound) on some
// malformed input, so Arrow IPC metadata is verified before arrow reads it and panics are
// recovered at that boundary. A record that cannot be decoded (a bad JSON line, invalid
// UTF-8, a record over the size limit) is not an error: it is returned with Record.Err set.
package sources

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// Sentinel errors. Errors returned by this package wrap one of them (or an *os.PathError /
// I/O error) with the file at fault.
var (
	// ErrNoFiles is returned when a FileConfig selects no file.
	ErrNoFiles = errors.New("no input files")
	// ErrFormat is returned for an unknown format name or a file whose format cannot be
	// told from its extension.
	ErrFormat = errors.New("unsupported input format")
	// ErrCorrupt is wrapped when a file cannot be decoded (truncated or malformed gzip,
	// Arrow or Parquet data).
	ErrCorrupt = errors.New("corrupt input file")
)

// Format names accepted by FileConfig.Format.
const (
	FormatAuto    = "auto"
	FormatJSONL   = "jsonl"
	FormatArrow   = "arrow"
	FormatArrows  = "arrows"
	FormatParquet = "parquet"
)

// DefaultBatchSize is used by OpenFiles when batchSize <= 0.
const DefaultBatchSize = 1024

// FileConfig selects input files.
type FileConfig struct {
	// Path is a file, a glob (path/filepath.Match syntax; like a shell, a pattern matches
	// names starting with "." only when its last element does) or a directory. A directory
	// selects the supported files directly inside it (not recursively; names starting with
	// "." or "_" are skipped). An existing file whose name contains glob characters is taken
	// literally. Files are read in sorted path order. Stdin ("-") reads standard input.
	Path string
	// Format is "auto" (the default when empty), "jsonl", "arrow", "arrows" or "parquet".
	// Each file is read as its first bytes tell (Arrow IPC file "ARROW1", Arrow IPC stream,
	// Parquet "PAR1", gzip-compressed JSON Lines), else as its extension tells, else (text
	// starting with '{') as JSON Lines; see resolve. A format given here selects the files
	// of a directory or glob and is checked against each file's bytes; "arrow" and "arrows"
	// both read Arrow IPC files and streams. JSON Lines starting with the gzip magic bytes
	// are decompressed. Feather V1 files are refused with how to convert them.
	Format string
	// Stdin is read for the Path Stdin ("-"); nil means os.Stdin.
	Stdin *os.File
}

// Validate reports every problem of the configuration at once.
func (c FileConfig) Validate() error {
	var errs []error
	if strings.TrimSpace(c.Path) == "" {
		errs = append(errs, errors.New("sources: path is empty"))
	}
	switch c.Format {
	case "", FormatAuto, FormatJSONL, FormatArrow, FormatArrows, FormatParquet:
	default:
		errs = append(errs, fmt.Errorf("sources: format %q: %w (want auto, jsonl, arrow, arrows or parquet)", c.Format, ErrFormat))
	}
	if _, err := filepath.Match(c.Path, ""); err != nil && c.Path != "" {
		if _, serr := os.Stat(c.Path); serr != nil {
			errs = append(errs, fmt.Errorf("sources: path %q: bad glob pattern: %w", c.Path, err))
		}
	}
	return errors.Join(errs...)
}

func (c FileConfig) format() string {
	if c.Format == "" {
		return FormatAuto
	}
	return c.Format
}

// Expand returns the sorted list of files the config selects. It is an error (wrapping
// ErrNoFiles) when none is selected, and (wrapping ErrFormat) when the format of a selected
// file cannot be told or is not read.
func Expand(c FileConfig) ([]string, error) {
	fis, err := expand(c)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(fis))
	for i, fi := range fis {
		out[i] = fi.path
	}
	return out, nil
}

// expand returns the selected files, in sorted order, with the format each is read with.
func expand(c FileConfig) ([]fileInfo, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Path == Stdin {
		return []fileInfo{{path: Stdin, format: c.format()}}, nil // its bytes are looked at by openFiles
	}
	var files []string
	st, err := os.Stat(c.Path)
	switch {
	case err == nil && st.IsDir():
		ents, err := os.ReadDir(c.Path)
		if err != nil {
			return nil, fmt.Errorf("sources: read directory %s: %w", c.Path, err)
		}
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				continue
			}
			p := filepath.Join(c.Path, name)
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if ok, err := c.selects(p, true); err != nil {
				return nil, err
			} else if ok {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("sources: directory %s holds no %s files: %w", c.Path, describeFormat(c.format()), ErrNoFiles)
		}
	case err == nil:
		files = []string{c.Path}
	default:
		if !hasMeta(c.Path) {
			return nil, fmt.Errorf("sources: %w", err)
		}
		matches, gerr := filepath.Glob(c.Path)
		if gerr != nil {
			return nil, fmt.Errorf("sources: path %q: %w", c.Path, gerr)
		}
		dotOK := strings.HasPrefix(filepath.Base(c.Path), ".")
		for _, m := range matches {
			if !dotOK && strings.HasPrefix(filepath.Base(m), ".") {
				continue // like a shell, '*' does not match hidden files
			}
			fi, err := os.Stat(m)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if ok, err := c.selects(m, false); err != nil {
				return nil, err
			} else if ok {
				files = append(files, m)
			}
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("sources: pattern %q matches no %s files: %w", c.Path, describeFormat(c.format()), ErrNoFiles)
		}
	}
	slices.Sort(files)
	files = slices.Compact(files)
	out := make([]fileInfo, 0, len(files))
	for _, p := range files {
		f, err := c.resolve(p)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("sources: %w", err)
		}
		out = append(out, fileInfo{path: p, format: f, size: st.Size()})
	}
	return out, nil
}

func describeFormat(f string) string {
	if f == FormatAuto {
		return "supported"
	}
	return f
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[\`) }

// fileReader reads the records of one file into batches.
type fileReader interface {
	// fill appends up to n records to b. It returns io.EOF (possibly with records added)
	// at the end of the file.
	fill(b *batchBuilder, n int) error
	// bytesRead is how many bytes of the file were consumed so far.
	bytesRead() int64
	close() error
}

type fileInfo struct {
	path   string
	format string
	size   int64
}

// fileSource reads a list of files in order. It is used by a single goroutine.
type fileSource struct {
	files     []fileInfo
	fields    []string
	batchSize int
	maxRecord int
	mem       memory.Allocator
	total     int64

	idx      int        // index of the current file
	cur      fileReader // nil between files
	reported int64      // bytes of the current file already reported in batches
	pending  int64      // bytes of finished empty files not reported yet
	batchNo  int        // batches emitted from the current file
	outRows  int64      // records of the batches emitted so far
	outBytes int64      // bytes of the batches emitted so far
	closed   bool
	decoders sync.Pool   // *jsonDecoder for deferred decoding
	stdin    *stdinInput // the input when Path is Stdin
}

// OpenFiles opens a pipeline.Source reading every selected file in sorted order, projecting
// each record onto fields (record values in that order; a missing field is
// core.Value{Kind: core.Missing}), batchSize records per batch (DefaultBatchSize when <= 0;
// the last batch of a file may be short; batches never span files). maxRecordBytes > 0 bounds
// a single JSON line / record: a larger one becomes a bad record with reason "record too
// large" and the rest of the file is still read.
//
// Records carry Pos (file and 0-based row: the physical line for JSON Lines, blank lines
// being skipped, not records) and Seq = file index (in sorted order) << 40 | row, so Seq
// grows across files. Record.Raw is the JSON line (without its line ending; nil for Arrow
// and Parquet and for a record over the size limit); it aliases a read buffer the source
// never writes again, so it stays valid after Release (in deferred mode, see below, only
// until Release, like the values).
//
// The source also implements pipeline.Sizer (the total size of the files) and sets
// Batch.Bytes (compressed bytes for .gz; the batches of a file add up to its size). Strings
// in a batch alias buffers the batch owns; they are valid until Batch.Release. Release also
// recycles the batch's Records and their Values arrays for later batches, so a consumer must
// not read a batch after releasing it (copy what it keeps); not calling Release is fine. The
// source is not safe for concurrent use; batches may be released from any goroutine. Files
// are opened one at a time, when reached.
//
// Deferred decoding: when Next is called with a context from pipeline.WithDeferredDecode,
// JSON lines are only split by the reader and parsed by Batch.Decode (their read buffers are
// reused once the batches aliasing them are released), and Arrow and Parquet values are
// converted by Batch.Decode; with pipeline.WithColumns, a batch of an Arrow or
// Parquet file whose requested fields are all integer columns without nulls also carries
// them as Batch.Columns (aliasing the Arrow buffers) and builds its records only if Decode
// is called; such a columnar batch holds up to max(batchSize, 65536) rows. In that mode a
// batch never spans two Arrow record batches (row groups' record batches for Parquet).
// Decoded records are the same in every mode.
//
// Parquet columns holding structs (struct, map, list<struct>) are not decoded (no metric
// accepts one): their values are Other, null slots included.
func OpenFiles(c FileConfig, fields []string, batchSize int, maxRecordBytes int) (pipeline.Source, error) {
	return openFiles(c, fields, batchSize, maxRecordBytes, memory.DefaultAllocator)
}

func openFiles(c FileConfig, fields []string, batchSize, maxRecordBytes int, mem memory.Allocator) (*fileSource, error) {
	fis, err := expand(c)
	if err != nil {
		return nil, err
	}
	if batchSize <= 0 {
		batchSize = DefaultBatchSize
	}
	if maxRecordBytes < 0 {
		maxRecordBytes = 0
	}
	s := &fileSource{fields: slices.Clone(fields), batchSize: batchSize, maxRecord: maxRecordBytes, mem: mem}
	if c.Path == Stdin {
		if s.stdin, fis[0].format, err = openStdin(c); err != nil {
			return nil, err
		}
	}
	for _, fi := range fis {
		s.files = append(s.files, fi)
		s.total += fi.size
	}
	if len(s.files) >= 1<<(64-seqRowBits) {
		return nil, fmt.Errorf("sources: %d files selected, at most %d supported", len(s.files), 1<<(64-seqRowBits)-1)
	}
	return s, nil
}

var (
	_ pipeline.Source = (*fileSource)(nil)
	_ pipeline.Sizer  = (*fileSource)(nil)
)

// TotalBytes is the total size of the selected files (pipeline.Sizer).
func (s *fileSource) TotalBytes() int64 { return s.total }

// Next returns the next batch, or io.EOF after the last one.
func (s *fileSource) Next(ctx context.Context) (*pipeline.Batch, error) {
	if s.closed {
		return nil, errors.New("sources: Next on a closed source")
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.cur == nil {
			if s.idx >= len(s.files) {
				return nil, io.EOF
			}
			r, err := s.open(s.files[s.idx])
			if err != nil {
				s.idx = len(s.files) // a failed source stays failed
				return nil, err
			}
			s.cur, s.reported, s.batchNo = r, 0, 0
		}
		fi := s.files[s.idx]
		b := newBatchBuilder(s, fi.path, s.idx)
		b.deferred = pipeline.DeferredDecode(ctx)
		b.columns = pipeline.ColumnsAccepted(ctx)
		err := s.cur.fill(b, s.nextBatchSize(pipeline.Consumers(ctx)))
		if err != nil && err != io.EOF {
			b.release()
			s.closeCurrent()
			s.idx = len(s.files)
			return nil, err
		}
		var nbytes int64
		if err == io.EOF {
			if cerr := s.cur.close(); cerr != nil {
				b.release()
				s.cur = nil
				s.idx = len(s.files)
				return nil, fmt.Errorf("sources: close %s: %w", fi.path, cerr)
			}
			s.cur = nil
			s.idx++
			nbytes = max(fi.size-s.reported, 0)
		} else {
			nbytes = max(min(s.cur.bytesRead(), fi.size)-s.reported, 0)
		}
		s.reported += nbytes
		if b.rows == 0 {
			s.pending += nbytes
			b.release()
			continue
		}
		s.batchNo++
		batch := b.finish()
		batch.Bytes = nbytes + s.pending
		s.pending = 0
		s.outRows += int64(b.rows)
		s.outBytes += batch.Bytes
		return batch, nil
	}
}

// nextBatchSize is the number of records of the next batch. With several consumers, the last
// batches of the input shrink to a share of what is left (estimated from the bytes per record
// so far), down to tailBatchMin records, so that the consumers finish at about the same time:
// with full batches to the end, all but one of them would wait for up to a whole batch. The
// results never depend on where batches end.
func (s *fileSource) nextBatchSize(consumers int) int {
	const tailBatchMin = 64
	n := s.batchSize
	if consumers < 2 || n <= tailBatchMin || s.outRows == 0 || s.outBytes <= 0 {
		return n
	}
	left := float64(max(s.total-s.outBytes, 0)) * float64(s.outRows) / float64(s.outBytes)
	return int(max(min(left/float64(2*consumers), float64(n)), tailBatchMin))
}

func (s *fileSource) open(fi fileInfo) (r fileReader, err error) {
	if s.stdin != nil {
		return s.stdin.open(fi, s)
	}
	switch fi.format {
	case FormatJSONL:
		return openJSONL(fi, s)
	case FormatArrow, FormatArrows, FormatParquet:
		return openArrowish(fi, s)
	}
	return nil, fmt.Errorf("sources: %s: %w %q", fi.path, ErrFormat, fi.format)
}

func (s *fileSource) closeCurrent() {
	if s.cur != nil {
		_ = s.cur.close()
		s.cur = nil
	}
}

// Close releases the open file, if any. It is safe to call more than once.
func (s *fileSource) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.cur != nil {
		err := s.cur.close()
		s.cur = nil
		if err != nil {
			return fmt.Errorf("sources: close %s: %w", s.files[s.idx].path, err)
		}
	}
	return nil
}

// seqRowBits is how many low bits of Record.Seq hold the row within its file; the high bits
// hold the file's index in sorted order.
const seqRowBits = 40

func seqOf(file int, row int64) uint64 { return uint64(file)<<seqRowBits | uint64(row) }

// batchBuilder accumulates the records of one batch and the resources they alias.
type batchBuilder struct {
	path    string
	file    int
	nf      int
	records []pipeline.Record
	values  []core.Value // backing array of every record's Values
	ar      arena
	held    []interface{ Release() } // Arrow records the batch's strings alias
	rows    int                      // records in the batch, built or not yet (columns)

	// Deferred decoding (pipeline.DeferredDecode): the reader only splits the input and
	// decode finishes the batch on the consumer's goroutine.
	deferred bool
	columns  bool // the consumer also accepts columns (pipeline.ColumnsAccepted)
	decode   func(b *batchBuilder) error
	cols     *pipeline.Columns
	segs     []arrowSeg   // Arrow rows to convert (deferred)
	rb       *recBuf      // where records and values came from, recycled on Release
	chunks   []*lineChunk // JSON line buffers the batch aliases (deferred: released on Release)
}

// useChunk notes that the batch aliases c. A deferred batch holds a reference until Release;
// a plain one pins c for good (its Raw stays valid after Release).
func (b *batchBuilder) useChunk(c *lineChunk) {
	if c == nil {
		return
	}
	if !b.deferred {
		c.pinned.Store(true)
		return
	}
	if n := len(b.chunks); n > 0 && b.chunks[n-1] == c {
		return
	}
	c.refs.Add(1)
	b.chunks = append(b.chunks, c)
}

// recBuf is the records and values backing arrays of a batch. Release hands them to the next
// batch (through recBufs), so reading a file does not allocate (and zero, and later collect)
// a few hundred bytes per record.
type recBuf struct {
	records []pipeline.Record
	values  []core.Value
	ar      arena // the batch's arena, kept with the arrays it last carved from
}

var recBufs sync.Pool // *recBuf

func getRecBuf(n, nf int) *recBuf {
	if rb, _ := recBufs.Get().(*recBuf); rb != nil && cap(rb.records) >= n && cap(rb.values) >= n*nf {
		return rb
	}
	return &recBuf{records: make([]pipeline.Record, 0, n), values: make([]core.Value, 0, n*nf)}
}

func newBatchBuilder(s *fileSource, path string, file int) *batchBuilder {
	return &batchBuilder{path: path, file: file, nf: len(s.fields)}
}

// add appends a record for row and returns it; its Values are all Missing.
func (b *batchBuilder) add(row int64, capHint int) *pipeline.Record {
	if b.records == nil {
		b.rb = getRecBuf(capHint, b.nf)
		b.records, b.values = b.rb.records[:0], b.rb.values[:0]
		if len(b.ar.strs)+len(b.ar.lists)+len(b.ar.floats)+len(b.ar.bytes) == 0 {
			b.ar = b.rb.ar // nothing carved yet: reuse the recycled arena
			b.ar.reset()
		}
	}
	if len(b.values)+b.nf > cap(b.values) {
		// Never reallocate: earlier records point into the old backing array.
		b.values = make([]core.Value, 0, max(capHint, 16)*b.nf)
	}
	start := len(b.values)
	b.values = b.values[:start+b.nf]
	clear(b.values[start:]) // a recycled array holds values of an earlier batch
	b.records = append(b.records, pipeline.Record{
		Values: b.values[start : start+b.nf : start+b.nf],
		Seq:    seqOf(b.file, row),
		Pos:    pipeline.Position{File: b.path, Row: row},
	})
	b.rows++
	return &b.records[len(b.records)-1]
}

func (b *batchBuilder) release() {
	for _, h := range b.held {
		h.Release()
	}
	b.held = nil
	if b.rb != nil {
		recBufs.Put(b.rb)
		b.rb = nil
	}
	for _, c := range b.chunks {
		c.release()
	}
	b.chunks = nil
}

func (b *batchBuilder) finish() *pipeline.Batch {
	batch := &pipeline.Batch{Records: b.records, Columns: b.cols}
	if b.decode != nil {
		var once sync.Once
		var err error
		batch.Decode = func() error {
			once.Do(func() {
				err = b.decode(b)
				b.decode, b.segs = nil, nil
				batch.Records = b.records
			})
			return err
		}
	}
	if len(b.held) > 0 || b.rb != nil || len(b.chunks) > 0 {
		held, chunks := b.held, b.chunks
		b.held, b.chunks = nil, nil
		var done atomic.Bool
		batch.Release = func() {
			if done.CompareAndSwap(false, true) {
				for _, h := range held {
					h.Release()
				}
				if rb := b.rb; rb != nil {
					b.rb = nil
					rb.ar = b.ar
					recBufs.Put(rb)
				}
				for _, c := range chunks {
					c.release()
				}
			}
		}
	}
	return batch
}

// fileError names the file (and where in it) an error happened.
func fileError(path, where string, err error) error {
	if where != "" {
		return fmt.Errorf("sources: %s: %s: %w", path, where, err)
	}
	return fmt.Errorf("sources: %s: %w", path, err)
}
