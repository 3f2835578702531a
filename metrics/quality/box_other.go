//go:build !amd64

package quality

// haveFMA is false: there is no vector kernel on this architecture.
var haveFMA = false

// boxRowAsm has no vector kernel on this architecture: boxRow filters
// every pixel with fma32.
func boxRowAsm(dst, src []float32, stride, win int, k float32) int { return 0 }
