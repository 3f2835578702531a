package imageio

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
)

// noisyVolume is a volume of int16 samples whose gzip stream spans many
// deflate blocks (so chunked writes meet block boundaries).
func noisyVolume(shape [3]int, dt volume.DType, seed uint64) *volume.Volume {
	g := volume.NewGrid(shape[0], shape[1], shape[2])
	g.Spacing = [3]float64{0.7, 0.7, 1.25}
	v := volume.New(g, dt)
	v.Origin = [3]float64{12.5, -3, 40}
	v.Direction = [3][3]float64{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range v.Data {
		switch dt {
		case volume.Uint8:
			if i%97 < 20 {
				v.Data[i] = float64(rng.IntN(3))
			}
		default:
			v.Data[i] = float64(rng.IntN(4000) - 1000)
		}
	}
	return v
}

// streamed writes v through a SampleWriter in pieces of chunk bytes.
func streamed(t *testing.T, create func() (*codec.SampleWriter, error), v *volume.Volume, dt volume.DType, chunk int) {
	t.Helper()
	data, err := codec.EncodeSamples(v.Data, dt, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	w, err := create()
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		n := min(chunk, len(data))
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A streamed file (NRRD, NIfTI-1, MetaImage) is byte for byte the file the whole-volume writers write,
// whatever the size of the pieces, and reads back as the volume.
func TestSampleWriterMatchesWholeVolumeWriters(t *testing.T) {
	d := t.TempDir()
	for _, c := range []struct {
		dt    volume.DType
		shape [3]int
	}{{volume.Int16, [3]int{96, 80, 90}}, {volume.Uint8, [3]int{64, 64, 40}}, {volume.Int16, [3]int{5, 3, 1}}} {
		v := noisyVolume(c.shape, c.dt, uint64(c.shape[0]))
		for _, gz := range []bool{true, false} {
			want := filepath.Join(d, "whole.nrrd")
			if err := nrrd.WriteFile(want, v, c.dt, gz); err != nil {
				t.Fatal(err)
			}
			wantNII := filepath.Join(d, "whole.nii")
			if gz {
				wantNII += ".gz"
			}
			if err := nifti.WriteFile(wantNII, v, c.dt); err != nil {
				t.Fatal(err)
			}
			wantMHA := filepath.Join(d, "whole.mha")
			if err := metaimage.WriteFile(wantMHA, v, c.dt, gz); err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{1 << 30, 2 * c.shape[0], 65536, 1000003} {
				got := filepath.Join(d, "part.nrrd")
				streamed(t, func() (*codec.SampleWriter, error) { return nrrd.Create(got, v, c.dt, gz) }, v, c.dt, chunk)
				sameFile(t, got, want)
				gotNII := filepath.Join(d, "part"+strings.TrimPrefix(filepath.Base(wantNII), "whole"))
				streamed(t, func() (*codec.SampleWriter, error) { return nifti.Create(gotNII, v, c.dt) }, v, c.dt, chunk)
				sameFile(t, gotNII, wantNII)
				gotMHA := filepath.Join(d, "part.mha")
				streamed(t, func() (*codec.SampleWriter, error) { return metaimage.Create(gotMHA, v, c.dt, gz) }, v, c.dt, chunk)
				sameFile(t, gotMHA, wantMHA)
			}
			back, err := Read(filepath.Join(d, "part.nrrd"))
			if err != nil {
				t.Fatal(err)
			}
			if back.Shape != v.Shape || back.DType != c.dt || back.Spacing != v.Spacing || back.Origin != v.Origin {
				t.Errorf("read back %v %s %v %v, want %v %s %v %v", back.Shape, back.DType, back.Spacing, back.Origin, v.Shape, c.dt, v.Spacing, v.Origin)
			}
			for i := range v.Data {
				if back.Data[i] != v.Data[i] {
					t.Fatalf("sample %d read back %v, want %v", i, back.Data[i], v.Data[i])
				}
			}
		}
	}
	leftovers(t, d, 8)
}

func sameFile(t *testing.T, got, want string) {
	t.Helper()
	a, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("%s (%d bytes) differs from %s (%d bytes)", filepath.Base(got), len(a), filepath.Base(want), len(b))
	}
}

// leftovers fails when the folder holds other than n files (a temporary
// file was left behind).
func leftovers(t *testing.T, dir string, n int) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != n {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want %d files", names, n)
	}
}

// Too few or too many samples, an aborted file and a bad header leave
// nothing behind, with an error naming the file.
func TestSampleWriterFailuresLeaveNothing(t *testing.T) {
	d := t.TempDir()
	v := noisyVolume([3]int{4, 3, 2}, volume.Int16, 1)
	path := filepath.Join(d, "a.nrrd")

	w, err := nrrd.Create(path, v, volume.Int16, true)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(make([]byte, 47))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "a.nrrd: 1 sample bytes missing") {
		t.Errorf("short file: error %v, want one naming a.nrrd and the 1 missing byte", err)
	}

	w, _ = nifti.Create(filepath.Join(d, "b.nii.gz"), v, volume.Int16)
	if _, err := w.Write(make([]byte, 49)); err == nil || !strings.Contains(err.Error(), "b.nii.gz: 1 sample bytes past the 48") {
		t.Errorf("long write: error %v, want one naming b.nii.gz and the extra byte", err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close after a failed write succeeded")
	}

	w, _ = nrrd.Create(path, v, volume.Int16, false)
	w.Write(make([]byte, 48))
	w.Abort()
	w.Abort()
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}

	bad := *v
	bad.Spacing[2] = 0
	if _, err := nrrd.Create(path, &bad, volume.Int16, true); err == nil || !strings.Contains(err.Error(), "spacing") {
		t.Errorf("zero spacing: error %v, want one about the spacing", err)
	}
	if _, err := nifti.Create(path, v, "complex64"); err == nil {
		t.Error("unknown element type accepted")
	}
	rgb := *v
	rgb.Channels = 3
	if _, err := nifti.Create(filepath.Join(d, "c.nii"), &rgb, volume.Uint8); err == nil || !strings.Contains(err.Error(), "channels") {
		t.Errorf("3 channels to NIfTI: error %v, want one about channels", err)
	}
	if _, err := metaimage.Create(filepath.Join(d, "d.mhd"), v, volume.Int16, true); err == nil || !strings.Contains(err.Error(), ".mha") {
		t.Errorf("a .mhd name: error %v, want one asking for .mha", err)
	}
	w, _ = metaimage.Create(filepath.Join(d, "e.mha"), v, volume.Uint8, true)
	w.Write(make([]byte, 23))
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "e.mha: 1 sample bytes missing") {
		t.Errorf("short MetaImage: error %v, want one naming e.mha and the missing byte", err)
	}
	leftovers(t, d, 0)
}
