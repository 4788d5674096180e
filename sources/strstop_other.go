//go:build !amd64

package sources

func strStop(b []byte) int { return strStopGeneric(b) }
