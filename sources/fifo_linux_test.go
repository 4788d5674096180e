//go:build linux

package sources

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// streamFixture is an Arrow IPC stream written by pyarrow (testdata/interop).
const streamFixture = "../testdata/interop/files/pyarrow_stream.arrows"

var fifoFields = []string{"prediction", "references", "label", "score"}

// TestArrowsFIFOReadsTheWholeStream: an Arrow IPC stream through a FIFO gives the records of
// the same stream read from a regular file (a FIFO's size of 0 once made it read as empty).
func TestArrowsFIFOReadsTheWholeStream(t *testing.T) {
	want := drain(t, mustOpen(t, FileConfig{Path: streamFixture}))
	require.NotEmpty(t, want.recs)

	data, err := os.ReadFile(streamFixture)
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "in.arrows")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	wrote := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0) // waits for the reader
		if err != nil {
			wrote <- err
			return
		}
		_, err = w.Write(data)
		wrote <- errors.Join(err, w.Close())
	}()
	got := drain(t, mustOpen(t, FileConfig{Path: p}))
	require.NoError(t, <-wrote)
	require.Len(t, got.recs, len(want.recs))
	for i := range want.recs {
		w, g := want.recs[i], got.recs[i]
		require.Equal(t, p, g.File)
		require.Equal(t, w.Row, g.Row)
		require.Equal(t, w.Vals, g.Vals)
		require.Equal(t, w.Err, g.Err)
	}
}

// TestArrowsFIFOStopsWithContext: a run reading an Arrow IPC stream from a FIFO whose writer
// stays open (the stream is not finished) or that no writer has opened yet stops with the
// context's cause, not by waiting for more bytes.
func TestArrowsFIFOStopsWithContext(t *testing.T) {
	data, err := os.ReadFile(streamFixture)
	require.NoError(t, err)
	cases := []struct {
		name   string
		writer bool
		data   []byte
	}{
		{name: "no writer yet"},
		{name: "writer open, nothing written", writer: true},
		{name: "writer open, schema and batches without the end marker", writer: true, data: data[:len(data)-8]},
		{name: "writer open, half a message", writer: true, data: data[:len(data)/2]},
	}
	errStop := errors.New("stopped")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "in.arrows")
			require.NoError(t, syscall.Mkfifo(p, 0o644))
			var w *os.File
			if tc.writer {
				w, err = os.OpenFile(p, os.O_RDWR, 0) // a writer without waiting (Linux)
				require.NoError(t, err)
				defer w.Close()
				_, err = w.Write(tc.data)
				require.NoError(t, err)
			}
			src := mustOpen(t, FileConfig{Path: p})
			defer src.Close()
			ctx, cancel := context.WithCancelCause(context.Background())
			done := make(chan error, 1)
			go func() {
				for {
					b, err := src.Next(ctx)
					if err != nil {
						done <- err
						return
					}
					if b.Release != nil {
						b.Release()
					}
				}
			}()
			if len(tc.data) > 0 {
				// Cancel only once the reader has taken every byte written: it is then
				// past the open, and reading or about to read what never comes.
				for unread(t, w) > 0 {
					runtime.Gosched()
				}
			}
			cancel(errStop)
			err := <-done
			// A blocked open or read ends with the cause; a Next called after the end, with
			// ctx.Err(). Neither is the end of the input or a corrupt stream.
			require.True(t, errors.Is(err, errStop) || errors.Is(err, context.Canceled), "%v", err)
			require.NotErrorIs(t, err, io.EOF)
			require.NotErrorIs(t, err, fileread.ErrCorrupt)
		})
	}
}

// TestFooterFormatsRefuseFIFO: an Arrow IPC file or a Parquet file is read from its footer,
// which a FIFO does not have: it is refused by name, without waiting for a writer and
// without calling the input empty or corrupt.
func TestFooterFormatsRefuseFIFO(t *testing.T) {
	for _, name := range []string{"in.arrow", "in.parquet"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			require.NoError(t, syscall.Mkfifo(p, 0o644))
			_, err := openFiles(FileConfig{Path: p}, fifoFields, 4, 0, memory.DefaultAllocator)
			fi := fileread.Info{Path: p, Format: FormatArrow}
			if name == "in.parquet" {
				fi.Format = FormatParquet
			}
			// The reader refuses it too, should it be reached another way.
			_, rerr := open(fi, &fileread.Options{Fields: fifoFields, BatchSize: 4, Mem: memory.DefaultAllocator})
			for _, err := range []error{err, rerr} {
				require.ErrorIs(t, err, fileread.ErrFormat)
				require.NotErrorIs(t, err, fileread.ErrCorrupt)
				require.ErrorContains(t, err, p)
				require.ErrorContains(t, err, "not a regular file")
			}
		})
	}
}

// unread returns the number of bytes written to the pipe of w and not read yet.
func unread(t *testing.T, w *os.File) int {
	t.Helper()
	n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ) // FIONREAD
	require.NoError(t, err)
	return n
}

func mustOpen(t *testing.T, c FileConfig) *fileread.Source {
	t.Helper()
	src, err := openFiles(c, fifoFields, 4, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	return src
}

// TestStreamLargeRecordBatch: a stream's size is unknown (standard input, a FIFO), so the
// plausibility bound of a record batch's row count cannot come from it: a batch of more than
// 2^20 rows was called corrupt.
func TestStreamLargeRecordBatch(t *testing.T) {
	const rows = 1<<20 + 3
	b := array.NewInt8Builder(memory.NewGoAllocator())
	defer b.Release()
	for i := 0; i < rows; i++ {
		b.Append(int8(i % 3))
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "label", Type: arrow.PrimitiveTypes.Int8}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{col}, rows)
	defer rec.Release()
	dir := t.TempDir()
	file := filepath.Join(dir, "big.arrows")
	writeArrowFile(t, file, FormatArrows, rec)

	count := func(t *testing.T, c FileConfig) int {
		src, err := openFiles(c, []string{"label"}, 1<<16, 0, memory.DefaultAllocator)
		require.NoError(t, err)
		defer src.Close()
		n := 0
		for {
			b, err := src.Next(context.Background())
			if err == io.EOF {
				return n
			}
			require.NoError(t, err)
			n += len(b.Records)
			b.Release()
		}
	}
	t.Run("stdin", func(t *testing.T) {
		f, err := os.Open(file)
		require.NoError(t, err)
		defer f.Close()
		require.Equal(t, rows, count(t, FileConfig{Path: Stdin, Stdin: f}))
	})
	t.Run("fifo", func(t *testing.T) {
		p := filepath.Join(dir, "in.arrows")
		require.NoError(t, syscall.Mkfifo(p, 0o644))
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		wrote := make(chan error, 1)
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				wrote <- err
				return
			}
			_, err = w.Write(data)
			wrote <- errors.Join(err, w.Close())
		}()
		require.Equal(t, rows, count(t, FileConfig{Path: p}))
		require.NoError(t, <-wrote)
	})
	t.Run("regular file", func(t *testing.T) {
		require.Equal(t, rows, count(t, FileConfig{Path: file}))
	})
}
