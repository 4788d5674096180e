//go:build unix

package sources

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

func mmapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data
}

func munmapFile(data []byte) { _ = unix.Munmap(data) }

// dropPages releases the pages b (a slice of data) lies on, including the ones it shares
// with its neighbours (message metadata, the next body): on a shared file mapping that is
// harmless, a page still in use is read again from the page cache on its next access. So the
// resident pages of the map stay those of the bodies in use.
func dropPages(data, b []byte) {
	if len(b) == 0 || len(data) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - base
	end := start + uintptr(len(b))
	lo, hi := start/page*page, min((end+page-1)/page*page, uintptr(len(data)))
	if hi > lo {
		_ = unix.Madvise(data[lo:hi], unix.MADV_DONTNEED)
	}
}
