package fileread

import (
	"sync"
	"sync/atomic"
)

// LineChunkSize is the largest size of the buffers lines are read into (LineChunkSizeFor
// picks a smaller one for a small file). A buffer handed out (through the lines of a batch)
// is never written again: a new one is started when it is full. For a consumer that decodes
// in deferred mode (pipeline.WithDeferredDecode: its batches' lines, Raw included, are valid
// until Release), a full buffer is reused once the reader has moved past it and every batch
// aliasing it is released, so reading allocates nothing in the steady state; buffers that a
// batch of the plain mode aliases are never reused (their Raw stays valid after Release).
// 256 KiB is small next to the lines of the batches in flight, so few buffers are ever fresh
// memory (each fresh page costs a page fault).
const LineChunkSize = 256 << 10

// minLineChunkSize is the smallest buffer size LineChunkSizeFor picks.
const minLineChunkSize = 64 << 10

// LineChunkSizeFor is the size of the line buffers of a file of size bytes (uncompressed;
// size < 0 when not known): about the bytes of one batch of it (see
// Builder.MaxBytes), between 64 KiB and LineChunkSize. In a short run every buffer is fresh
// memory unless it is reused, and a buffer is reused only once no batch in flight aliases
// it, which buffers as large as the file's batches allow.
func LineChunkSizeFor(size int64) int {
	if size < 0 {
		return LineChunkSize
	}
	n := minLineChunkSize
	for n < LineChunkSize && int64(n) < size/BatchShare {
		n *= 2
	}
	return n
}

// LineChunk is a buffer of JSON lines with its references: the reader's while it reads into
// it, and one per deferred batch whose lines alias it.
type LineChunk struct {
	Buf    []byte
	refs   atomic.Int32
	pinned atomic.Bool // a plain-mode batch aliases it: never reuse it
}

// lineChunks holds buffers ready for reuse (*LineChunk), by size: 64, 128 and 256 KiB.
var lineChunks [3]sync.Pool

// chunkPool returns the pool of buffers of size bytes, or nil for a size that is not pooled.
func chunkPool(size int) *sync.Pool {
	for i, n := 0, minLineChunkSize; n <= LineChunkSize; i, n = i+1, 2*n {
		if size == n {
			return &lineChunks[i]
		}
	}
	return nil
}

// NewLineChunk returns a buffer of size bytes with the caller's reference (a recycled one
// when size is one that LineChunkSizeFor picks).
func NewLineChunk(size int) *LineChunk {
	if p := chunkPool(size); p != nil {
		if c, _ := p.Get().(*LineChunk); c != nil {
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
	if c.refs.Add(-1) == 0 && !c.pinned.Load() {
		if p := chunkPool(len(c.Buf)); p != nil {
			p.Put(c)
		}
	}
}
