package fileread

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Recovered turns a panic of third-party decoding code (arrow/go v15 panics on some
// malformed input) into an error wrapping ErrCorrupt. Readers defer it at the
// boundary of third-party decoding, the only places they recover.
func Recovered(err *error) {
	if p := recover(); p != nil {
		if e, ok := p.(error); ok {
			*err = fmt.Errorf("%w: %w", ErrCorrupt, e)
		} else {
			*err = fmt.Errorf("%w: %v", ErrCorrupt, p)
		}
	}
}

// ErrAllocTooLarge is raised (as a panic, inside arrow's decoders) by LimitAllocator.
var ErrAllocTooLarge = errors.New("allocation larger than the file can justify")

// LimitAllocator refuses single allocations far larger than the file being decoded could
// need, so that a corrupted length field becomes an error instead of exhausting memory.
// When Live is set, it also refuses allocations that would take the bytes allocated and not
// yet freed past the limit: arrow/go's Parquet page reader holds the buffer of every page it
// skips until it returns, so a corrupted column chunk of many small pages claiming large
// sizes would otherwise exhaust memory one allowed allocation at a time. It is safe for
// concurrent use (batches are released on any goroutine).
type LimitAllocator struct {
	memory.Allocator
	Limit int
	Live  *atomic.Int64 // bytes allocated and not freed; nil: not counted
}

// Allocate panics with ErrAllocTooLarge past the limit (arrow/go's decoders have no error
// path there; the reader recovers).
func (a LimitAllocator) Allocate(size int) []byte {
	a.reserve(size, size)
	return a.Allocator.Allocate(size)
}

// Reallocate is Allocate for a buffer that grows (or shrinks) from b.
func (a LimitAllocator) Reallocate(size int, b []byte) []byte {
	a.reserve(size, size-len(b))
	return a.Allocator.Reallocate(size, b)
}

// Free gives b back, and its bytes to the live budget.
func (a LimitAllocator) Free(b []byte) {
	if a.Live != nil {
		a.Live.Add(-int64(len(b)))
	}
	a.Allocator.Free(b)
}

// reserve panics with ErrAllocTooLarge unless an allocation of size bytes, growing the live
// bytes by grow, is within the limit.
func (a LimitAllocator) reserve(size, grow int) {
	if size < 0 || size > a.Limit {
		panic(fmt.Errorf("%w: %d bytes", ErrAllocTooLarge, size))
	}
	if a.Live != nil {
		if live := a.Live.Add(int64(grow)); live > int64(a.Limit) {
			a.Live.Add(-int64(grow))
			panic(fmt.Errorf("%w: %d bytes live", ErrAllocTooLarge, live))
		}
	}
}

// AllocLimit is the LimitAllocator limit for decoding a file of size bytes.
func AllocLimit(size int64) int {
	// Compressed Arrow buffers may expand a lot; stay generous but bounded.
	const slack, limit = 64 << 20, 1 << 46
	if size < 0 || size > (limit-slack)/1024 {
		return limit
	}
	return int(size*1024 + slack)
}
