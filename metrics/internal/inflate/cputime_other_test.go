//go:build !linux

package inflate

func threadCPU() (int64, bool) { return 0, false }
