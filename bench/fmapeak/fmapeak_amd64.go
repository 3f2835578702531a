package fmapeak

import "golang.org/x/sys/cpu"

func lanes() int {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return 8
	}
	return 0
}

// loop is Loop's AVX2 body (fmapeak_amd64.s).
func loop(n int) float32
