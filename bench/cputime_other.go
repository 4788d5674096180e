//go:build !unix

package bench

// cpuSeconds returns 0: the process CPU time is read with getrusage, which only Unix has, so
// the Kafka bench reports no CPU time elsewhere.
func cpuSeconds() float64 { return 0 }
