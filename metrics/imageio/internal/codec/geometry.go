package codec

import (
	"math"
)

// DirectionOrIdentity returns d, or the identity when d is all zero.
func DirectionOrIdentity(d [3][3]float64) [3][3]float64 {
	if d == ([3][3]float64{}) {
		return Identity3()
	}
	return d
}

// Identity3 returns the 3×3 identity matrix.
func Identity3() [3][3]float64 {
	return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
}

// DirectionFromColumns turns the 3×3 block m (column j = world vector of
// axis j) into Direction rows: row j = column j normalised. A zero or
// non-finite column becomes the matching unit axis.
func DirectionFromColumns(m [3][3]float64) [3][3]float64 {
	var d [3][3]float64
	for j := 0; j < 3; j++ {
		n := math.Sqrt(m[0][j]*m[0][j] + m[1][j]*m[1][j] + m[2][j]*m[2][j])
		if !(n > 0) || math.IsInf(n, 0) {
			d[j][j] = 1
			continue
		}
		for i := 0; i < 3; i++ {
			d[j][i] = m[i][j] / n
		}
	}
	return d
}
