//go:build !unix

package arrow

import "os"

func mmapFile(f *os.File, size int64) []byte { return nil }
func munmapFile(data []byte)                 {}
func dropPages(data []byte, lo, hi int64)    {}
