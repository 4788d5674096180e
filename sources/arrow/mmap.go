package arrow

import (
	"os"
	"sync/atomic"
)

// mappedFile is a read-only memory map of an Arrow IPC file (or stream). Message bodies are
// handed to arrow as slices of the map instead of being read into the heap first, as
// pyarrow's memory_map does. arrow/go v15 copies every column buffer out of a body
// (ipcSource.buffer), so the reader drops the pages behind it as it goes
// (safeMessageReader.dropConsumed) and the resident memory does not grow with the file. The
// map lives until the reader is closed and arrow has freed every body. Reading a mapped file
// that is truncated meanwhile would fault: inputs must not be modified while read.
type mappedFile struct {
	data []byte
	refs atomic.Int64 // the reader's, plus one per live body
}

// mapFile maps f (size bytes), or returns nil when the platform or the file does not allow it
// (the caller then reads the file).
func mapFile(f *os.File, size int64) *mappedFile {
	data := mmapFile(f, size)
	if data == nil {
		return nil
	}
	m := &mappedFile{data: data}
	m.refs.Store(1)
	return m
}

func (m *mappedFile) retain() { m.refs.Add(1) }

// release drops a reference; the last one unmaps the file.
func (m *mappedFile) release() {
	if m.refs.Add(-1) == 0 {
		munmapFile(m.data)
		m.data = nil
	}
}

// Allocate and Reallocate are never called: bodies are slices of the map.
func (m *mappedFile) Allocate(size int) []byte { panic("sources: allocation from a mapped file") }

func (m *mappedFile) Reallocate(size int, b []byte) []byte {
	panic("sources: allocation from a mapped file")
}

// Free is called by arrow when it releases a body.
func (m *mappedFile) Free(b []byte) { m.release() }
