// Package sinks writes results: an aligned terminal table, the results JSON, CSV, a JSONL
// history, per-record scores, dead letters, and (in continuous Kafka mode) Kafka and
// Prometheus. File sinks never leave a partial file behind: they write a temporary file in
// the destination directory and rename it into place only when complete; appends that fail
// midway are cut back to the file's previous end.
package sinks

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFileAtomic writes data to path through a temporary file and a rename, so readers see
// either the old file or the complete new one. On error nothing is left behind.
func WriteFileAtomic(path string, data []byte) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// AtomicFile is a file written under a temporary name and renamed into place by Commit.
// It is not safe for concurrent use.
type AtomicFile struct {
	*os.File
	path     string
	finished bool // synced and closed (Finish)
	done     bool // renamed into place or removed
	// direct: path is a device or a pipe (/dev/stdout, /dev/null, a FIFO), written in
	// place: it cannot be replaced by a rename, and renaming over it (which root may do)
	// would destroy the device node.
	direct bool
}

// CheckWritable fails when a file could not be written at path: path is a directory, or its
// directory cannot be created or written. A run calls it for every output before reading
// its input, so that a mistake in the config fails in a second rather than after the run.
func CheckWritable(path string) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// CheckAppendable is CheckWritable for a file that is appended to: an existing file at
// path must also be open for writing.
func CheckAppendable(path string) error {
	if err := CheckWritable(path); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, pathErrCause(err))
	}
	return f.Close()
}

// CreateAtomic creates the temporary file for path (creating path's directory if needed).
// A path naming an existing directory is an error; one naming a device or a pipe is opened
// for writing in place.
func CreateAtomic(path string) (*AtomicFile, error) {
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.IsDir():
			return nil, &os.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
		case !st.Mode().IsRegular():
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("open %s: %w", path, err)
			}
			return &AtomicFile{File: f, path: path, direct: true}, nil
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The temporary name means nothing to the user.
		return nil, fmt.Errorf("create %s: %w", path, pathErrCause(err))
	}
	return &AtomicFile{File: f, path: path}, nil
}

// Write writes to the file; an error names the destination path, not the temporary one.
func (f *AtomicFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", f.path, pathErrCause(err))
	}
	return n, err
}

// WriteString is Write of a string.
func (f *AtomicFile) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// pathErrCause strips the operation and file name from a file system error.
func pathErrCause(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// Finish syncs and closes the file without moving it into place, so that a run can make
// sure that all its files are written before it moves any (Commit). On error the temporary
// file is removed.
func (f *AtomicFile) Finish() error {
	if f.finished || f.done {
		return nil
	}
	f.finished = true
	var err error
	if !f.direct {
		err = f.File.Sync()
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.done = true
		if !f.direct {
			os.Remove(f.File.Name())
		}
		return fmt.Errorf("write %s: %w", f.path, pathErrCause(err))
	}
	return nil
}

// Commit finishes the file (Finish) and renames it into place.
func (f *AtomicFile) Commit() error {
	if f.done {
		return nil
	}
	if err := f.Finish(); err != nil {
		return err
	}
	f.done = true
	if f.direct {
		return nil
	}
	_ = os.Chmod(f.File.Name(), 0o644)
	if err := os.Rename(f.File.Name(), f.path); err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("write %s: %w", f.path, pathErrCause(err))
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// syncDir makes a rename in dir durable. Some file systems cannot sync a directory; the
// file itself is already synced, so that failure is ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Abort closes and removes the temporary file.
func (f *AtomicFile) Abort() {
	if f.done {
		return
	}
	f.done = true
	if !f.finished {
		f.File.Close()
	}
	if !f.direct {
		os.Remove(f.File.Name())
	}
}

// appendFile appends data to path (created if missing) with one write and syncs it. If the
// write fails midway (a full disk), the file is cut back to its previous end: a partial
// line would corrupt every later line of a JSONL file. Devices and pipes are written as
// they are, without sync or cut. Concurrent appenders must be serialized by the caller.
func appendFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	regular := st.Mode().IsRegular()
	end, _ := f.Seek(0, io.SeekEnd)
	_, err = f.Write(data)
	if err == nil && regular {
		err = f.Sync()
	}
	if err != nil {
		if regular {
			_ = f.Truncate(end)
		}
		f.Close()
		return &os.PathError{Op: "append to", Path: path, Err: pathErrCause(err)}
	}
	return f.Close()
}
