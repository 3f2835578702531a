package imagetest

// PngPredictor is the prediction of PNG filter type ft (0–4) for a byte
// whose left, upper and upper-left neighbours are a, b and c, as the
// specification states it.
func PngPredictor(ft byte, a, b, c int) int {
	switch ft {
	case 1:
		return a
	case 2:
		return b
	case 3:
		return (a + b) / 2
	case 4:
		p := a + b - c
		pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
		switch {
		case pa <= pb && pa <= pc:
			return a
		case pb <= pc:
			return b
		}
		return c
	}
	return 0
}
