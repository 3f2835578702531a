package ldctiqa

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Synthetic sizes: small slices, enough cases for meaningful correlations.
const (
	synthSize  = 64
	synthTrain = 40
	synthTest  = 16
)

// The real download (LDCTIQAC 2023): 1000 training slices and 300 labelled
// test slices (the leaderboard's test set, the only one the reference
// grades), 512 × 512 pixels.
const (
	realTrain = 1000
	realTest  = 300
	realSize  = 512
)

// slice draws one synthetic low-dose CT slice of side pixels (float32 in
// [0, 1] after the soft-tissue window): an elliptic body with two organs and
// a vessel, sparse view streaks of amplitude streak and Gaussian noise of
// std sigma. The anatomy is drawn on the 64-pixel default and scaled to side.
func slice(r *rand.Rand, side int, sigma, streak float64) *volume.Volume {
	v := volume.New(volume.NewGrid(side, side), volume.Float32)
	scale := float64(side) / synthSize
	v.Grid.Spacing = [3]float64{0.7 / scale, 0.7 / scale, 1}
	c := float64(side-1) / 2
	ox, oy := 6*(r.Float64()-0.5), 6*(r.Float64()-0.5)
	phase := r.Float64() * math.Pi
	nStreaks := 6 + r.IntN(6)
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			// At the default side, scale is 1 and the division exact.
			dx, dy := (float64(x)-c)/scale-ox, (float64(y)-c)/scale-oy
			val := 0.0
			if (dx*dx)/(28*28)+(dy*dy)/(22*22) <= 1 {
				val = 0.45
				if (dx-8)*(dx-8)/(81)+(dy+2)*(dy+2)/(49) <= 1 { // liver-like organ
					val = 0.6
				}
				if (dx+10)*(dx+10)+(dy-6)*(dy-6) <= 16 { // kidney-like blob
					val = 0.55
				}
				if dx*dx+(dy+8)*(dy+8) <= 4 { // aorta
					val = 0.8
				}
				ang := math.Atan2(dy, dx)
				val += streak * math.Cos(float64(nStreaks)*ang+phase) * math.Min(1, math.Hypot(dx, dy)/10)
			}
			val += sigma * r.NormFloat64()
			v.Data[x+side*y] = float64(float32(math.Max(0, math.Min(1, val))))
		}
	}
	return v
}

// quality maps the degradation to a mean radiologist rating on the 0–4
// scale, in steps of 0.2 (five readers with integer ratings), with reader
// disagreement as jitter.
func quality(r *rand.Rand, sigma, streak float64) float64 {
	q := 4.2 - 30*sigma - 25*streak + 0.3*r.NormFloat64()
	q = math.Max(0, math.Min(4, q))
	return math.Round(q*5) / 5
}

// Synthesize writes LDCTIQAG2023_train/{train.json,image/*.tif} and
// LDCTIQAC_test/{test.json,images/*.tiff}; one test slice is left out of
// test.json (public but never scored), as the real archive allows. A size
// other than the default counts train and listed test slices together and
// shares them out as the real download does (1000 : 300); Full also draws
// the real 512 × 512 slices.
func (Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	r := rand.New(rand.NewPCG(uint64(seed), 0x1dc71a))
	synthTrain, synthTest := synthTrain, synthTest
	if !size.IsDefault() {
		synthTrain, synthTest = challenge.ShareCases(size.Count(0, realTrain+realTest), realTrain, realTest)
	}
	side := synthSize
	if size.Full {
		side = realSize
	}
	type item struct {
		dir, name string
		score     float64
		listed    bool
	}
	n := synthTrain + synthTest + 1
	items := make([]item, n)
	// write draws slice i from r and writes it.
	write := func(r *rand.Rand, i int) error {
		sigma := 0.01 + 0.09*r.Float64()
		streak := 0.06 * r.Float64()
		q := quality(r, sigma, streak)
		v := slice(r, side, sigma, streak)
		var it item
		if i < synthTrain {
			it = item{filepath.Join(trainDir, trainImage), fmt.Sprintf("%04d.tif", i), q, true}
		} else {
			it = item{filepath.Join(testDir, testImages), fmt.Sprintf("%04d.tiff", 1000+i-synthTrain), q, i < synthTrain+synthTest}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := filepath.Join(rawDir, it.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := tiff.WriteFile(filepath.Join(dir, it.name), v, volume.Float32); err != nil {
			return fmt.Errorf("synthesize %s: %w", it.name, err)
		}
		items[i] = it
		return nil
	}
	if size.IsDefault() {
		// The demo's slices come from one stream, in order.
		for i := 0; i < n; i++ {
			if err := write(r, i); err != nil {
				return err
			}
		}
	} else {
		// Larger sets: a stream per slice, drawn in parallel.
		err := challenge.ForEach(ctx, n, func(i int) error {
			return write(rand.New(rand.NewPCG(uint64(seed), 0x1dc71a+uint64(i+1)<<32)), i)
		})
		if err != nil {
			return err
		}
	}
	train, test := map[string]float64{}, map[string]float64{}
	for _, it := range items {
		switch {
		case it.dir == filepath.Join(trainDir, trainImage):
			train[it.name] = it.score
		case it.listed:
			test[it.name] = it.score
		}
	}
	for _, f := range []struct {
		path string
		m    map[string]float64
	}{{filepath.Join(rawDir, trainDir, trainJSON), train}, {filepath.Join(rawDir, testDir, testJSON), test}} {
		b, err := json.MarshalIndent(f.m, "", "  ") // encoding/json sorts map keys: deterministic
		if err != nil {
			return err
		}
		if err := challenge.WriteFileAtomic(f.path, b); err != nil {
			return err
		}
	}
	return nil
}
