package arrow

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow/go/v15/arrow/memory"
)

// bodyPool is the memory.Allocator the buffers of Arrow IPC message bodies come from. Arrow
// frees a body when the last array that aliases it is released (Batch.Release), and the pool
// hands the buffer to the next message instead of leaving it to the garbage collector: reading
// a large file then allocates almost nothing, and the collector does not run every few
// megabytes. Buffers are not zeroed: a body is always overwritten entirely by the file's
// bytes before anything reads it (safeMessageReader), so it must not be used for anything
// else. At most poolKeepBytes stay in the pool.
type bodyPool struct {
	mu    sync.Mutex
	free  [64][][]byte // by size class: capacity 1<<class
	bytes int          // total capacity held in free
	zero  bool         // Allocate returns zeroed memory, as memory.GoAllocator does
}

const (
	poolMinClass  = 12 // 4 KiB: smaller bodies are left to the garbage collector
	poolKeepBytes = 64 << 20
)

var arrowBodies = &bodyPool{}

// arrowBuffers recycles the buffers arrow/go's IPC reader allocates for every column of a
// record batch (it copies each one out of the message body). They are zeroed like fresh
// memory, so arrow sees exactly what its own allocator would give, without the garbage.
var arrowBuffers = &bodyPool{zero: true}

// ScratchBuffers returns the recycling pool of buffers that are not zeroed (arrowBodies), for
// buffers their user overwrites entirely before anything reads them (package parquet's
// decompressed pages and dictionary indices): what a freed buffer held shows through
// otherwise. It is safe for concurrent use; as with ColumnBuffers, every Release of a buffer
// must be paired with its Retains.
func ScratchBuffers() memory.Allocator { return arrowBodies }

// ColumnBuffers returns the recycling pool of zeroed column buffers (arrowBuffers) for the
// buffers of records a RecordIter builds itself (package parquet's dictionary indices): the
// converted batches hold them until Batch.Release, which frees them back to the pool. It is
// safe for concurrent use. Only buffers whose every Release is paired with their Retains may
// come from it, as with any arrow allocator: the pool reuses a buffer once it is freed.
func ColumnBuffers() memory.Allocator { return arrowBuffers }

func sizeClass(size int) int {
	if size <= 1<<poolMinClass {
		return poolMinClass
	}
	return bits.Len(uint(size - 1))
}

// Allocate returns a buffer of size bytes (its contents are arbitrary).
func (p *bodyPool) Allocate(size int) []byte {
	if size < 1<<poolMinClass/2 || size > 1<<40 {
		return make([]byte, size)
	}
	c := sizeClass(size)
	p.mu.Lock()
	if l := p.free[c]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[c] = l[:len(l)-1]
		p.bytes -= cap(b)
		p.mu.Unlock()
		if p.zero {
			clear(b[:size])
		}
		return b[:size]
	}
	p.mu.Unlock()
	return make([]byte, size, 1<<c)
}

// Reallocate grows or shrinks b to size bytes, keeping its contents.
func (p *bodyPool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		if p.zero && size > len(b) {
			clear(b[len(b):size]) // the spare capacity may hold an earlier use's bytes
		}
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free takes back a buffer that nothing references any more.
func (p *bodyPool) Free(b []byte) {
	c := cap(b)
	if c < 1<<poolMinClass || c&(c-1) != 0 {
		return
	}
	k := bits.TrailingZeros(uint(c))
	p.mu.Lock()
	if p.bytes+c <= poolKeepBytes {
		p.free[k] = append(p.free[k], b[:0])
		p.bytes += c
	}
	p.mu.Unlock()
}
