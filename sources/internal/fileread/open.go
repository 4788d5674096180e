package fileread

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// OpenFile opens the file at path for reading. A regular file (or anything os.Open does
// not block on for long: a directory) is opened by os.Open and returned as is, so the
// normal path costs one stat more and nothing per read. Any other file (a FIFO, a
// character device) can block its reader for ever: the open of a FIFO waits for a writer,
// and a read waits for data while a writer keeps it open. Those are opened so that ctx
// interrupts both: when ctx ends, a waiting open returns context.Cause(ctx), and a read
// blocked then or made later returns it too. The caller owns the returned file and closes
// it; like an *os.File it is safe for concurrent use.
func OpenFile(ctx context.Context, path string) (io.ReadCloser, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return os.Open(path)
	}
	f, err := openWaiting(ctx, path, st.Mode()&os.ModeNamedPipe != 0)
	if err != nil {
		return nil, err
	}
	// os.Open registers a FIFO (and a terminal) with the runtime poller, so a read
	// deadline wakes a blocked Read. A file the poller refuses (/dev/zero, /dev/null)
	// does not block either, and its SetReadDeadline error is of no consequence.
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	return &ctxFile{f: f, ctx: ctx, stop: stop}, nil
}

// openWaiting opens path on a goroutine and returns when it is open or ctx ends. A FIFO's
// open waits in the kernel until a writer opens it: on ctx's end, opening it for writing
// without blocking completes the waiting open (the kernel counts the waiting reader), and
// the file it returns is closed. Should that fail (the open was not yet waiting), the
// goroutine is left to close whatever it gets: the command is stopping.
func openWaiting(ctx context.Context, path string, fifo bool) (*os.File, error) {
	type res struct {
		f   *os.File
		err error
	}
	done := make(chan res, 1)
	go func() {
		f, err := os.Open(path)
		done <- res{f, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && ctx.Err() != nil {
			r.f.Close()
			return nil, context.Cause(ctx)
		}
		return r.f, r.err
	case <-ctx.Done():
	}
	if fifo {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	go func() {
		if r := <-done; r.err == nil {
			r.f.Close()
		}
	}()
	return nil, context.Cause(ctx)
}

// ctxFile is a non-regular file whose reads end with context.Cause(ctx) once ctx ends.
type ctxFile struct {
	f    *os.File
	ctx  context.Context
	stop func() bool
}

func (c *ctxFile) Read(p []byte) (int, error) {
	n, err := c.f.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && c.ctx.Err() != nil {
		err = context.Cause(c.ctx)
	}
	return n, err
}

func (c *ctxFile) Close() error {
	c.stop()
	return c.f.Close()
}
