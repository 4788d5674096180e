// Package sources reads evalstream's input files: JSON Lines (optionally gzip-compressed),
// Arrow IPC files and streams, and Parquet. A source projects each record onto the fields
// the pipeline asks for and hands out pipeline.Batch values.
//
// This package is the format-agnostic part: it selects files (paths, globs, directories),
// tells each file's format (magic bytes, then extension) and opens the reader of that
// format, one subpackage per format (jsonl, arrow, parquet; text and kafka are sources of
// their own). The readers share the batch machinery of sources/internal/fileread. It may
// import pipeline, metrics/core and its format subpackages, which never import it (only
// sources/text does, for MaybeGunzip).
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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/pipeline"
	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/evalstream/evalstream/sources/jsonl"
	"github.com/evalstream/evalstream/sources/parquet"
)

// Sentinel errors. Errors returned by this package wrap one of them (or an *os.PathError /
// I/O error) with the file at fault.
var (
	// ErrNoFiles is returned when a FileConfig selects no file.
	ErrNoFiles = errors.New("no input files")
	// ErrFormat is returned for an unknown format name or a file whose format cannot be
	// told from its extension.
	ErrFormat = fileread.ErrFormat
	// ErrCorrupt is wrapped when a file cannot be decoded (truncated or malformed gzip,
	// Arrow or Parquet data).
	ErrCorrupt = fileread.ErrCorrupt
)

// Format names accepted by FileConfig.Format.
const (
	FormatAuto    = fileread.FormatAuto
	FormatJSONL   = fileread.FormatJSONL
	FormatArrow   = fileread.FormatArrow
	FormatArrows  = fileread.FormatArrows
	FormatParquet = fileread.FormatParquet
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
		out[i] = fi.Path
	}
	return out, nil
}

// expand returns the selected files, in sorted order, with the format each is read with.
func expand(c FileConfig) ([]fileread.Info, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Path == Stdin {
		return []fileread.Info{{Path: Stdin, Format: c.format()}}, nil // its bytes are looked at by openFiles
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
	out := make([]fileread.Info, 0, len(files))
	for _, p := range files {
		f, err := c.resolve(p)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("sources: %w", err)
		}
		if !st.Mode().IsRegular() && (f == FormatArrow || f == FormatParquet) {
			// Told before anything runs, as for standard input (the reader refuses it too).
			return nil, fileread.FileError(p, "", fmt.Errorf("%w: not a regular file (a FIFO or a device), and %s is read from its footer, which only a regular file has; give a regular file, or send an Arrow IPC stream (.arrows) or JSON Lines through it",
				ErrFormat, describe(f)))
		}
		out = append(out, fileread.Info{Path: p, Format: f, Size: st.Size()})
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

func openFiles(c FileConfig, fields []string, batchSize, maxRecordBytes int, mem memory.Allocator) (*fileread.Source, error) {
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
	if c.Path == Stdin {
		in, format, err := openStdin(c)
		if err != nil {
			return nil, err
		}
		fis[0].Format = format
		return fileread.NewSource(fis, fields, batchSize, maxRecordBytes, mem, in.open)
	}
	return fileread.NewSource(fis, fields, batchSize, maxRecordBytes, mem, open)
}

// open opens the reader of the file's format.
func open(fi fileread.Info, o *fileread.Options) (fileread.Reader, error) {
	switch fi.Format {
	case FormatJSONL:
		return jsonl.Open(fi, o)
	case FormatArrow, FormatArrows:
		return arrowsrc.Open(fi, o)
	case FormatParquet:
		return parquet.Open(fi, o)
	}
	return nil, fmt.Errorf("sources: %s: %w %q", fi.Path, ErrFormat, fi.Format)
}
