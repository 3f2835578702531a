// Package volume holds the raster type that image decoders produce and metric
// functions consume: a 2D or 3D grid of samples with physical spacing.
//
// Storage order is the NIfTI/ITK order: axis 0 varies fastest, then axis 1,
// then axis 2. For a medical volume read from NIfTI, MetaImage or NRRD the
// axes are (x, y, z) in file order; for a 2D image decoded from PNG or TIFF
// axis 0 is the column (x), axis 1 the row (y) and Shape[2] is 1. A numpy
// array of the same data has its axes reversed ([z, y, x] / [row, col]).
//
// Conventions: unused trailing axes have Shape 1 and Spacing 1; spacing is
// in the file's unit (millimetres for medical images, 1 where unknown);
// samples are float64 whatever the file held (DType says what), with
// channels interleaved. Grid.Validate and Volume.Check reject a
// non-positive shape, a non-finite or non-positive spacing and a sample
// count that does not match; Volume.Labels rejects a sample that is not a
// whole number in the int32 range.
package volume

import (
	"fmt"
	"math"
)

// Grid is the geometry of a raster: the number of samples along each axis and
// the physical distance between neighbouring samples (millimetres for medical
// images, 1 where unknown). Unused trailing axes have Shape 1 and Spacing 1.
type Grid struct {
	Shape   [3]int
	Spacing [3]float64
}

// NewGrid returns a grid of the given shape (1 to 3 axes) with unit spacing.
func NewGrid(shape ...int) Grid {
	g := Grid{Shape: [3]int{1, 1, 1}, Spacing: [3]float64{1, 1, 1}}
	for i, n := range shape {
		if i < 3 {
			g.Shape[i] = n
		}
	}
	return g
}

// Len is the number of samples in the grid.
func (g Grid) Len() int { return g.Shape[0] * g.Shape[1] * g.Shape[2] }

// Dims is the number of axes with more than one sample... or the declared
// dimensionality: 3 when Shape[2] > 1, else 2 when Shape[1] > 1, else 1.
func (g Grid) Dims() int {
	switch {
	case g.Shape[2] > 1:
		return 3
	case g.Shape[1] > 1:
		return 2
	default:
		return 1
	}
}

// Index returns the linear index of sample (i, j, k).
func (g Grid) Index(i, j, k int) int { return i + g.Shape[0]*(j+g.Shape[1]*k) }

// Coords is the inverse of Index.
func (g Grid) Coords(idx int) (i, j, k int) {
	i = idx % g.Shape[0]
	idx /= g.Shape[0]
	j = idx % g.Shape[1]
	k = idx / g.Shape[1]
	return
}

// Validate reports whether the shape is positive and the spacing finite and positive.
func (g Grid) Validate() error {
	for a := 0; a < 3; a++ {
		if g.Shape[a] <= 0 {
			return fmt.Errorf("axis %d has %d samples, want at least 1", a, g.Shape[a])
		}
		if s := g.Spacing[a]; !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("axis %d has spacing %v, want a finite positive number", a, s)
		}
	}
	return nil
}

// SameShape reports whether two grids have the same number of samples on every axis.
func (g Grid) SameShape(o Grid) bool { return g.Shape == o.Shape }

// DType names the element type a decoder found in the file. The samples are
// always held as float64 in Volume.Data; DType says what they were on disk so
// a writer can round-trip them and a grader can reject, say, a float label map.
type DType string

// The element types the decoders know.
const (
	Uint8   DType = "uint8"
	Int8    DType = "int8"
	Uint16  DType = "uint16"
	Int16   DType = "int16"
	Uint32  DType = "uint32"
	Int32   DType = "int32"
	Uint64  DType = "uint64"
	Int64   DType = "int64"
	Float32 DType = "float32"
	Float64 DType = "float64"
)

// IsInteger reports whether the type holds integers.
func (d DType) IsInteger() bool {
	switch d {
	case Uint8, Int8, Uint16, Int16, Uint32, Int32, Uint64, Int64:
		return true
	}
	return false
}

// Volume is a decoded image: a Grid, its placement in space, and its samples.
// Channels > 1 (RGB images) interleaves the channels of each sample:
// Data[idx*Channels+c]. Channels 0 is read as 1.
type Volume struct {
	Grid
	Origin    [3]float64
	Direction [3][3]float64 // rows are the direction cosines of axes 0, 1, 2; zero when unknown
	DType     DType
	Channels  int
	Data      []float64
}

// New returns a zero-filled single-channel volume on grid g.
func New(g Grid, dt DType) *Volume {
	return &Volume{Grid: g, DType: dt, Channels: 1, Data: make([]float64, g.Len())}
}

// NumChannels is Channels, with 0 read as 1.
func (v *Volume) NumChannels() int {
	if v.Channels <= 0 {
		return 1
	}
	return v.Channels
}

// Check verifies that the grid is valid and Data has Len()*Channels samples.
func (v *Volume) Check() error {
	if err := v.Grid.Validate(); err != nil {
		return err
	}
	if want := v.Len() * v.NumChannels(); len(v.Data) != want {
		return fmt.Errorf("volume has %d samples, shape %v × %d channels needs %d", len(v.Data), v.Shape, v.NumChannels(), want)
	}
	return nil
}

// Mask returns a binary mask: true where the (first channel) sample is non-zero.
func (v *Volume) Mask() []bool {
	nc := v.NumChannels()
	m := make([]bool, v.Len())
	for i := range m {
		m[i] = v.Data[i*nc] != 0
	}
	return m
}

// LabelMask returns a binary mask of the samples equal to label.
func (v *Volume) LabelMask(label int) []bool {
	nc := v.NumChannels()
	m := make([]bool, v.Len())
	l := float64(label)
	for i := range m {
		m[i] = v.Data[i*nc] == l
	}
	return m
}

// Labels returns the samples as integer labels. It fails on a sample that is
// not a whole number in the int32 range (NaN included), naming its index.
func (v *Volume) Labels() ([]int32, error) {
	nc := v.NumChannels()
	out := make([]int32, v.Len())
	for i := range out {
		x := v.Data[i*nc]
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
			return nil, fmt.Errorf("sample %d is %v, want a whole-number label", i, x)
		}
		out[i] = int32(x)
	}
	return out, nil
}
