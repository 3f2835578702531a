package sega

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// TestGradeRowBytesMatchesFloat: a case stored as 8-bit NRRD or MetaImage
// files (read as bytes) grades exactly as the same case stored as 16-bit
// ones (decoded to float64), in both modes: values, notes and errors alike,
// wrong shapes included.
func TestGradeRowBytesMatchesFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for it := 0; it < 60; it++ {
		g := volume.NewGrid(6+rng.IntN(10), 5+rng.IntN(8), 3+rng.IntN(5))
		g.Spacing = [3]float64{0.8, 0.7, 2.5}
		pg := g
		if it%5 == 4 {
			pg.Shape[1]++ // wrong shape
		}
		gt, pred := volume.New(g, volume.Uint8), volume.New(pg, volume.Uint8)
		for _, v := range []*volume.Volume{gt, pred} {
			c := [3]int{rng.IntN(v.Shape[0]), rng.IntN(v.Shape[1]), rng.IntN(v.Shape[2])}
			label := float64(1 + rng.IntN(3))
			for k := 0; k < v.Shape[2]; k++ {
				for j := 0; j < v.Shape[1]; j++ {
					for i := 0; i < v.Shape[0]; i++ {
						if (i-c[0])*(i-c[0])+(j-c[1])*(j-c[1])+(k-c[2])*(k-c[2]) < 9 && rng.IntN(6) > 0 {
							v.Data[i+v.Shape[0]*(j+v.Shape[1]*k)] = label
						}
					}
				}
			}
		}
		ext := []string{".seg.nrrd", ".mha"}[it%2]
		var results [2]string
		for n, dt := range []volume.DType{volume.Uint8, volume.Uint16} {
			dir := t.TempDir()
			gtFile := filepath.Join(dir, "gt"+ext)
			sub := filepath.Join(dir, "sub")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, w := range []struct {
				path string
				v    *volume.Volume
			}{{gtFile, gt}, {filepath.Join(sub, "p"+ext), pred}} {
				var err error
				if ext == ".mha" {
					err = metaimage.WriteFile(w.path, w.v, dt, it%3 == 0)
				} else {
					err = nrrd.WriteFile(w.path, w.v, dt, it%3 == 0)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			row := medseg.Row{Line: 1, ID: "c", Key: "c", Path: "p" + ext}
			var out string
			for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
				hd, dsc, note, err := gradeRow(sub, gtFile, row, mode)
				out += fmt.Sprintf("%v: %v %v %q %v\n", mode, hd, dsc, note, err)
			}
			if n == 0 {
				if l, err := medseg.Load(sub, row.Path, colPath, 1<<30, true); err != nil || l.Bytes == nil {
					t.Fatalf("an 8-bit prediction was not read as bytes (%v)", err)
				}
			}
			results[n] = out
		}
		if results[0] != results[1] {
			t.Fatalf("case %d (%s):\nbytes:\n%sfloat:\n%s", it, ext, results[0], results[1])
		}
	}
}
