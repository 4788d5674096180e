// Package firstgc defers the first garbage collection of the process until its heap reaches
// firstGCHeap. Without that, a short scoring run collects for nothing: the default first
// goal is 4 MB, and a run's buffers, vocabularies and scratch take more than that before the
// run ends. Until the first collection the collector is off with a soft memory limit of
// firstGCHeap; the first collection (the limit reached) restores the defaults, GOGC=100 and
// no limit, so a long run is collected as usual. A GOGC or GOMEMLIMIT set in the environment
// is left alone.
//
// It is a package of its own, apart from package startup, because it needs runtime/debug:
// runtime/debug sorts late among the import paths that decide the order of initialization
// and would hold startup back behind most of the binary's init functions. firstgc runs in
// the middle of them, after about 120 KB of their allocations, far below the first goal.
package firstgc

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// firstGCHeap bounds the garbage a run can hold before its first collection.
const firstGCHeap = 32 << 20

func init() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(firstGCHeap)
	// The finalizer of an unreachable object runs after the first collection that finds it.
	runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
