#include "textflag.h"

// func addRows2SSE(acc, t1, t2 []uint64, d1, d2 []uint8, dw int)
//
// addRows2 with SSE2 (part of the amd64 baseline): for every resample b, row d1[b] of t1
// plus row d2[b] of t2 is added to row b of acc, two 64-bit words per PADDQ; an odd last
// word goes through the low half of an XMM register. len(d2) >= len(d1), len(acc) >=
// len(d1)*dw and every row index is within its table: the Go caller checks.
TEXT ·addRows2SSE(SB), NOSPLIT, $0-128
	MOVQ acc_base+0(FP), DI
	MOVQ t1_base+24(FP), SI
	MOVQ t2_base+48(FP), R8
	MOVQ d1_base+72(FP), R9
	MOVQ d1_len+80(FP), CX
	MOVQ d2_base+96(FP), R10
	MOVQ dw+120(FP), R11
	MOVQ R11, R12
	SHLQ $3, R12 // bytes per row
	MOVQ R11, R13
	SHRQ $1, R13 // word pairs per row
	TESTQ CX, CX
	JZ   done

row:
	MOVBQZX (R9), AX
	IMULQ R12, AX
	ADDQ SI, AX // t1's row
	MOVBQZX (R10), BX
	IMULQ R12, BX
	ADDQ R8, BX // t2's row
	XORQ DX, DX
	MOVQ R13, R14

pairs:
	TESTQ R14, R14
	JZ   odd
	MOVOU (AX)(DX*1), X0
	MOVOU (BX)(DX*1), X1
	PADDQ X1, X0
	MOVOU (DI)(DX*1), X2
	PADDQ X2, X0
	MOVOU X0, (DI)(DX*1)
	ADDQ $16, DX
	DECQ R14
	JMP  pairs

odd:
	TESTQ $1, R11
	JZ   next
	MOVQ (AX)(DX*1), X0
	MOVQ (BX)(DX*1), X1
	PADDQ X1, X0
	MOVQ (DI)(DX*1), X2
	PADDQ X2, X0
	MOVQ X0, (DI)(DX*1)

next:
	ADDQ R12, DI
	INCQ R9
	INCQ R10
	DECQ CX
	JNZ  row

done:
	RET
