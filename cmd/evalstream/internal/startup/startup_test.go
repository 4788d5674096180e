package startup

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// The process starts on one CPU, whatever GOMAXPROCS says; AllCPUs gives it back every CPU it
// started with.
func TestOneCPUUntilAllCPUs(t *testing.T) {
	if Procs() < 2 {
		t.Skip("the process may use one CPU only")
	}
	require.Equal(t, 1, runtime.GOMAXPROCS(0), "GOMAXPROCS before AllCPUs")
	AllCPUs()
	require.Equal(t, Procs(), runtime.GOMAXPROCS(0), "GOMAXPROCS after AllCPUs")
	AllCPUs()
	require.Equal(t, Procs(), runtime.GOMAXPROCS(0), "GOMAXPROCS after a second AllCPUs")
}
