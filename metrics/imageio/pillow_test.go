package imageio

import (
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

func TestPillowWritesWeRead(t *testing.T) {
	py := imagetest.PillowPython(t)
	res := imagetest.RunPillow(t, py, "write", t.TempDir())
	if len(res) != 20 {
		t.Fatalf("python wrote %d files", len(res))
	}
	for _, r := range res {
		t.Run(filepath.Base(r.Path)+"/"+r.Mode, func(t *testing.T) {
			v, err := Read(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			nc := 1
			if len(r.Shape) == 3 {
				nc = r.Shape[2]
			}
			if v.Shape != [3]int{r.Shape[1], r.Shape[0], 1} || v.NumChannels() != nc {
				t.Fatalf("shape %v × %d channels, Pillow %v", v.Shape, v.Channels, r.Shape)
			}
			imagetest.CheckVec(t, "values", v.Data, r.Values)
		})
	}
}

func TestPillowReadsWhatWeWrite(t *testing.T) {
	py := imagetest.PillowPython(t)
	dir := t.TempDir()
	var paths []string
	var vols []*volume.Volume
	add := func(name string, nc int, dt volume.DType, maxv float64, write func(string, *volume.Volume) error) {
		v := &volume.Volume{Grid: volume.NewGrid(5, 3), DType: dt, Channels: nc, Data: make([]float64, 15*nc)}
		for i := range v.Data {
			v.Data[i] = float64((i*7919)%int(maxv+1)) * map[bool]float64{true: -1, false: 1}[dt == volume.Int16 && i%3 == 0]
		}
		if dt == volume.Float32 {
			for i := range v.Data {
				v.Data[i] = v.Data[i]/4 - 3.5
			}
		}
		p := filepath.Join(dir, name)
		if err := write(p, v); err != nil {
			t.Fatal(err)
		}
		paths, vols = append(paths, p), append(vols, v)
	}
	png8 := func(p string, v *volume.Volume) error { return png.WriteFile(p, v, 8) }
	png16 := func(p string, v *volume.Volume) error { return png.WriteFile(p, v, 16) }
	tif := func(p string, v *volume.Volume) error { return tiff.WriteFile(p, v, "") }
	add("g8.png", 1, volume.Uint8, 255, png8)
	add("g16.png", 1, volume.Uint16, 65535, png16)
	add("la.png", 2, volume.Uint8, 255, png8)
	add("rgb.png", 3, volume.Uint8, 255, png8)
	add("rgba.png", 4, volume.Uint8, 255, png8)
	add("g8.tif", 1, volume.Uint8, 255, tif)
	add("g16.tif", 1, volume.Uint16, 65535, tif)
	add("s16.tif", 1, volume.Int16, 32767, tif)
	add("s32.tif", 1, volume.Int32, 1<<20, tif)
	add("f32.tif", 1, volume.Float32, 100, tif)
	add("rgb.tif", 3, volume.Uint8, 255, tif)
	add("rgba.tif", 4, volume.Uint8, 255, tif)
	res := imagetest.RunPillow(t, py, append([]string{"read"}, paths...)...)
	for i, r := range res {
		v := vols[i]
		t.Run(filepath.Base(r.Path)+"/"+r.Mode, func(t *testing.T) {
			nc := 1
			if len(r.Shape) == 3 {
				nc = r.Shape[2]
			}
			if r.Shape[0] != 3 || r.Shape[1] != 5 || nc != v.NumChannels() {
				t.Fatalf("Pillow shape %v, want [3 5 %d]", r.Shape, v.NumChannels())
			}
			imagetest.CheckVec(t, "values", r.Values, v.Data)
		})
	}
}
