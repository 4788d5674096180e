package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"

	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/format"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// Users' tools name files freely: HF datasets' save_to_disk writes Arrow IPC streams as
// .arrow, pandas and HF write JSON Lines as .json, .pq and .ipc are common. So a file's format
// comes from its first bytes, as pyarrow tells it, and the extension is only a fallback for
// what has no magic (JSON Lines text) or is too damaged to recognize (then the reader of that
// format reports what is wrong with it).

// sniffed is what the first bytes of a file say about its format.
type sniffed struct {
	// format is the format the magic bytes name (FormatArrow, FormatArrows or
	// FormatParquet), FormatJSONL for gzip data or text starting with '{', or "".
	format string
	// binary: format was told from the magic bytes of an Arrow or Parquet file.
	binary bool
	// jsonArray: text starting with '[' (a JSON document, not JSON Lines).
	jsonArray bool
	// refused is a format evalstream knows but does not read (Feather V1, gzip-compressed
	// Arrow or Parquet), with what to do about it.
	refused error
}

const (
	arrowMagic   = "ARROW1"
	parquetMagic = "PAR1"
	featherV1    = "FEA1"
	// sniffBytes is how much of a file is read to tell its format: the magic bytes, and
	// the schema message of a legacy (pre-0.15) Arrow stream, which has no marker.
	sniffBytes = 64 << 10
	// sniffFirst is how much is read first: enough for the magic bytes and the start of
	// JSON Lines text.
	sniffFirst = 4 << 10
)

// sniffFile reads the first bytes of the file at path. A FIFO or device is not opened: its
// open can wait for a writer (which no signal interrupts), and what it reads is gone for
// the reader of the records, so its format comes from its name or the configured format.
func sniffFile(path string) (sniffed, error) {
	if st, err := os.Stat(path); err != nil {
		return sniffed{}, err
	} else if !st.Mode().IsRegular() {
		return sniffed{}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return sniffed{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return sniffed{}, err
	}
	// Most files tell their format in their first bytes (magic, gzip, '{'); an Arrow stream is
	// told by its first message, which may be longer. A short run reads its input once more,
	// so this read is kept small when it can be.
	head := make([]byte, min(st.Size(), sniffBytes))
	n, err := io.ReadFull(f, head[:min(len(head), sniffFirst)])
	if err != nil && err != io.ErrUnexpectedEOF {
		return sniffed{}, err
	}
	s := sniff(head[:n], st.Size())
	if n < len(head) && s.format != FormatJSONL && (!s.binary || s.format == FormatArrows) {
		m, err := io.ReadFull(f, head[n:])
		if err != nil && err != io.ErrUnexpectedEOF {
			return sniffed{}, err
		}
		n += m
		s = sniff(head[:n], st.Size())
	}
	head = head[:n]
	if s.format == FormatJSONL && len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return sniffed{}, err
		}
		s.refused = gzippedBinary(f)
	}
	return s, nil
}

// sniff tells the format from head, the first bytes of a file of size bytes.
func sniff(head []byte, size int64) sniffed {
	switch {
	case bytes.HasPrefix(head, []byte(arrowMagic)):
		return sniffed{format: FormatArrow, binary: true}
	case bytes.HasPrefix(head, []byte(parquetMagic)):
		return sniffed{format: FormatParquet, binary: true}
	case bytes.HasPrefix(head, []byte(featherV1)):
		return sniffed{format: FormatArrow, binary: true, refused: errFeatherV1}
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return sniffed{format: FormatJSONL}
	case arrowsrc.IsStream(head, size):
		return sniffed{format: FormatArrows, binary: true}
	}
	text := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(text) > 0 && text[0] == '{':
		return sniffed{format: FormatJSONL}
	case len(text) > 0 && text[0] == '[':
		return sniffed{jsonArray: true}
	}
	return sniffed{}
}

var errFeatherV1 = fmt.Errorf("%w: a Feather V1 file (magic FEA1, written by feather.write_feather(..., version=1) or pandas before 0.25), which evalstream does not read; "+
	"convert it to an Arrow IPC file (Feather V2) with pyarrow: "+
	"pyarrow.feather.write_feather(pyarrow.feather.read_table(\"in.feather\"), \"out.arrow\")", ErrFormat)

