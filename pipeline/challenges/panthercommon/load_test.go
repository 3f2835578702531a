package panthercommon

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// TestLoadCaseConcurrentMatchesSequential: decoding the GT and the
// prediction at once (GOMAXPROCS 2) grades every case as one after the
// other (GOMAXPROCS 1) does: values, notes and errors alike — a missing or
// corrupt GT (its error first, whatever the prediction), a missing,
// corrupt or oversized prediction, a NIfTI GT (read sequentially), wrong
// shapes.
func TestLoadCaseConcurrentMatchesSequential(t *testing.T) {
	dir, sub := caseDirs(t)
	g := volume.NewGrid(12, 9, 5)
	g.Spacing = [3]float64{0.8, 0.7, 2.5}
	gt, pred, other := volume.New(g, volume.Uint8), volume.New(g, volume.Uint8), volume.New(volume.NewGrid(12, 9, 4), volume.Uint8)
	medseg.Ellipsoid(g, [3]float64{5, 4, 2}, [3]float64{3, 3, 1.5}, func(i int) { gt.Data[i] = 1 })
	medseg.Ellipsoid(g, [3]float64{6, 4, 2}, [3]float64{3, 2, 1.5}, func(i int) { pred.Data[i] = 1 })
	write := func(p string, v *volume.Volume) {
		var err error
		if filepath.Ext(p) == ".mha" {
			err = metaimage.WriteFile(p, v, volume.Uint8, true)
		} else {
			err = nifti.WriteFile(p, v, volume.Uint8)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "gt.mha"), gt)
	write(filepath.Join(dir, "gt.nii.gz"), gt)
	write(filepath.Join(sub, "p.mha"), pred)
	write(filepath.Join(sub, "small.mha"), other)
	for name, body := range map[string]string{
		"corrupt.mha": "ObjectType = Image\nNDims = 3\nDimSize = 12 9 5\nElementType = MET_UCHAR\nCompressedData = True\nElementDataFile = LOCAL\ngarbage",
		"huge.mha":    "ObjectType = Image\nNDims = 3\nDimSize = 4000 4000 400\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n",
	} {
		for _, d := range []string{dir, sub} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var outs [2]string
	for n, procs := range []int{1, 2} {
		prev := runtime.GOMAXPROCS(procs)
		for _, gtName := range []string{"gt.mha", "gt.nii.gz", "missing.mha"} {
			_, ok := concurrentShape(filepath.Join(dir, gtName))
			if want := procs > 1 && gtName == "gt.mha"; ok != want {
				t.Errorf("GOMAXPROCS %d, GT %s: decoded concurrently %v, want %v", procs, gtName, ok, want)
			}
		}
		for _, gtName := range []string{"gt.mha", "gt.nii.gz", "missing.mha", "corrupt.mha"} {
			for _, p := range []string{"p.mha", "small.mha", "missing.mha", "corrupt.mha", "huge.mha"} {
				for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
					v, note, err := gradeRow(sub, filepath.Join(dir, gtName), medseg.Row{Line: 1, ID: "c", Key: "c", Path: p}, mode)
					outs[n] += fmt.Sprintf("%s %s %v: %+v %q %v\n", gtName, p, mode, v, note, err)
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
	if outs[0] != outs[1] {
		t.Fatalf("sequential:\n%s\nconcurrent:\n%s", outs[0], outs[1])
	}
}

// TestGradeCaseDirtyBuffers: a case decoded into recycled buffers full of
// another case's bytes grades exactly as one decoded into fresh memory,
// and the buffers then hold the case's samples (they were used, every
// byte overwritten); a buffer too small is replaced by a large enough one.
func TestGradeCaseDirtyBuffers(t *testing.T) {
	dir, sub := caseDirs(t)
	g := volume.NewGrid(40, 30, 12)
	g.Spacing = [3]float64{0.8, 0.8, 2.5}
	gt, pred := volume.New(g, volume.Uint8), volume.New(g, volume.Uint8)
	medseg.Ellipsoid(g, [3]float64{20, 15, 6}, [3]float64{8, 6, 3}, func(i int) { gt.Data[i] = 2 })
	medseg.Ellipsoid(g, [3]float64{19, 15, 6}, [3]float64{4, 3, 2}, func(i int) { gt.Data[i] = 1 })
	medseg.Ellipsoid(g, [3]float64{21, 14, 6}, [3]float64{4, 4, 2}, func(i int) { pred.Data[i] = 1 })
	gtFile := filepath.Join(dir, "gt.mha")
	if err := metaimage.WriteFile(gtFile, gt, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
	if err := metaimage.WriteFile(filepath.Join(sub, "p.mha"), pred, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
	row := medseg.Row{Line: 1, ID: "c", Key: "c", Path: "p.mha"}
	samples := func(v *volume.Volume) []byte {
		b := make([]byte, len(v.Data))
		for i, x := range v.Data {
			b[i] = byte(x)
		}
		return b
	}
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		want, wantNote, wantErr := gradeCase(sub, gtFile, row, mode, nil)
		if wantErr != nil || want.DSC == 0 {
			t.Fatalf("fresh: %+v %v", want, wantErr)
		}
		for _, size := range []int{g.Len() - 1, g.Len(), 2 * g.Len()} {
			dirty := func(b byte) []byte { return bytes.Repeat([]byte{b}, size) }
			bufs := &caseBuffers{gt: dirty(1), pred: dirty(2)} // the worst garbage: tumour everywhere
			got, note, err := gradeCase(sub, gtFile, row, mode, bufs)
			if got != want || note != wantNote || err != nil {
				t.Fatalf("%v, %d-byte buffers: %+v %q %v, want %+v", mode, size, got, note, err, want)
			}
			if !bytes.Equal(bufs.gt[:g.Len()], samples(gt)) || !bytes.Equal(bufs.pred[:g.Len()], samples(pred)) {
				t.Fatalf("%v, %d-byte buffers: they do not hold the case's samples afterwards", mode, size)
			}
			if cap(bufs.gt) < max(size, g.Len()) || cap(bufs.pred) < max(size, g.Len()) {
				t.Fatalf("%v, %d-byte buffers: kept %d and %d bytes", mode, size, cap(bufs.gt), cap(bufs.pred))
			}
		}
	}
}

// caseDirs makes a folder for answers and, inside it, a submission folder.
func caseDirs(t *testing.T) (dir, sub string) {
	dir = t.TempDir()
	sub = filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, sub
}
