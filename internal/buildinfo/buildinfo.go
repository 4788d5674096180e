// Package buildinfo holds the evalstream release this binary is. It is the one place the
// version lives: the command prints it (evalstream version, results, history) and every
// metric signature ends with it, so a score or a saved state names the release that made it.
// It imports nothing, so that any package may import it.
package buildinfo

// Version is the evalstream release. A release build sets it with the linker:
//
//	go build -ldflags "-X github.com/evalstream/evalstream/internal/buildinfo.Version=0.2.0" ./cmd/evalstream
//
// It is a variable only for that: nothing assigns it at run time, so reading it is safe
// from any goroutine.
var Version = "0.1.0"
