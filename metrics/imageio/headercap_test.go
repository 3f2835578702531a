package imageio

import (
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

// TestSizeCapFromHeaders: every picture and volume reader the graders use
// refuses an all-zero 6000×6000 image (a few KB to a few MB on disk) over
// Options.MaxBytes from its header, before it allocates the samples — the
// validation endpoint relies on it to refuse decompression bombs.
func TestSizeCapFromHeaders(t *testing.T) {
	dir := t.TempDir()
	big := volume.New(volume.NewGrid(6000, 6000), volume.Uint8)
	write := map[string]func(p string) error{
		"bomb.png":    func(p string) error { return png.WriteFile(p, big, 8) },
		"bomb.tif":    func(p string) error { return tiff.WriteFile(p, big, volume.Uint8) },
		"bomb.nii.gz": func(p string) error { return nifti.WriteFile(p, big, volume.Uint8) },
		"bomb.jpg": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return jpeg.Encode(f, image.NewGray(image.Rect(0, 0, 6000, 6000)), nil)
		},
	}
	readers := map[string]func(p string, o Options) error{
		"Read":             func(p string, o Options) error { _, err := Read(p, o); return err },
		"ReadBytes":        func(p string, o Options) error { _, err := ReadBytes(p, o); return err },
		"ReadPictureFile":  func(p string, o Options) error { _, _, err := ReadPictureFile(p, o); return err },
		"ReadTifffileFile": func(p string, o Options) error { _, _, err := tiff.ReadTifffileFile(p, o); return err },
		"ReadPicture8File": func(p string, o Options) error { _, _, _, err := ReadPicture8File(p, nil, o); return err },
		"ReadNIfTIMaskFile": func(p string, o Options) error {
			_, err := nifti.ReadMaskFile(p, o)
			return err
		},
	}
	// Which reader reads which file (as the graders use them).
	uses := map[string][]string{
		"bomb.png":    {"Read", "ReadBytes", "ReadPictureFile", "ReadPicture8File"},
		"bomb.tif":    {"Read", "ReadBytes", "ReadPictureFile", "ReadTifffileFile", "ReadPicture8File"},
		"bomb.jpg":    {"ReadPictureFile", "ReadPicture8File"},
		"bomb.nii.gz": {"Read", "ReadBytes", "ReadNIfTIMaskFile"},
	}
	for name, w := range write {
		p := filepath.Join(dir, name)
		if err := w(p); err != nil {
			t.Fatal(err)
		}
		for _, rn := range uses[name] {
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			err := readers[rn](p, Options{MaxBytes: 1 << 20, FirstPage: true})
			runtime.ReadMemStats(&m1)
			alloc := (m1.TotalAlloc - m0.TotalAlloc) >> 20
			if err == nil || !strings.Contains(err.Error(), "limit") || alloc > 16 {
				t.Errorf("%s of %s with a 1 MiB cap: %v, %d MB allocated", rn, name, err, alloc)
			}
		}
	}
}
