package assign_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/assign"
)

// scipy's documentation example: the cheapest assignment of the 3×3 matrix
// costs 1 + 2 + 2 = 5; the dearest, 4 + 5 + 2 = 11.
func ExampleSolve() {
	cost := []float64{
		4, 1, 3,
		2, 0, 5,
		3, 2, 2,
	}
	rows, cols, err := assign.Solve(3, 3, cost, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rows, cols)
	rows, cols, _ = assign.Solve(3, 3, cost, true)
	fmt.Println(rows, cols)
	// Output:
	// [0 1 2] [1 0 2]
	// [0 1 2] [0 2 1]
}

// A tall matrix assigns every column once and leaves rows over; pairs come
// back by ascending row. +Inf forbids a pair, and a matrix whose every
// complete assignment uses one is infeasible.
func ExampleSolve_rectangular() {
	tall := []float64{
		1, 9,
		9, 1,
		5, 5,
	}
	rows, cols, _ := assign.Solve(3, 2, tall, false)
	fmt.Println(rows, cols)

	inf := math.Inf(1)
	forbidden := []float64{
		inf, inf,
		1, 2,
	}
	_, _, err := assign.Solve(2, 2, forbidden, false)
	fmt.Println(errors.Is(err, assign.ErrInfeasible))
	// Output:
	// [0 1] [0 1]
	// true
}
