package kafka

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Crash points let the integration tests kill the process (SIGKILL, like kill -9) at a
// precise step: EVALSTREAM_KAFKA_CRASHPOINT=NAME:N kills it the N-th time NAME is reached.
// Names: fetch (a message fetched, not folded), process (folded, not snapshotted),
// checkpoint (state encoded, not written), snapshot (snapshot durable, offsets not
// committed), commit (offsets committed).
var crashAt = func() struct {
	name string
	n    int64
} {
	v := os.Getenv("EVALSTREAM_KAFKA_CRASHPOINT")
	name, n, ok := strings.Cut(v, ":")
	if !ok {
		return struct {
			name string
			n    int64
		}{}
	}
	k, _ := strconv.ParseInt(n, 10, 64)
	return struct {
		name string
		n    int64
	}{name, k}
}()

var crashCount atomic.Int64

func crashPoint(name string) {
	if crashAt.name != name {
		return
	}
	if crashCount.Add(1) == crashAt.n {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Kill() // SIGKILL on Unix, TerminateProcess on Windows
		}
		select {} // wait for the kill
	}
}
