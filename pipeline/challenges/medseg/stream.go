package medseg

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Slices hands out a volume's values one z-slice at a time, in order.
type Slices interface{ Next() []float64 }

// SmoothedNoise is unit-variance noise on g smoothed by the 3×3×3 mean,
// slice by slice. whole (the demo's sizes) draws unit normals from rng in
// storage order and smooths them with Smooth, holding the volume: the
// demo's recorded draws and arithmetic. Otherwise (the real sizes) it draws
// UnitNoise from own, a generator of its own, and smooths slice by slice
// (NewNoiseSmoother), holding a few planes; rng is not used.
func SmoothedNoise(g volume.Grid, whole bool, rng, own *rand.Rand) Slices {
	if !whole {
		return NewNoiseSmoother(g, own)
	}
	noise := make([]float64, g.Len())
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	return &wholeSlices{data: Smooth(g, noise), plane: g.Shape[0] * g.Shape[1]}
}

// wholeSlices hands out a volume held whole.
type wholeSlices struct {
	data  []float64
	plane int
}

func (w *wholeSlices) Next() []float64 {
	s := w.data[:w.plane]
	w.data = w.data[w.plane:]
	return s
}

// ClampInt16 is v (a whole number, not NaN) in the int16 range.
func ClampInt16(v float64) int16 {
	switch {
	case v >= math.MaxInt16:
		return math.MaxInt16
	case v <= math.MinInt16:
		return math.MinInt16
	}
	return int16(v)
}

// WriteInt16Slices writes an int16 volume on g a slice at a time: fill(k,
// img) computes slice k into img, whose little-endian bytes then go to w.
// It closes w, or aborts it on an error.
func WriteInt16Slices(w *imageio.SampleWriter, g volume.Grid, fill func(k int, img []int16)) error {
	plane := g.Shape[0] * g.Shape[1]
	img, buf := make([]int16, plane), make([]byte, 2*plane)
	for k := 0; k < g.Shape[2]; k++ {
		fill(k, img)
		for i, v := range img {
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(v))
		}
		if _, err := w.Write(buf); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// WriteUint8 writes a uint8 volume's samples to w and closes it (aborts it
// on an error).
func WriteUint8(w *imageio.SampleWriter, data []uint8) error {
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
