package panthercommon

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// TestGradeRowBytesMatchesFloat: a case stored as 8-bit MetaImages (read as
// bytes) grades exactly as the same case stored as 16-bit ones (decoded to
// float64), in both modes: values, notes and errors alike — label sets
// {0,1}, {0,1,2}, {0,3}, {1,2}, {4}, {0,1,2,3}, a GT with labels beyond 2,
// wrong shapes (resized in reference mode, refused in official mode) and
// wrong spacings.
func TestGradeRowBytesMatchesFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	sets := [][]float64{{0, 1}, {0, 1, 2}, {0, 3}, {1, 2}, {4}, {0, 1, 2, 3}, {0}}
	for it := 0; it < 120; it++ {
		g := volume.NewGrid(6+rng.IntN(10), 5+rng.IntN(8), 3+rng.IntN(5))
		g.Spacing = [3]float64{0.8, 0.7, 2.5}
		pg := g
		switch it % 6 {
		case 4:
			pg.Shape[0]++ // wrong shape
		case 5:
			pg.Spacing[2] = 3 // wrong spacing
		}
		gt, pred := volume.New(g, volume.Uint8), volume.New(pg, volume.Uint8)
		gtSet, predSet := sets[rng.IntN(3)], sets[rng.IntN(len(sets))]
		if it%9 == 0 {
			gtSet = []float64{0, 5} // not PANTHER's convention
		}
		fill := func(v *volume.Volume, set []float64) {
			c := [3]int{rng.IntN(v.Shape[0]), rng.IntN(v.Shape[1]), rng.IntN(v.Shape[2])}
			for k := 0; k < v.Shape[2]; k++ {
				for j := 0; j < v.Shape[1]; j++ {
					for i := 0; i < v.Shape[0]; i++ {
						d := abs(i-c[0]) + abs(j-c[1]) + abs(k-c[2])
						x := set[0]
						if d < 4 && len(set) > 1 {
							x = set[1+rng.IntN(len(set)-1)]
						}
						v.Data[i+v.Shape[0]*(j+v.Shape[1]*k)] = x
					}
				}
			}
		}
		fill(gt, gtSet)
		fill(pred, predSet)
		var results [2]string
		for n, dt := range []volume.DType{volume.Uint8, volume.Uint16} {
			dir := t.TempDir()
			gtFile := filepath.Join(dir, "gt.mha")
			sub := filepath.Join(dir, "sub")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := metaimage.WriteFile(gtFile, gt, dt, it%2 == 0); err != nil {
				t.Fatal(err)
			}
			if err := metaimage.WriteFile(filepath.Join(sub, "p.mha"), pred, dt, it%3 == 0); err != nil {
				t.Fatal(err)
			}
			row := medseg.Row{Line: 1, ID: "c", Key: "c", Path: "p.mha"}
			var out string
			for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
				v, note, err := gradeRow(sub, gtFile, row, mode)
				out += fmt.Sprintf("%v: %+v %q %v\n", mode, v, note, err)
			}
			if n == 0 {
				if loaded, err := medseg.Load(sub, "p.mha", colPath, 1<<30, true); err != nil || loaded.Bytes == nil {
					t.Fatalf("an 8-bit prediction was not read as bytes (%v)", err)
				}
			}
			results[n] = out
		}
		if !reflect.DeepEqual(results[0], results[1]) {
			t.Fatalf("case %d (GT %v, prediction %v):\nbytes:\n%sfloat:\n%s", it, gtSet, predSet, results[0], results[1])
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
