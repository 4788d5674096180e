// Package sinks writes results: an aligned terminal table, the results JSON, CSV, a JSONL
// history, per-record scores, dead letters, and (in continuous Kafka mode) Kafka and
// Prometheus. File sinks never leave a partial file behind: they write a temporary file in
// the destination directory and rename it into place only when complete.
package sinks

import (
	"fmt"
	"os"
	"path/filepath"
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
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// AtomicFile is a file written under a temporary name and renamed into place by Commit.
// It is not safe for concurrent use.
type AtomicFile struct {
	*os.File
	path string
	done bool
}

// CreateAtomic creates the temporary file for path (creating path's directory if needed).
func CreateAtomic(path string) (*AtomicFile, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create directory for %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &AtomicFile{File: f, path: path}, nil
}

// Commit syncs, closes and renames the file into place.
func (f *AtomicFile) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		_ = os.Chmod(f.File.Name(), 0o644)
		err = os.Rename(f.File.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.File.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file.
func (f *AtomicFile) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}
