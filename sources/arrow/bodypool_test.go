package arrow

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBodyPool(t *testing.T) {
	p := &bodyPool{}
	small := p.Allocate(100)
	require.Len(t, small, 100)
	b := p.Allocate(5000)
	require.Len(t, b, 5000)
	require.Equal(t, 8192, cap(b))
	b[0], b[4999] = 1, 2
	b = p.Reallocate(6000, b) // fits the capacity: same buffer
	require.Equal(t, byte(2), b[4999])
	b2 := p.Reallocate(10000, b)
	require.Equal(t, []byte{1, 2}, []byte{b2[0], b2[4999]})
	require.Equal(t, 16384, cap(b2))
	p.Free(b2)
	again := p.Allocate(9000)
	require.Equal(t, &b2[:1][0], &again[:1][0], "a freed buffer is handed out again")
	p.Free(small) // not pooled
	p.Free(make([]byte, 5000))
	for i := 0; i < 100; i++ {
		p.Free(make([]byte, 0, 1<<20))
	}
	require.LessOrEqual(t, p.bytes, poolKeepBytes)
}

func TestZeroingPool(t *testing.T) {
	p := &bodyPool{zero: true}
	b := p.Allocate(5000)
	for i := range b {
		b[i] = 0xff
	}
	p.Free(b)
	b = p.Allocate(6000)
	require.Equal(t, make([]byte, 6000), b, "a recycled buffer comes back zeroed")
	for i := range b {
		b[i] = 0xff
	}
	b = p.Reallocate(7000, b[:100])
	require.Equal(t, make([]byte, 6900), b[100:], "grown bytes are zero")
	require.Equal(t, byte(0xff), b[99])
}

// In deferred mode, line buffers are reused once every batch aliasing them is released:
// lines (and Raw) stay intact until then, across many buffers, with long lines and gzip.
