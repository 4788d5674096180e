//go:build linux

package fileread

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

var errStop = errors.New("stopped")

// TestOpenFileFIFOStopsWithContext: a FIFO's open (no writer yet) and its read (writer open,
// no data) both end with the context's cause; the data already written is read first.
func TestOpenFileFIFOStopsWithContext(t *testing.T) {
	cases := []struct {
		name   string
		writer bool
		data   string
	}{
		{name: "open waits for a writer"},
		{name: "read waits for data", writer: true},
		{name: "read waits after data", writer: true, data: "{\"a\": 1}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "in.jsonl")
			require.NoError(t, syscall.Mkfifo(p, 0o644))
			if tc.writer {
				w, err := os.OpenFile(p, os.O_RDWR, 0) // a writer without waiting (Linux)
				require.NoError(t, err)
				defer w.Close()
				_, err = w.WriteString(tc.data)
				require.NoError(t, err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			type res struct {
				got []byte
				err error
			}
			done := make(chan res, 1)
			readAll := make(chan struct{}) // closed once the written data was read
			go func() {
				f, err := OpenFile(ctx, p)
				if err != nil {
					done <- res{nil, err}
					return
				}
				defer f.Close()
				buf := make([]byte, 64)
				var got []byte
				for {
					n, err := f.Read(buf)
					got = append(got, buf[:n]...)
					if n > 0 && len(got) == len(tc.data) {
						close(readAll)
					}
					if err != nil {
						done <- res{got, err}
						return
					}
				}
			}()
			if tc.data != "" {
				<-readAll // cancel only then, so that what is read is deterministic
			}
			cancel(errStop)
			r := <-done
			require.ErrorIs(t, r.err, errStop)
			require.Equal(t, tc.data, string(r.got))
			require.NotErrorIs(t, r.err, io.EOF)
		})
	}
}

// TestOpenFileRegularIsOSFile: a regular file is an *os.File, read as before.
func TestOpenFileRegularIsOSFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, err := OpenFile(ctx, p)
	require.NoError(t, err)
	defer f.Close()
	require.IsType(t, (*os.File)(nil), f)
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Equal(t, "x\n", string(b))
}
