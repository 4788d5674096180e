//go:build !amd64

package jsonl

func strStop(b []byte) int { return strStopGeneric(b) }
