//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInterruptWhileFIFOInputWaits sends SIGINT (or SIGTERM) to a run reading a FIFO whose
// writer stays open (or has not opened it yet): the open and the reads of a FIFO block in
// the kernel, and the run must still stop with 130 (143). The 10 s bound only turns a hang
// into a failure.
func TestInterruptWhileFIFOInputWaits(t *testing.T) {
	cases := []struct {
		name string
		fifo string
		data string // written by a writer that keeps the FIFO open; "" = no writer ever
		// dataFile, when set, is written instead of data: an Arrow IPC stream without its
		// end-of-stream marker (the last 8 bytes), so that the run waits for more batches.
		dataFile string
		sig      syscall.Signal // SIGINT when 0
		args     []string
	}{
		{name: "jsonl, writer open", fifo: "in.jsonl", data: `{"prediction": 1, "label": 1}` + "\n",
			args: []string{"score", "--metric", "accuracy", "in.jsonl"}},
		{name: "jsonl, no writer yet", fifo: "in.jsonl",
			args: []string{"score", "--metric", "accuracy", "in.jsonl"}},
		{name: "text reference, writer open", fifo: "ref.txt", data: "the cat sat\n",
			args: []string{"score", "-r", "ref.txt", "--metric", "bleu", "sys.txt"}},
		{name: "text reference, no writer yet", fifo: "ref.txt",
			args: []string{"score", "-r", "ref.txt", "--metric", "bleu", "sys.txt"}},
		{name: "text hypothesis, writer open", fifo: "sys.txt", data: "the cat sat\n",
			args: []string{"score", "-r", "ref.txt", "--metric", "bleu", "sys.txt"}},
		{name: "arrow stream, writer open", fifo: "in.arrows", dataFile: "../../testdata/interop/files/pyarrow_stream.arrows",
			args: []string{"score", "--metric", "bleu", "--on-error", "skip", "in.arrows"}},
		{name: "arrow stream, writer open, SIGTERM", fifo: "in.arrows", dataFile: "../../testdata/interop/files/polars_ipc_stream_newest_zstd.arrows",
			sig: syscall.SIGTERM, args: []string{"score", "--metric", "bleu", "--on-error", "skip", "in.arrows"}},
		{name: "arrow stream, no writer yet", fifo: "in.arrows",
			args: []string{"score", "--metric", "bleu", "in.arrows"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"ref.txt", "sys.txt"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("the cat sat\n"), 0o644))
			}
			p := filepath.Join(dir, tc.fifo)
			require.NoError(t, os.RemoveAll(p))
			require.NoError(t, syscall.Mkfifo(p, 0o644))
			if tc.dataFile != "" {
				b, err := os.ReadFile(tc.dataFile)
				require.NoError(t, err)
				require.Equal(t, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, b[len(b)-8:], "end-of-stream marker")
				tc.data = string(b[:len(b)-8])
			}
			if tc.data != "" {
				// O_RDWR opens a FIFO without waiting for a reader (Linux), and keeps a
				// writer on it for the whole test.
				w, err := os.OpenFile(p, os.O_RDWR, 0)
				require.NoError(t, err)
				defer w.Close()
				_, err = w.WriteString(tc.data)
				require.NoError(t, err)
			}
			cmd := exec.Command(binary, tc.args...)
			cmd.Dir = dir
			var errb bytes.Buffer
			cmd.Stderr = &errb
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(700 * time.Millisecond) // let it reach the blocking open or read
			sig, code, name := syscall.SIGINT, 130, "SIGINT"
			if tc.sig == syscall.SIGTERM {
				sig, code, name = syscall.SIGTERM, 143, "SIGTERM"
			}
			require.NoError(t, cmd.Process.Signal(sig))
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after SIGINT; stderr: %s", errb.String())
			}
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, errb.String())
			require.Equal(t, code, ee.ExitCode(), errb.String())
			require.Contains(t, errb.String(), name)
		})
	}
}
