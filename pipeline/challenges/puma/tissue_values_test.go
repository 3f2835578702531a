package puma

import (
	"context"
	"math"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/polygon"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// valueTIFF writes m as a single-channel TIFF of type dt: f of each label,
// then the samples at the (row, column) positions of set replaced.
func valueTIFF(m *polygon.Mask, dt volume.DType, set map[[2]int]float64, f func(float64) float64) func(string) error {
	return func(p string) error {
		v := volume.New(volume.NewGrid(m.W, m.H), dt)
		for i, l := range m.Pix {
			v.Data[i] = f(float64(l))
		}
		for rc, x := range set {
			v.Data[rc[0]*m.W+rc[1]] = x
		}
		return tiff.WriteFile(p, v, dt)
	}
}

func same(x float64) float64 { return x }

// Masks holding values outside 0–5, per mode and track (hand-computed;
// checked against the reference's grade.py and the organisers'
// evaluate_tissue.py). The truth has 10,000 pixels of
// class 3; a perfect class 3 and four classes absent from both sides give
// the micro Dice 1/5 in every mode.
func TestTissueValuesOutsideLabels(t *testing.T) {
	truth := maskOf(Size, rect{3, 0, 99, 0, 99})
	nan, inf := math.NaN(), math.Inf(1)
	at := func(kv ...float64) map[[2]int]float64 {
		m := map[[2]int]float64{}
		for i := 0; i < len(kv); i++ {
			m[[2]int{500 + i, 500 + i}] = kv[i]
		}
		return m
	}
	const inv = -1.0 // invalid
	cases := []struct {
		name         string
		pred         func(string) error
		t1ref, t2ref float64
		t1off, t2off float64
	}{
		// T5: the uint8 cast turns NaN and ±Inf into 0; track 2's
		// np.unique(mask).max() is NaN when a NaN is present, hiding a 7.
		{name: "float-nan", pred: valueTIFF(truth, volume.Float32, at(nan), same), t1ref: 0.2, t2ref: 0.2, t1off: 0.2, t2off: 0.2},
		{name: "float-nan-hides-7", pred: valueTIFF(truth, volume.Float32, at(nan, 7), same), t1ref: inv, t2ref: 0.2, t1off: 0.2, t2off: 0.2},
		{name: "float-neginf", pred: valueTIFF(truth, volume.Float32, at(-inf), same), t1ref: 0.2, t2ref: 0.2, t1off: 0.2, t2off: 0.2},
		{name: "float-posinf", pred: valueTIFF(truth, volume.Float32, at(inf), same), t1ref: 0.2, t2ref: inv, t1off: 0.2, t2off: 0.2},
		// T6: Pillow reads uint32 as int32: 2³²−1 is −1 (background on
		// track 2; 255 after track 1's cast).
		{name: "uint32-high", pred: valueTIFF(truth, volume.Uint32, at(math.MaxUint32), same), t1ref: inv, t2ref: 0.2, t1off: 0.2, t2off: 0.2},
		// F1: official mode counts labels outside 0–5 as background.
		{name: "uint8-7", pred: valueTIFF(truth, volume.Uint8, at(7), same), t1ref: inv, t2ref: inv, t1off: 0.2, t2off: 0.2},
		{name: "uint8-255", pred: valueTIFF(truth, volume.Uint8, at(255), same), t1ref: inv, t2ref: inv, t1off: 0.2, t2off: 0.2},
		// F2: official track 1 uses the values as decoded (no uint8 cast):
		// 259 and 3.5 are not class 3 (Dice 0), −1 is background.
		{name: "uint16-259", pred: valueTIFF(truth, volume.Uint16, nil, func(x float64) float64 {
			if x == 3 {
				return 259
			}
			return x
		}), t1ref: 0.2, t2ref: inv, t1off: 0, t2off: 0},
		{name: "float-3.5", pred: valueTIFF(truth, volume.Float32, nil, func(x float64) float64 {
			if x == 3 {
				return 3.5
			}
			return x
		}), t1ref: 0.2, t2ref: 0, t1off: 0, t2off: 0},
		{name: "int32-minus-1", pred: valueTIFF(truth, volume.Int32, nil, func(x float64) float64 {
			if x == 0 {
				return -1
			}
			return x
		}), t1ref: inv, t2ref: 0.2, t1off: 0.2, t2off: 0.2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub, priv := tissueFixture(t, []*polygon.Mask{truth}, []func(string) error{tc.pred})
			for _, c := range []Challenge{Track1Task1, Track2Task1} {
				for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
					want := map[[2]any]float64{{1, challenge.Reference}: tc.t1ref, {2, challenge.Reference}: tc.t2ref,
						{1, challenge.Official}: tc.t1off, {2, challenge.Official}: tc.t2off}[[2]any{c.track, mode}]
					res, err := c.Grade(context.Background(), sub, priv, mode)
					if want == inv {
						if !challenge.IsInvalid(err) {
							t.Errorf("track %d %s: want invalid, got %v %v", c.track, mode, res, err)
						}
						continue
					}
					if err != nil {
						t.Errorf("track %d %s: %v", c.track, mode, err)
						continue
					}
					if got := res.Values["dice"]; math.Abs(got-want) > 1e-15 {
						t.Errorf("track %d %s: dice = %.17g, want %.17g", c.track, mode, got, want)
					}
				}
			}
		})
	}
}
