package quality

import "golang.org/x/sys/cpu"

var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// boxRows8 is implemented in box_amd64.s: it filters the first n − n%8
// pixels of dst (see boxRow) and returns how many it did.
//
//go:noescape
func boxRows8(dst *float32, n int, src *float32, stride, win int, k float32) int

// boxRowAsm runs the AVX2 kernel where the CPU has it and returns the
// number of leading pixels of dst it filtered.
func boxRowAsm(dst, src []float32, stride, win int, k float32) int {
	n := len(dst) &^ 7
	if !haveFMA || n == 0 {
		return 0
	}
	// The kernel reads src[dy*stride + i + dx] for i < n, dy, dx < win.
	if need := (win-1)*stride + n - 1 + win; len(src) < need {
		return 0
	}
	return boxRows8(&dst[0], n, &src[0], stride, win, k)
}
