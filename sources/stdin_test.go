package sources

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/stretchr/testify/require"
)

// pipeOf returns the read end of a real pipe that receives b (written by a goroutine, as a
// producer process would) and then closes.
func pipeOf(t *testing.T, b []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	go func() {
		_, _ = w.Write(b)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

func TestStdinGivesTheRecordsOfTheFile(t *testing.T) {
	interop := filepath.Join("..", "testdata", "interop", "files")
	fields := []string{"id", "prediction", "references", "label", "scores", "y_true", "missing"}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return b
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(read(filepath.Join(interop, "records.jsonl")))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	tests := []struct {
		name   string
		file   string // the same records as a file
		stdin  []byte
		format string
	}{
		{name: "pyarrow stream", file: "pyarrow_stream.arrows"},
		{name: "pyarrow stream, zstd buffers", file: "pyarrow_stream_zstd.arrows"},
		{name: "pre-0.15 stream", file: "pyarrow_stream_legacy.arrows"},
		{name: "polars stream, lz4", file: "polars_ipc_stream_newest_lz4.arrows"},
		{name: "stream with arrow format set", file: "pyarrow_stream.arrows", format: FormatArrow},
		{name: "JSON Lines", file: "records.jsonl"},
		{name: "JSON Lines with jsonl format set", file: "records.jsonl", format: FormatJSONL},
		{name: "gzip JSON Lines", file: "records.jsonl", stdin: gz.Bytes()},
		{name: "dirty stream (NaN, bad UTF-8)", file: filepath.Join("..", "..", "dirty", "dirty.arrows")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(interop, tc.file)
			in := tc.stdin
			if in == nil {
				in = read(path)
			}
			for _, bs := range []int{1, 7, 1024} {
				want := drain(t, openFile(t, FileConfig{Path: path}, fields, bs))
				src, err := openFiles(FileConfig{Path: Stdin, Format: tc.format, Stdin: pipeOf(t, in)}, fields, bs, 0, memory.DefaultAllocator)
				require.NoError(t, err)
				got := drain(t, src)
				require.NotEmpty(t, got.recs)
				require.Len(t, got.recs, len(want.recs))
				for i := range want.recs {
					require.Equal(t, Stdin, got.recs[i].File)
					got.recs[i].File = want.recs[i].File
				}
				require.Equal(t, want.recs, got.recs)
			}
		})
	}
}

func openFile(t *testing.T, c FileConfig, fields []string, bs int) *fileread.Source {
	t.Helper()
	s, err := openFiles(c, fields, bs, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	return s
}

func TestStdinRefusals(t *testing.T) {
	interop := filepath.Join("..", "testdata", "interop", "files")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(interop, name))
		require.NoError(t, err)
		return b
	}
	stream := read("pyarrow_stream.arrows")
	tests := []struct {
		name   string
		stdin  []byte
		format string
		open   []string // substrings of the error of OpenFiles (wrapping ErrFormat)
		next   string   // else: substring of the error of reading (wrapping ErrCorrupt)
	}{
		{name: "Arrow IPC file", stdin: read("pyarrow_file.arrow"), open: []string{"an Arrow IPC file", "read from its footer", "give its path"}},
		{name: "Parquet", stdin: read("pyarrow.pq"), open: []string{"a Parquet file", "read from its footer"}},
		{name: "Feather V1", stdin: read("pyarrow_v1.feather"), open: []string{"Feather V1"}},
		{name: "plain text", stdin: []byte("a sentence\n"), open: []string{"cannot tell the format"}},
		{name: "empty", stdin: nil, open: []string{"cannot tell the format"}},
		{name: "stream with jsonl set", stdin: stream, format: FormatJSONL, open: []string{"set to jsonl", "an Arrow IPC stream by its first bytes"}},
		{name: "stream cut short", stdin: stream[:len(stream)-100], next: "unexpected EOF"},
		{name: "stream without its end marker", stdin: stream[:len(stream)-8], next: "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := openFiles(FileConfig{Path: Stdin, Format: tc.format, Stdin: pipeOf(t, tc.stdin)}, []string{"prediction"}, 64, 0, memory.DefaultAllocator)
			if len(tc.open) > 0 {
				require.ErrorIs(t, err, ErrFormat)
				for _, s := range tc.open {
					require.ErrorContains(t, err, s)
				}
				return
			}
			require.NoError(t, err)
			defer src.Close()
			for {
				b, err := src.Next(t.Context())
				if err != nil {
					require.ErrorIs(t, err, ErrCorrupt)
					require.ErrorContains(t, err, tc.next)
					require.ErrorContains(t, err, "sources: -:")
					return
				}
				if b.Release != nil {
					b.Release()
				}
			}
		})
	}
}

func TestExpandStdinReadsNothing(t *testing.T) {
	r := pipeOf(t, []byte(`{"prediction": "a"}`+"\n"))
	files, err := Expand(FileConfig{Path: Stdin, Stdin: r})
	require.NoError(t, err)
	require.Equal(t, []string{Stdin}, files)
	src, err := openFiles(FileConfig{Path: Stdin, Stdin: r}, []string{"prediction"}, 8, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	require.Len(t, drain(t, src).recs, 1)
}
