package ldctiqa

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/stats"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

func readIDs(publicDir string) ([]string, error) {
	t, err := challenge.ReadCSV(filepath.Join(publicDir, "sample_submission.csv"))
	if err != nil {
		return nil, fmt.Errorf("read sample submission: %w", err)
	}
	return t.Column(colID)
}

func writeSubmission(outDir string, ids []string, scores []float64) error {
	rows := make([][]string, len(ids))
	for i, id := range ids {
		rows[i] = []string{id, strconv.FormatFloat(scores[i], 'g', -1, 64)}
	}
	return challenge.WriteCSV(filepath.Join(outDir, submissionFile), []string{colID, colScore}, rows)
}

// SampleSubmission copies public/sample_submission.csv (every score 0.0,
// which grades as NaN: constant predictions have no correlation).
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	t, err := challenge.ReadCSV(filepath.Join(publicDir, "sample_submission.csv"))
	if err != nil {
		return fmt.Errorf("read sample submission: %w", err)
	}
	return challenge.WriteCSV(filepath.Join(outDir, submissionFile), t.Header, t.Rows)
}

// Perfect submits the private scores.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	t, err := challenge.ReadCSV(filepath.Join(privateDir, "test_labels.csv"))
	if err != nil {
		return fmt.Errorf("read answers: %w", err)
	}
	return challenge.WriteCSV(filepath.Join(outDir, submissionFile), t.Header, t.Rows)
}

// Trivial submits uninformed scores: uniform random numbers in [0, 4) from a
// fixed seed. (A constant would grade as NaN, which is no score at all.)
func (Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	ids, err := readIDs(publicDir)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(2023, 7))
	scores := make([]float64, len(ids))
	for i := range scores {
		scores[i] = math.Round(r.Float64()*400) / 100
	}
	return writeSubmission(outDir, ids, scores)
}

// noiseLevel estimates the noise standard deviation of a slice from the
// median absolute horizontal difference (MAD/0.6745/√2), the feature the
// baseline regresses the quality score on.
func noiseLevel(path string) (float64, error) {
	v, err := imageio.Read(path, imageio.Options{MaxBytes: 64 << 20})
	if err != nil {
		return 0, err
	}
	nx, ny := v.Grid.Shape[0], v.Grid.Shape[1]
	c := v.NumChannels()
	if nx < 2 || ny < 1 {
		return 0, fmt.Errorf("%s: image too small (%d×%d)", path, nx, ny)
	}
	d := make([]float64, 0, (nx-1)*ny)
	for y := 0; y < ny; y++ {
		for x := 1; x < nx; x++ {
			a := v.Data[(y*nx+x)*c]
			b := v.Data[(y*nx+x-1)*c]
			d = append(d, math.Abs(a-b))
		}
	}
	sort.Float64s(d)
	return d[len(d)/2] / 0.6745 / math.Sqrt2, nil
}

// Baseline fits quality ≈ a + b·log(noise) by least squares on the training
// slices (holding out every fifth one to report a validation score), refits
// on all of them and predicts the test slices.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	tr, err := challenge.ReadCSV(filepath.Join(publicDir, "train_labels.csv"))
	if err != nil {
		return fmt.Errorf("read train labels: %w", err)
	}
	ids, _ := tr.Column(colID)
	ys, _ := tr.Column(colScore)
	var feats, target []float64
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := noiseLevel(filepath.Join(publicDir, "train", "images", id+".tif"))
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		y, err := strconv.ParseFloat(ys[i], 64)
		if err != nil {
			return fmt.Errorf("baseline: train score %q: %w", ys[i], err)
		}
		feats = append(feats, math.Log(n+1e-6))
		target = append(target, y)
	}
	fmt.Fprintf(log, "loaded %d training slices; feature = log of the noise level estimated from horizontal pixel differences\n", len(feats))
	var fx, fy, vx, vy []float64
	for i := range feats {
		if i%5 == 4 {
			vx, vy = append(vx, feats[i]), append(vy, target[i])
		} else {
			fx, fy = append(fx, feats[i]), append(fy, target[i])
		}
	}
	if a, b, ok := fitLine(fx, fy); ok && len(vx) >= 2 {
		pv := make([]float64, len(vx))
		for i, x := range vx {
			pv[i] = a + b*x
		}
		p, _ := stats.Pearson(pv, vy)
		s, k, _ := stats.RankCorrelations(pv, vy)
		fmt.Fprintf(log, "fitted on %d slices, validated on %d held-out slices: score %.4f (PLCC %.4f, SROCC %.4f, KROCC %.4f)\n", len(fx), len(vx), math.Abs(p)+math.Abs(s)+math.Abs(k), math.Abs(p), math.Abs(s), math.Abs(k))
	}
	a, b, ok := fitLine(feats, target)
	if !ok {
		a, b = num.Mean(target), 0
	}
	fmt.Fprintf(log, "refitted on all %d slices: quality = %.4f %+.4f·log(noise)\n", len(feats), a, b)
	testIDs, err := readIDs(publicDir)
	if err != nil {
		return err
	}
	scores := make([]float64, len(testIDs))
	for i, id := range testIDs {
		n, err := noiseLevel(filepath.Join(publicDir, "test", "images", id+".tiff"))
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		scores[i] = a + b*math.Log(n+1e-6)
	}
	fmt.Fprintf(log, "predicted %d test slices into %s\n", len(scores), submissionFile)
	return writeSubmission(outDir, testIDs, scores)
}

// fitLine is ordinary least squares y ≈ a + b·x; ok is false when x is constant.
func fitLine(x, y []float64) (a, b float64, ok bool) {
	if len(x) < 2 {
		return 0, 0, false
	}
	mx, my := num.Mean(x), num.Mean(y)
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	if sxx == 0 {
		return my, 0, false
	}
	b = sxy / sxx
	return my - b*mx, b, true
}
