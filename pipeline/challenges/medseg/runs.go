package medseg

import "github.com/rexmle/rexmle/metrics/bytescan"

// Sample is a mask's element type: bytes as stored, or decoded values.
type Sample interface{ ~uint8 | ~float64 }

// EachRunStart calls visit with the first value of every run of equal
// values in data, in order (a value equal to the one before it is not
// visited). Byte samples skip runs eight bytes a word.
func EachRunStart[T Sample](data []T, visit func(T)) {
	if b, ok := any(data).([]uint8); ok {
		for i := 0; i < len(b); {
			v := b[i]
			visit(T(v))
			i += 1 + bytescan.FirstOther(b[i+1:], v)
		}
		return
	}
	for i, x := range data {
		if i == 0 || x != data[i-1] {
			visit(x)
		}
	}
}

// MaskOf returns cmp of every value of data. Byte samples are taken a run
// of one value at a time (masks are long runs), cmp of each value from a
// 256-entry table: only the runs it holds true are written.
func MaskOf[T Sample](data []T, cmp func(T) bool) []bool {
	m := make([]bool, len(data))
	if b, ok := any(data).([]uint8); ok {
		var lut [256]bool
		for v := range lut {
			lut[v] = cmp(T(v))
		}
		for i := 0; i < len(b); {
			v := b[i]
			end := i + 1 + bytescan.FirstOther(b[i+1:], v)
			if lut[v] {
				for j := range m[i:end] {
					m[i+j] = true
				}
			}
			i = end
		}
		return m
	}
	for i, x := range data {
		m[i] = cmp(x)
	}
	return m
}
