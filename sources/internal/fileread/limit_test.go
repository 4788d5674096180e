package fileread

import (
	"math"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestLimitAllocator(t *testing.T) {
	a := LimitAllocator{Allocator: memory.NewGoAllocator(), Limit: 10}
	b := a.Allocate(10)
	b = a.Reallocate(5, b)
	a.Free(b)
	var err error
	func() {
		defer Recovered(&err)
		a.Allocate(11)
	}()
	require.ErrorIs(t, err, ErrAllocTooLarge)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Equal(t, 1<<46, AllocLimit(math.MaxInt64/2))
}

func TestLimitAllocatorLiveBytes(t *testing.T) {
	a := LimitAllocator{Allocator: memory.NewGoAllocator(), Limit: 10, Live: new(atomic.Int64)}
	b := a.Allocate(6)
	var err error
	func() {
		defer Recovered(&err)
		a.Allocate(5)
	}()
	require.ErrorIs(t, err, ErrAllocTooLarge)
	require.ErrorIs(t, err, ErrCorrupt)
	b = a.Reallocate(10, b)
	b = a.Reallocate(4, b)
	c := a.Allocate(6)
	a.Free(b)
	a.Free(c)
	require.Zero(t, a.Live.Load())
}
