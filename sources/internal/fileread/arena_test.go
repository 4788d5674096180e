package fileread

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// After Reset, an arena carves the same amount again from the byte chunks it filled before,
// without allocating, and slices carved between two Resets never overlap.
func TestArenaReusesByteChunks(t *testing.T) {
	var a Arena
	out := make([][]byte, 0, 40)
	fill := func() [][]byte {
		out = out[:0]
		for i := 0; i < 40; i++ {
			b := a.AllocBytes(10 << 10)
			for j := range b {
				b[j] = byte(i)
			}
			out = append(out, b)
		}
		return out
	}
	got := fill()
	for i, b := range got {
		require.Len(t, b, 10<<10)
		for _, c := range b {
			require.Equal(t, byte(i), c, "slice %d was overwritten", i)
		}
	}
	allocs := testing.AllocsPerRun(5, func() {
		a.Reset()
		fill()
	})
	require.Zero(t, allocs)
}

func TestLineChunkSizeFor(t *testing.T) {
	cases := []struct {
		size int64
		want int
	}{
		{-1, LineChunkSize},
		{0, 64 << 10},
		{1 << 20, 64 << 10},
		{3 << 20, 128 << 10},
		{6 << 20, 256 << 10},
		{1 << 40, LineChunkSize},
	}
	for _, tc := range cases {
		got := LineChunkSizeFor(tc.size)
		require.Equal(t, tc.want, got, "size %d", tc.size)
		require.NotNil(t, chunkPool(got), "size %d: %d is not pooled", tc.size, got)
	}
}
