//go:build unix

package arrow

import (
	"os"

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

// dropPages releases the whole pages of data[lo:hi] from the process. On a shared file
// mapping that is harmless: a page used again is read back from the page cache on its next
// access.
func dropPages(data []byte, lo, hi int64) {
	page := int64(os.Getpagesize())
	lo = (lo + page - 1) / page * page
	hi = min(hi/page*page, int64(len(data)))
	if hi > lo {
		_ = unix.Madvise(data[lo:hi], unix.MADV_DONTNEED)
	}
}
