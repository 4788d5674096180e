//go:build unix

package sinks

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/evalstream/evalstream/pipeline"
	"github.com/stretchr/testify/require"
)

// A pipe (or a device: /dev/stdout, /dev/null) is written in place: a rename over it would
// replace it with a regular file, which root may do, for every program on the machine.
func TestAtomicWriteOfAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, tc := range []struct {
		name  string
		write func() error
	}{
		{"json", func() error { return (&JSON{Path: fifo}).Write(context.Background(), sample()) }},
		{"csv", func() error { return (&CSV{Path: fifo}).Write(context.Background(), sample()) }},
		{"jsonl", func() error { return (&JSONL{Path: fifo}).Write(context.Background(), sample()) }},
		{"bytes", func() error { return WriteFileAtomic(fifo, []byte("x\n")) }},
		{"dead letters", func() error {
			rf, err := NewRecordFiles(fifo, "", "", nil)
			if err == nil {
				err = rf.WriteBatch(context.Background(), []pipeline.DeadLetter{{Reason: "invalid json", Raw: []byte("{")}}, nil)
			}
			if err == nil {
				err = rf.Commit()
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan []byte)
			go func() {
				b, _ := os.ReadFile(fifo) // blocks until the sink opens the pipe; ends when it closes it
				got <- b
			}()
			require.NoError(t, tc.write())
			require.NotEmpty(t, <-got)
			st, err := os.Lstat(fifo)
			require.NoError(t, err)
			require.NotZero(t, st.Mode()&os.ModeNamedPipe, "still a pipe")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temporary file")
		})
	}
}
