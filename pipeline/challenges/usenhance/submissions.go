package usenhance

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/quality"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

func sampleRows(publicDir string) (*challenge.Table, error) {
	t, err := challenge.ReadCSV(filepath.Join(publicDir, "sample_submission.csv"))
	if err != nil {
		return nil, fmt.Errorf("read sample submission: %w", err)
	}
	return t, nil
}

func writeImage(path string, im quality.Image) error {
	v := volume.New(volume.NewGrid(im.W, im.H), volume.Uint8)
	for i, p := range im.Pix {
		v.Data[i] = math.Round(math.Max(0, math.Min(255, p)))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return png.WriteFile(path, v, 8)
}

// forEachTest calls fn(id, relPath) for every sample-submission row and
// writes submission.csv.
func forEachTest(publicDir, outDir string, fn func(id, rel string) error) error {
	t, err := sampleRows(publicDir)
	if err != nil {
		return err
	}
	ids, _ := t.Column(colID)
	rels, err := t.Column(colEnhanced)
	if err != nil {
		return err
	}
	for i := range ids {
		if err := fn(ids[i], rels[i]); err != nil {
			return err
		}
	}
	return challenge.WriteCSV(filepath.Join(outDir, submissionFile), t.Header, t.Rows)
}

// SampleSubmission submits the low-quality inputs unchanged (identity
// "enhancement") under the names the sample submission lists.
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	return forEachTest(publicDir, outDir, func(id, rel string) error {
		return fsutil.CopyFile(filepath.Join(publicDir, "test", lowDir, id+".png"), filepath.Join(outDir, filepath.FromSlash(rel)))
	})
}

// Trivial submits a constant mid-grey image (128) of the input's size.
func (Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return forEachTest(publicDir, outDir, func(id, rel string) error {
		in, err := loadGray(filepath.Join(publicDir, "test", lowDir, id+".png"))
		if err != nil {
			return err
		}
		for i := range in.Pix {
			in.Pix[i] = 128
		}
		return writeImage(filepath.Join(outDir, filepath.FromSlash(rel)), in)
	})
}

// Perfect submits the private high-quality images.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	return forEachTest(publicDir, outDir, func(id, rel string) error {
		return fsutil.CopyFile(filepath.Join(privateDir, "test", highDir, id+".png"), filepath.Join(outDir, filepath.FromSlash(rel)))
	})
}

// boxBlur is a (2r+1)² mean filter with the border samples repeated.
func boxBlur(im quality.Image, r int) quality.Image {
	if r == 0 {
		return im
	}
	out := quality.Image{W: im.W, H: im.H, Pix: make([]float64, len(im.Pix))}
	for y := 0; y < im.H; y++ {
		for x := 0; x < im.W; x++ {
			var s float64
			for dy := -r; dy <= r; dy++ {
				yy := min(max(y+dy, 0), im.H-1)
				for dx := -r; dx <= r; dx++ {
					xx := min(max(x+dx, 0), im.W-1)
					s += im.Pix[yy*im.W+xx]
				}
			}
			out.Pix[y*im.W+x] = s / float64((2*r+1)*(2*r+1))
		}
	}
	return out
}

// affine fits hq ≈ a + b·x by least squares over all pixels of the pairs.
func affine(xs, ys []quality.Image) (a, b float64) {
	var sx, sy, sxx, sxy, n float64
	for i := range xs {
		for k := range xs[i].Pix {
			x, y := xs[i].Pix[k], ys[i].Pix[k]
			sx += x
			sy += y
			sxx += x * x
			sxy += x * y
			n++
		}
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, 1
	}
	b = (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b
}

func apply(im quality.Image, r int, a, b float64) quality.Image {
	out := boxBlur(im, r)
	res := quality.Image{W: out.W, H: out.H, Pix: make([]float64, len(out.Pix))}
	for i, v := range out.Pix {
		res.Pix[i] = math.Round(math.Max(0, math.Min(255, a+b*v)))
	}
	return res
}

// Baseline denoises with a box filter followed by a linear grey-level
// mapping: the filter radius (0–3) is chosen by the mean SSIM on every
// fifth training pair, the mapping fitted by least squares on the others;
// then both are refitted on all pairs and applied to the test images.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	ents, err := os.ReadDir(filepath.Join(publicDir, "train", lowDir))
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	var lows, highs []quality.Image
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".png") {
			continue
		}
		lo, err := loadGray(filepath.Join(publicDir, "train", lowDir, e.Name()))
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		hi, err := loadGray(filepath.Join(publicDir, "train", highDir, e.Name()))
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		if lo.W != hi.W || lo.H != hi.H {
			continue
		}
		lows, highs = append(lows, lo), append(highs, hi)
	}
	if len(lows) == 0 {
		return fmt.Errorf("baseline: no training pair")
	}
	fmt.Fprintf(log, "loaded %d training pairs (low-quality → high-quality)\n", len(lows))
	bestR, bestS := 0, math.Inf(-1)
	for r := 0; r <= 3; r++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var fx, fy []quality.Image
		var vx, vy []quality.Image
		for i := range lows {
			if i%5 == 4 {
				vx, vy = append(vx, lows[i]), append(vy, highs[i])
			} else {
				fx, fy = append(fx, boxBlur(lows[i], r)), append(fy, highs[i])
			}
		}
		if len(vx) == 0 {
			vx, vy = lows, highs
		}
		a, b := affine(fx, fy)
		var ss []float64
		for i := range vx {
			e := apply(vx[i], r, a, b)
			s, err := quality.SSIM(e, vy[i], quality.SSIMOptions{DataRange: quality.JointRange(e, vy[i], true), Float32: true})
			if err == nil && !math.IsNaN(s) {
				ss = append(ss, s)
			}
		}
		m := num.Mean(ss)
		fmt.Fprintf(log, "box filter radius %d + linear map %.3f%+.3f·x: held-out SSIM %.4f on %d pairs\n", r, a, b, m, len(ss))
		if m > bestS {
			bestR, bestS = r, m
		}
	}
	var fx []quality.Image
	for i := range lows {
		fx = append(fx, boxBlur(lows[i], bestR))
	}
	a, b := affine(fx, highs)
	fmt.Fprintf(log, "chose radius %d; refitted on all pairs: out = %.3f %+.3f·blur(in)\n", bestR, a, b)
	n := 0
	err = forEachTest(publicDir, outDir, func(id, rel string) error {
		in, err := loadGray(filepath.Join(publicDir, "test", lowDir, id+".png"))
		if err != nil {
			return err
		}
		n++
		return writeImage(filepath.Join(outDir, filepath.FromSlash(rel)), apply(in, bestR, a, b))
	})
	fmt.Fprintf(log, "enhanced %d test images into enhanced/*.png\n", n)
	return err
}
