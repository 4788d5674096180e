// Package startup makes the start of the process cheap, and safe to interrupt. Go
// initializes packages in the order of their import paths wherever dependencies allow; this
// one imports only os, os/signal, runtime, syscall and onecpu, which are among the first to
// initialize, so its init runs before those of the heavy packages (Arrow, the compression
// codecs, YAML, the metrics' tables). It must not import runtime/debug or fmt: runtime/debug
// sorts late and would hold it back behind most of them (the first collection is deferred by
// package firstgc for that reason).
//
// The process runs on one CPU from the start (GOMAXPROCS 1, set by package onecpu, which
// imports only runtime and so initializes right after it; it also turns off the sampling of
// heap allocations there): a scoring run folds its first 30 ms on one CPU anyway
// (cmd/evalstream's oneCPUStart), and dropping to one CPU later, when the runtime's second P
// has cached spans of many size classes, costs a stop-the-world and page faults to hand those
// spans back to the heap (set in the fold: 1.6% of the CPU of a 15 ms ROUGE run; set by the
// 7th init: 0.4%). main gives every other command all CPUs at once (AllCPUs); a run's fold
// gives them back when it ramps up.
//
// It starts catching SIGINT and SIGTERM (Signals): a signal sent while the binary starts then
// stops it the way main stops a run (a message, exit 1), rather than killing it without a
// word.
package startup

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/evalstream/evalstream/cmd/evalstream/internal/startup/onecpu"
)

// Signals receives SIGINT and SIGTERM from the start of the process; main reads it. It is
// buffered for one signal: later ones are dropped while one waits.
var Signals = make(chan os.Signal, 1)

func init() {
	signal.Notify(Signals, os.Interrupt, syscall.SIGTERM)
}

// Procs returns the number of CPUs the process may use: GOMAXPROCS as the runtime set it at
// start, from the CPUs available or the GOMAXPROCS environment variable.
func Procs() int { return onecpu.Procs }

// AllCPUs sets GOMAXPROCS back to every CPU. Without a GOMAXPROCS environment variable it
// hands GOMAXPROCS back to the runtime (runtime.SetDefaultGOMAXPROCS), which also turns its
// automatic updates back on: a call to runtime.GOMAXPROCS, as onecpu's, turns off the
// following of the container's CPU limit and affinity for the rest of the process, which a
// long Kafka run needs. Safe for concurrent use; it costs nothing when the process already
// runs on every CPU.
func AllCPUs() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.SetDefaultGOMAXPROCS()
		return
	}
	runtime.GOMAXPROCS(onecpu.Procs)
}
