package freshmem

import (
	"testing"

	"github.com/stretchr/testify/require"
)

type slot struct {
	k   uint64
	val int32
}

// Make is make: the length asked for, all zeros, whatever the size relative to a page.
func TestMakeIsZeroed(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 511, 512, 513, 4096, 100_003} {
		s := Make[slot](n)
		require.Len(t, s, n)
		for i := range s {
			require.Zero(t, s[i], "slot %d of %d", i, n)
		}
		b := Make[byte](n)
		require.Len(t, b, n)
		require.Equal(t, make([]byte, n), b)
	}
}

// Touch writes zeros only: a slice of zeros stays one, and it never writes past its end.
func TestTouchKeepsZeros(t *testing.T) {
	for _, n := range []int{0, 3, 1024, 3 * pageSize} {
		backing := make([]uint32, n+1)
		backing[n] = 7 // just past the slice
		Touch(backing[:n])
		require.Equal(t, uint32(7), backing[n])
		for i := range n {
			require.Zero(t, backing[i])
		}
	}
	Touch([]struct{}{{}, {}}) // zero-size elements: nothing to write
}
