package fileread

import "unsafe"

// Arena hands out slices carved from a few large backing arrays owned by one batch. It
// never reallocates a backing array that slices were carved from, so earlier slices stay
// valid; a new chunk is started when the current one is full.
type Arena struct {
	strs   []string
	lists  [][]string
	floats []float64
	bytes  []byte
	// The byte chunks filled since the last Reset, and those free for reuse after it: a
	// batch's unescaped strings take a few chunks, and a run recycles its batches' arenas,
	// so that reading takes no fresh memory for them in the steady state.
	fullBytes, spareBytes [][]byte
}

const (
	arenaStrs   = 4096
	arenaLists  = 1024
	arenaFloats = 4096
	arenaBytes  = 64 << 10
)

// Reset forgets every slice carved so far (they must not be used any more) and keeps the
// current backing arrays for reuse.
func (a *Arena) Reset() {
	a.strs, a.lists, a.floats, a.bytes = a.strs[:0], a.lists[:0], a.floats[:0], a.bytes[:0]
	a.spareBytes = append(a.spareBytes, a.fullBytes...)
	clear(a.fullBytes)
	a.fullBytes = a.fullBytes[:0]
}

// EmptyStrs is the value of every empty list (JSON [] and empty Arrow lists). Consumers must
// not modify values, so sharing it is safe.
var EmptyStrs = []string{}

// AllocStrs returns n strings that are never handed out again (EmptyStrs for n == 0).
func (a *Arena) AllocStrs(n int) []string {
	if n == 0 {
		return EmptyStrs
	}
	if cap(a.strs)-len(a.strs) < n {
		a.strs = make([]string, 0, max(n, arenaStrs))
	}
	l := len(a.strs)
	a.strs = a.strs[:l+n]
	return a.strs[l : l+n : l+n]
}

// AllocLists returns n string lists that are never handed out again.
func (a *Arena) AllocLists(n int) [][]string {
	if cap(a.lists)-len(a.lists) < n {
		a.lists = make([][]string, 0, max(n, arenaLists))
	}
	l := len(a.lists)
	a.lists = a.lists[:l+n]
	return a.lists[l : l+n : l+n]
}

// AllocFloats returns n floats that are never handed out again.
func (a *Arena) AllocFloats(n int) []float64 {
	if cap(a.floats)-len(a.floats) < n {
		a.floats = make([]float64, 0, max(n, arenaFloats))
	}
	l := len(a.floats)
	a.floats = a.floats[:l+n]
	return a.floats[l : l+n : l+n]
}

// AllocBytes returns n writable bytes that are never handed out again.
func (a *Arena) AllocBytes(n int) []byte {
	if cap(a.bytes)-len(a.bytes) < n {
		if n > arenaBytes/4 {
			return make([]byte, n)
		}
		if cap(a.bytes) > 0 {
			a.fullBytes = append(a.fullBytes, a.bytes)
		}
		if k := len(a.spareBytes); k > 0 {
			a.bytes = a.spareBytes[k-1][:0]
			a.spareBytes[k-1] = nil
			a.spareBytes = a.spareBytes[:k-1]
		} else {
			a.bytes = make([]byte, 0, arenaBytes)
		}
	}
	l := len(a.bytes)
	a.bytes = a.bytes[:l+n]
	return a.bytes[l : l+n : l+n]
}

// Bstr returns a string aliasing b without copying. b must not be modified afterwards.
func Bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
