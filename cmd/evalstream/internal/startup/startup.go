// Package startup makes the start of a short run cheap. It turns off the sampling of heap
// allocations (runtime.MemProfileRate; `evalstream bench --memprofile` sets its own rate),
// whose stack tables cost page faults, and it defers the first garbage collection of the
// process until its heap reaches firstGCHeap. Without that, a short scoring run collects two
// or three times for nothing: the init functions of the binary's packages (Kafka protocol
// tables, Arrow kernels, JSON codecs) allocate about 4 MB, the default first goal, and the
// run's buffers take a few more. Go initializes packages in the order of their import paths
// wherever dependencies allow, and this one depends only on the standard library, so it runs
// before those heavy packages.
//
// It also starts catching SIGINT and SIGTERM (Signals), before the init functions of the
// heavy packages run: a signal sent while the binary starts then stops it the way main stops
// a run (a message, exit 1), rather than killing it without a word.
//
// Until the first collection the collector is off with a soft memory limit of firstGCHeap;
// the first collection (the limit reached) restores the defaults, GOGC=100 and no limit, so a
// long run is collected as usual. A GOGC or GOMEMLIMIT set in the environment is left alone.
package startup

import (
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
)

// firstGCHeap bounds the garbage a run can hold before its first collection.
const firstGCHeap = 32 << 20

// Signals receives SIGINT and SIGTERM from the start of the process; main reads it. It is
// buffered for one signal: later ones are dropped while one waits.
var Signals = make(chan os.Signal, 1)

func init() {
	signal.Notify(Signals, os.Interrupt, syscall.SIGTERM)
	runtime.MemProfileRate = 0
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
