package topcowcommon

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// TestLabelMapsBytesMatchFloat: label maps stored as 8-bit files (read as
// bytes) load exactly as the same maps stored as 16-bit ones (decoded to
// float64): answers, predictions on the case grid, and predictions on
// another grid resampled onto it (reference mode) or refused (official),
// for NIfTI (plain and gzip), MetaImage and NRRD.
func TestLabelMapsBytesMatchFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for it := 0; it < 48; it++ {
		g := volume.NewGrid(5+rng.IntN(9), 4+rng.IntN(7), 3+rng.IntN(5))
		g.Spacing = [3]float64{0.5, 0.5, 0.8}
		pg := g
		if it%3 == 2 {
			pg.Shape[0] += 2 // another grid
			pg.Spacing[0] = 0.4
		}
		gt, pred := volume.New(g, volume.Uint8), volume.New(pg, volume.Uint8)
		for _, v := range []*volume.Volume{gt, pred} {
			v.Direction = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
			for i := range v.Data {
				if rng.IntN(4) == 0 {
					v.Data[i] = float64(rng.IntN(16))
				}
			}
		}
		ext := []string{".nii.gz", ".nii", ".mha", ".nrrd"}[it%4]
		type loaded struct {
			gt        *labelMap
			ref, offi *labelMap
			refErr    string
			offiErr   string
		}
		var got [2]loaded
		for n, dt := range []volume.DType{volume.Uint8, volume.Uint16} {
			dir := t.TempDir()
			write := func(path string, v *volume.Volume) {
				var err error
				switch ext {
				case ".mha":
					err = metaimage.WriteFile(path, v, dt, it%2 == 0)
				case ".nrrd":
					err = nrrd.WriteFile(path, v, dt, it%2 == 0)
				default:
					err = nifti.WriteFile(path, v, dt)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			gtPath, predPath := filepath.Join(dir, "gt"+ext), filepath.Join(dir, "p"+ext)
			write(gtPath, gt)
			write(predPath, pred)
			gv, glm, err := readGT(gtPath)
			if err != nil {
				t.Fatal(err)
			}
			l := loaded{gt: glm}
			if l.ref, err = readPrediction(predPath, "p"+ext, "mask", gv, challenge.Reference); err != nil {
				l.refErr = err.Error()
			}
			if l.offi, err = readPrediction(predPath, "p"+ext, "mask", gv, challenge.Official); err != nil {
				l.offiErr = err.Error()
			}
			got[n] = l
			if n == 0 {
				if r, err := imageio.ReadBytes(predPath); err != nil || r.Bytes == nil {
					t.Fatalf("%s: an 8-bit label map was not read as bytes (%v)", ext, err)
				}
			}
		}
		if !reflect.DeepEqual(got[0], got[1]) {
			t.Fatalf("case %d (%s, prediction grid %v): 8-bit and 16-bit files load differently", it, ext, pg.Shape)
		}
	}
}