// gzippedBinary reports gzip data holding an Arrow or Parquet file: their readers need the
// file itself (Parquet and Arrow IPC files are read from their footer), and their columns
// carry their own compression.
func gzippedBinary(r io.Reader) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil // the JSON Lines reader reports the bad gzip header
	}
	defer gz.Close()
	var head [8]byte
	n, _ := io.ReadFull(gz, head[:])
	s := sniff(head[:n], 1<<62)
	var what string
	switch {
	case s.refused != nil:
		what = "Feather V1"
	case s.format == FormatArrow:
		what = "an Arrow IPC file"
	case s.format == FormatParquet:
		what = "a Parquet file"
	case bytes.HasPrefix(head[:n], []byte{0xff, 0xff, 0xff, 0xff}):
		what = "an Arrow IPC stream"
	default:
		return nil
	}
	return fmt.Errorf("%w: gzip-compressed data holding %s; decompress it first (gunzip -k), or write it compressed inside (pyarrow: compression='zstd')", ErrFormat, what)
}

// family groups the formats read by one reader: "arrows" and "arrow" are both Arrow IPC, and
// which of the two a file is comes from its bytes.
func family(f string) string {
	if f == FormatArrows {
		return FormatArrow
	}
	return f
}

func describe(f string) string {
	switch f {
	case FormatArrow:
		return "an Arrow IPC file"
	case FormatArrows:
		return "an Arrow IPC stream"
	case FormatParquet:
		return "a Parquet file"
	case FormatJSONL:
		return "JSON Lines (or gzip)"
	}
	return f
}

// errCannotTell is the error for a file whose format neither its bytes nor its name tell.
func errCannotTell(path string, s sniffed) error {
	if s.jsonArray {
		return fmt.Errorf("sources: %s: %w: the file is one JSON document (it starts with '['), not JSON Lines (one object per line, as pandas to_json(orient='records', lines=True) writes); "+
			"to read its lines as JSON Lines anyway, set --input-format jsonl (config key source.format)", path, ErrFormat)
	}
	return fmt.Errorf("sources: %s: %w: cannot tell the format from the first bytes or the extension "+
		"(Arrow IPC files start with ARROW1, streams with 0xFFFFFFFF, Parquet with PAR1, gzip with 1f 8b, JSON Lines with '{'; "+
		"extensions: .jsonl, .ndjson, .arrow, .arrows, .feather, .ipc, .parquet, .pq, and .gz for JSON Lines); "+
		"set the format with --input-format or the config key source.format (jsonl, arrow, arrows or parquet)", path, ErrFormat)
}

// resolve returns the format path is read with under c: the one its bytes tell (JSON Lines
// for gzip and text starting with '{'), else its extension's. With an explicit format, a file whose bytes tell
// another format is an error, except that "arrow" and "arrows" both read Arrow IPC files
// and streams (the bytes tell which).
func (c FileConfig) resolve(path string) (string, error) {
	s, err := sniffFile(path)
	if err != nil {
		return "", fmt.Errorf("sources: %w", err)
	}
	if s.refused != nil {
		return "", fileread.FileError(path, "", s.refused)
	}
	want := c.format()
	if want == FormatAuto {
		switch {
		case s.format != "":
			return s.format, nil
		case format.FromName(path) != "":
			return format.FromName(path), nil
		}
		return "", errCannotTell(path, s)
	}
	if s.format != "" && family(s.format) != family(want) && (s.binary || want != FormatJSONL) {
		return "", fileread.FileError(path, "", fmt.Errorf("%w: the format is set to %s (--input-format / source.format), but the file is %s by its first bytes; set the format to %s or auto",
			ErrFormat, want, describe(s.format), s.format))
	}
	if s.binary {
		return s.format, nil
	}
	return want, nil
}

// selects reports whether a file found by listing a directory (inDir) or matching a glob
// belongs to c. Listing a directory takes the files whose bytes are Arrow or Parquet and the
// files with a data extension (not .json: next to data, those are often metadata, such as HF
// datasets' dataset_info.json and state.json; a glob such as dir/*.json selects them); a
// glob takes every file whose format can be told. With a format, only files of that format:
// by their bytes (Arrow IPC file or stream for both arrow and arrows) or, when the bytes do
// not tell, by their extension (for jsonl, a glob also takes files whose format cannot be
// told: text has no magic).
func (c FileConfig) selects(path string, inDir bool) (bool, error) {
	s, err := sniffFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil // removed since it was listed
		}
		return false, fmt.Errorf("sources: %w", err)
	}
	want := c.format()
	ext := format.FromName(path)
	if want == FormatAuto {
		if ext != "" || s.binary || s.refused != nil {
			return true, nil
		}
		return !inDir && s.format != "", nil
	}
	if s.binary {
		return family(s.format) == family(want), nil
	}
	if inDir {
		return ext != "" && family(ext) == family(want), nil
	}
	if s.format != "" {
		return family(s.format) == family(want), nil
	}
	if ext != "" {
		return family(ext) == family(want), nil
	}
	return !inDir && want == FormatJSONL, nil // text has no magic: a glob chose it
}
