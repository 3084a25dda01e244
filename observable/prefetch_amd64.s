#include "textflag.h"

// func prefetchw(addr unsafe.Pointer)
TEXT ·prefetchw(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ addr+0(FP), AX
	BYTE $0x0F; BYTE $0x0D; BYTE $0x08 // PREFETCHW (AX): the Go assembler has no mnemonic for it
	RET

// func prefetcht0(addr unsafe.Pointer)
TEXT ·prefetcht0(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ addr+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func cpuidPRFCHW() bool
TEXT ·cpuidPRFCHW(SB), NOSPLIT, $0-1
	MOVL $0x80000000, AX
	CPUID
	CMPL AX, $0x80000001
	JB   no
	MOVL $0x80000001, AX
	MOVL $0, CX
	CPUID
	SHRL $8, CX // ECX bit 8: PREFETCHW (3DNowPrefetch / PRFCHW)
	ANDL $1, CX
	MOVB CX, ret+0(FP)
	RET
no:
	MOVB $0, ret+0(FP)
	RET
