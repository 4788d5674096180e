package jsonl

// strStop returns the index of the first byte of b that ends the fast scan of a JSON string
// ('"', '\\', a control byte, or a non-ASCII byte that does not start a valid two-byte
// UTF-8 sequence), or len(b). It is written in assembly
// (strstop_amd64.s): the string scan is a tenth of the instructions of a BLEU run over
// JSON Lines, and SSE2 checks sixteen bytes in fewer instructions than strStopGeneric
// checks eight.
//
//go:noescape
func strStop(b []byte) int
