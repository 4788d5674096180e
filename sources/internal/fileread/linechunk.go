package fileread

import (
	"sync"
	"sync/atomic"
)

// LineChunkSize is the size of the buffers lines are read into. A buffer handed out (through
// the lines of a batch) is never written again: a new one is started when it is full. For a
// consumer that decodes in deferred mode (pipeline.WithDeferredDecode: its batches' lines,
// Raw included, are valid until Release), a full buffer is reused once the reader has moved
// past it and every batch aliasing it is released, so reading allocates nothing in the steady
// state; buffers that a batch of the plain mode aliases are never reused (their Raw stays
// valid after Release). 256 KiB is small next to the lines of the batches in flight, so few
// buffers are ever fresh memory (each fresh page costs a page fault).
const LineChunkSize = 256 << 10

// LineChunk is a buffer of JSON lines with its references: the reader's while it reads into
// it, and one per deferred batch whose lines alias it.
type LineChunk struct {
	Buf    []byte
	refs   atomic.Int32
	pinned atomic.Bool // a plain-mode batch aliases it: never reuse it
}

var lineChunks sync.Pool // *LineChunk with LineChunkSize bytes, ready for reuse

// NewLineChunk returns a buffer of size bytes with the caller's reference (a recycled one
// when size is LineChunkSize).
func NewLineChunk(size int) *LineChunk {
	if size == LineChunkSize {
		if c, _ := lineChunks.Get().(*LineChunk); c != nil {
			c.refs.Store(1)
			return c
		}
	}
	c := &LineChunk{Buf: make([]byte, size)}
	c.refs.Store(1)
	return c
}

// Release drops a reference; the last one makes the buffer reusable.
func (c *LineChunk) Release() {
	if c.refs.Add(-1) == 0 && !c.pinned.Load() && len(c.Buf) == LineChunkSize {
		lineChunks.Put(c)
	}
}
