package sacrebleu

// addRows2 is addRows2Go, in assembly (addrows_amd64.s) when the slices hold what it reads:
// SSE2 adds two words per instruction, and these sums are most of a paired bootstrap's time.
func addRows2(acc, t1, t2 []uint64, d1, d2 []uint8, dw int) {
	if dw < 1 || len(d2) < len(d1) || len(acc) < len(d1)*dw || len(t1) < 256*dw || len(t2) < 256*dw {
		addRows2Go(acc, t1, t2, d1, d2, dw)
		return
	}
	addRows2SSE(acc, t1, t2, d1, d2, dw)
}

//go:noescape
func addRows2SSE(acc, t1, t2 []uint64, d1, d2 []uint8, dw int)
