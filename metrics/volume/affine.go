package volume

// Affine returns the 4×4 voxel-to-world matrix of v: column j of the upper
// 3×3 block is Direction[j] × Spacing[j], the last column is Origin. A zero
// Direction (unknown orientation) is read as the identity.
func Affine(v *Volume) [4][4]float64 {
	dir := v.Direction
	if dir == ([3][3]float64{}) {
		dir = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	}
	var a [4][4]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			a[i][j] = dir[j][i] * v.Spacing[j]
		}
		a[i][3] = v.Origin[i]
	}
	a[3][3] = 1
	return a
}
