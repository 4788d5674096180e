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
// And it puts the process on one CPU (GOMAXPROCS 1, unless GOMAXPROCS is set in the
// environment) before anything else runs: a scoring run folds its first 30 ms on one CPU
// anyway (cmd/evalstream's oneCPUStart), and dropping to one CPU later, when the runtime's
// second P has cached spans of many size classes, costs a stop-the-world and page faults to
// hand those spans back to the heap (about 0.35 ms of CPU of a 15 ms ROUGE run). main gives
// every other command all CPUs at once (AllCPUs); a run's fold gives them back when it
// ramps up.
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

// procs is GOMAXPROCS as the runtime set it at start: the CPUs the process may use.
var procs = runtime.GOMAXPROCS(0)

func init() {
	if procs > 1 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
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

// Procs returns the number of CPUs the process may use: GOMAXPROCS as the runtime set it at
// start, from the CPUs available or the GOMAXPROCS environment variable.
func Procs() int { return procs }

// AllCPUs sets GOMAXPROCS back to Procs. Safe for concurrent use; it costs nothing when the
// process already runs on every CPU.
func AllCPUs() { runtime.GOMAXPROCS(procs) }
