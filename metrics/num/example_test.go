package num_test

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/num"
)

// Python's round(x, digits) on floats: the decimal nearest to the exact
// binary value, so 2.675 (stored as 2.67499999…) goes down, and an exact
// tie such as 0.125 goes to the even digit.
func ExampleRound() {
	fmt.Println(num.Round(2.675, 2), num.Round(0.125, 2), num.Round(0.375, 2))
	fmt.Println(num.Round5(0.123455), num.Round5(math.Inf(1)))
	// Output:
	// 2.67 0.12 0.38
	// 0.12345 +Inf
}

// numpy's float64 sum is pairwise, not sequential: ten times 0.1 sum to 1
// in numpy and to 0.9999999999999999 in a plain loop.
func ExampleSum() {
	x := make([]float64, 10)
	for i := range x {
		x[i] = 0.1
	}
	loop := 0.0
	for _, v := range x {
		loop += v
	}
	fmt.Println(num.Sum(x), loop, num.Mean(x), num.Mean(nil))
	// Output: 1 0.9999999999999999 0.1 NaN
}

// numpy.percentile's default linear interpolation, with numpy's rounding:
// the 95th percentile of 1, 2, 3, 4 is 3 + 0.85 computed as 4 − 1·0.15.
func ExamplePercentile() {
	fmt.Println(num.Percentile([]float64{4, 1, 3, 2}, 95), num.Percentile([]float64{4, 1, 3, 2}, 100))
	fmt.Println(num.Median([]float64{3, 1, 2, 10}), num.Percentile(nil, 50))
	// Output:
	// 3.8499999999999996 4
	// 2.5 NaN
}

// numpy's log10 is glibc's, which differs from Go's math.Log10 in the last
// bit for many inputs; 3 is one (glibc and numpy give …244).
func ExampleLog10() {
	fmt.Println(num.Log10(3), math.Log10(3))
	fmt.Println(num.Log10(0), num.Log10(-1))
	// Output:
	// 0.47712125471966244 0.4771212547196624
	// -Inf NaN
}
