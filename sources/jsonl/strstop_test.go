package jsonl

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStrStop checks strStop (assembly on amd64) against a byte-by-byte scan at every
// length and alignment, with the stop byte at every position, and with two-byte UTF-8
// sequences (stepped over) and broken ones (stops).
func TestStrStop(t *testing.T) {
	slow := func(b []byte) int {
		for i := 0; i < len(b); i++ {
			if !strStopByte[b[i]] {
				continue
			}
			if i+1 < len(b) && b[i] >= 0xc2 && b[i] <= 0xdf && b[i+1] >= 0x80 && b[i+1] <= 0xbf {
				i++
				continue
			}
			return i
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
	// Stop bytes after two-byte characters, at every position.
	for n := 0; n <= 70; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a'
		}
		for k := 0; k+1 < n; k += 3 {
			b[k], b[k+1] = 0xc3, 0xa4 // ä
		}
		require.Equal(t, n, strStop(b), "length %d", n)
		require.Equal(t, n, strStopGeneric(b), "length %d", n)
		for p := 0; p < n; p++ {
			old := b[p]
			b[p] = '"'
			require.Equal(t, slow(b), strStop(b), "quote at %d of %q", p, b)
			require.Equal(t, slow(b), strStopGeneric(b), "quote at %d of %q", p, b)
			b[p] = old
		}
	}
	// Random bytes, and random mixes of ASCII, two-byte characters and bytes that break them.
	pieces := [][]byte{{'a'}, {'b'}, {' '}, {0xc3, 0xa4}, {0xc2, 0x80}, {0xdf, 0xbf}, {0xc3}, {0xa4}, {0xc1, 0x80}, {0xe0, 0xa4}, {0xe2, 0x80, 0x99}, {0xc3, 0xc3}, {'"'}, {'\\'}, {0x1f}}
	for range 20000 {
		b := make([]byte, rng.Intn(100))
		rng.Read(b)
		require.Equal(t, slow(b), strStop(b), "%q", b)
		require.Equal(t, slow(b), strStopGeneric(b), "%q", b)
		b = b[:0]
		for range rng.Intn(60) {
			if rng.Intn(3) == 0 {
				b = append(b, pieces[rng.Intn(len(pieces))]...)
			} else {
				b = append(b, pieces[rng.Intn(4)]...)
			}
		}
		require.Equal(t, slow(b), strStop(b), "%q", b)
		require.Equal(t, slow(b), strStopGeneric(b), "%q", b)
	}
}
