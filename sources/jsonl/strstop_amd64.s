#include "textflag.h"

// func strStop(b []byte) int
//
// SSE2 (part of the amd64 baseline): sixteen bytes per iteration. A byte stops the scan when
// it equals '"' or '\\', is at most 0x1f (PMINUB with 0x1f leaves it unchanged) or has its
// high bit set (PMOVMSKB of the bytes themselves). A non-ASCII byte that starts a valid
// two-byte sequence (0xc2-0xdf, then 0x80-0xbf: accented Latin letters) is stepped over
// here, and the scan goes on after it. The last len(b)%16 bytes are checked one at a time.
TEXT ·strStop(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ SI, DI
	LEAQ (SI)(BX*1), R8
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	MOVQ $0x1f1f1f1f1f1f1f1f, AX
	MOVQ AX, X3
	PUNPCKLQDQ X3, X3

loop16:
	LEAQ 16(SI), R9
	CMPQ R9, R8
	JA   tail
	MOVOU (SI), X0
	MOVOU X0, X4
	PCMPEQB X1, X4
	MOVOU X0, X5
	PCMPEQB X2, X5
	POR  X5, X4
	MOVOU X0, X6
	PMINUB X3, X6
	PCMPEQB X0, X6
	POR  X6, X4
	POR  X0, X4
	PMOVMSKB X4, AX
	TESTL AX, AX
	JNZ  found
	MOVQ R9, SI
	JMP  loop16

found:
	BSFL AX, AX
	ADDQ AX, SI

check:
	// SI points at a stop byte: step over a valid two-byte sequence, else return.
	MOVBLZX (SI), AX
	CMPB AL, $0xc2
	JB   stop
	CMPB AL, $0xdf
	JA   stop
	LEAQ 1(SI), R9
	CMPQ R9, R8
	JAE  stop
	MOVBLZX (R9), AX
	ANDB $0xc0, AL
	CMPB AL, $0x80
	JNE  stop
	ADDQ $2, SI
	JMP  loop16

tail:
	CMPQ SI, R8
	JAE  none
	MOVBLZX (SI), AX
	CMPB AL, $0x22
	JEQ  stop
	CMPB AL, $0x5c
	JEQ  stop
	CMPB AL, $0x20
	JB   stop
	CMPB AL, $0x80
	JAE  check
	INCQ SI
	JMP  tail

stop:
	SUBQ DI, SI
	MOVQ SI, ret+24(FP)
	RET

none:
	MOVQ BX, ret+24(FP)
	RET
