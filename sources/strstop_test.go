package sources

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStrStop checks strStop (assembly on amd64) against a byte-by-byte scan at every
// length and alignment, with the stop byte at every position.
func TestStrStop(t *testing.T) {
	slow := func(b []byte) int {
		for i, c := range b {
			if strStopByte[c] {
				return i
			}
		}
		return len(b)
	}
	stops := []byte{'"', '\\', 0, 0x1f, 0x7f + 1, 0xc3, 0xff}
	plain := []byte{' ', '!', '#', '[', ']', 'a', 'Z', '0', 0x20, 0x7f, 0x5b, 0x21, 0x23}
	buf := make([]byte, 80)
	rng := rand.New(rand.NewSource(1))
	for off := 0; off < 16; off++ {
		for n := 0; off+n <= len(buf); n++ {
			b := buf[off : off+n]
			for i := range b {
				b[i] = plain[rng.Intn(len(plain))]
			}
			require.Equal(t, n, strStop(b), "no stop byte, offset %d, length %d", off, n)
			require.Equal(t, n, strStopGeneric(b))
			for p := 0; p < n; p++ {
				for _, c := range stops {
					b[p] = c
					require.Equal(t, p, strStop(b), "stop byte %#x at %d, offset %d, length %d", c, p, off, n)
					require.Equal(t, p, strStopGeneric(b), "generic: stop byte %#x at %d", c, p)
				}
				b[p] = plain[rng.Intn(len(plain))]
			}
		}
	}
	for range 20000 {
		b := make([]byte, rng.Intn(100))
		rng.Read(b)
		require.Equal(t, slow(b), strStop(b))
		require.Equal(t, slow(b), strStopGeneric(b))
	}
}
