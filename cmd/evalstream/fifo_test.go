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

// TestInterruptWhileFIFOInputWaits sends SIGINT to a run reading a FIFO whose writer stays
// open (or has not opened it yet): the open and the reads of a FIFO block in the kernel, and
// the run must still stop with 130. The 10 s bound only turns a hang into a failure.
func TestInterruptWhileFIFOInputWaits(t *testing.T) {
	cases := []struct {
		name string
		fifo string
		data string // written by a writer that keeps the FIFO open; "" = no writer ever
		args []string
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
			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
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
			require.Equal(t, 130, ee.ExitCode(), errb.String())
			require.Contains(t, errb.String(), "SIGINT")
		})
	}
}
