package main

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/cmd/evalstream/internal/startup"
)

// The test binary links package startup, which puts the process on one CPU at init; the
// tests and benchmarks must still run on every CPU (testing takes -cpu's default from
// GOMAXPROCS when m.Run starts). This file sorts first, so that its test runs before any
// in-process fold gives the CPUs back.
func TestTestsRunOnEveryCPU(t *testing.T) {
	require.Equal(t, startup.Procs(), runtime.GOMAXPROCS(0))
}

// Heap profiling is on in the tests (go test -memprofile), though package startup turns it
// off for the program.
func TestTestsProfileAllocations(t *testing.T) {
	require.NotZero(t, runtime.MemProfileRate)
}
