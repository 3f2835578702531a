// Package boolbytes reads a []bool as bytes, so that masks can be scanned
// eight voxels per word or with bytes.IndexByte instead of one bool at a
// time.
package boolbytes

import "unsafe"

// Of returns the bytes of mask: 1 where mask is true, 0 where false (Go
// stores a bool as one byte holding 0 or 1). The result shares mask's
// memory; a write through it must store 0 or 1.
func Of(mask []bool) []byte {
	if len(mask) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(mask))), len(mask))
}
