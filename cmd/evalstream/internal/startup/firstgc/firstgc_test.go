package firstgc

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// Before the first collection the collector waits for the memory limit; the first one
// restores the defaults.
func TestFirstCollectionRestoresDefaults(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: firstgc leaves the collector alone")
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.NumGC > 0 {
		t.Skip("a collection already ran in this test binary")
	}
	if got := gcPercent(); got != -1 {
		t.Fatalf("GOGC before the first collection = %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != firstGCHeap {
		t.Fatalf("memory limit before the first collection = %d, want %d", got, firstGCHeap)
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != 100 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		if time.Now().After(deadline) {
			t.Fatalf("after the first collection: GOGC %d, memory limit %d; want 100 and no limit", gcPercent(), debug.SetMemoryLimit(-1))
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
