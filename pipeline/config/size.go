package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize reads a size as the limits write it: a number of bytes with
// an optional suffix k, m, g or t (powers of 1024; "kb", "kib", "KiB" and
// the like mean the same), e.g. "512m", "64g", "1.5t". "" gives 0 (use
// the default); "unlimited" gives -1 (no limit).
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "":
		return 0, nil
	case "unlimited":
		return -1, nil
	}
	num := strings.TrimSuffix(strings.TrimSuffix(t, "ib"), "b")
	mult := 1.0
	if n := len(num); n > 0 {
		if i := strings.IndexByte("kmgt", num[n-1]); i >= 0 {
			mult = math.Pow(1024, float64(i+1))
			num = num[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size: want bytes > 0 with an optional k, m, g or t suffix (e.g. \"64g\"), or \"unlimited\"", s)
	}
	if b := int64(v * mult); b >= 1 {
		return b, nil
	}
	return 0, fmt.Errorf("%q is less than one byte", s)
}
