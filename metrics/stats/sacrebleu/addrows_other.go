//go:build !amd64

package sacrebleu

// addRows2 is addRows2Go (in assembly on amd64).
func addRows2(acc, t1, t2 []uint64, d1, d2 []uint8, dw int) { addRows2Go(acc, t1, t2, d1, d2, dw) }
