// Package onecpu puts the process on one CPU (GOMAXPROCS 1) as early as a Go program can: it
// imports nothing but runtime, so its init runs right after the runtime's, before the init
// functions of nearly every other package. Package startup explains why and gives the CPUs
// back (AllCPUs).
//
// It also turns off the sampling of heap allocations (runtime.MemProfileRate; `evalstream
// bench --memprofile` sets its own rate): a sample unwinds the stack and fills the profile's
// bucket table, fresh memory that costs page faults, and the init functions that follow
// would take a few.
package onecpu

import "runtime"

// Procs is GOMAXPROCS as the runtime set it at start, from the CPUs available or the
// GOMAXPROCS environment variable. Read-only after init.
var Procs int

func init() {
	runtime.MemProfileRate = 0
	Procs = runtime.GOMAXPROCS(1)
}
