package imageio_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Write a small label map as a gzipped NIfTI-1 file and read it back: the
// decoder picks the format from the extension, returns the samples as
// float64 in storage order (axis 0 fastest) with the element type found on
// disk, and the spacing from pixdim.
func ExampleRead() {
	dir, err := os.MkdirTemp("", "imageio-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	v := volume.New(volume.NewGrid(3, 2, 2), volume.Uint8)
	v.Spacing = [3]float64{0.5, 0.5, 2}
	v.Data[v.Index(1, 0, 0)] = 1
	v.Data[v.Index(2, 1, 1)] = 2
	path := filepath.Join(dir, "labels.nii.gz")
	if err := nifti.WriteFile(path, v, ""); err != nil {
		fmt.Println(err)
		return
	}

	got, err := imageio.Read(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Shape, got.Spacing, got.DType, got.Data)
	i, j, k := got.Coords(indexOf(got.LabelMask(2)))
	fmt.Println("label 2 at", i, j, k)

	h, err := nifti.ReadHeaderFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Magic, h.Dim[:4], h.Pixdim[1:4])
	// Output:
	// [3 2 2] [0.5 0.5 2] uint8 [0 1 0 0 0 0 0 0 0 0 0 2]
	// label 2 at 2 1 1
	// n+1 [3 3 2 2] [0.5 0.5 2]
}

func indexOf(mask []bool) int {
	for i, b := range mask {
		if b {
			return i
		}
	}
	return -1
}

// Pictures are recognised by content, as Pillow does, whatever the file is
// called; a 2-D image is a volume with axis 0 = column and Shape[2] = 1.
func ExampleReadPicture() {
	img := volume.New(volume.NewGrid(3, 2), volume.Uint8)
	copy(img.Data, []float64{0, 128, 255, 10, 20, 30})
	var buf bytes.Buffer
	if err := png.Write(&buf, img, 8); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(imageio.SniffPicture(buf.Bytes()[:8]))
	got, format, err := imageio.ReadPicture(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(format, got.Shape, got.NumChannels(), got.Data)

	_, _, err = imageio.ReadPicture(bytes.NewReader([]byte("not a picture")))
	fmt.Println(err)
	// Output:
	// png
	// png [3 2 1] 1 [0 128 255 10 20 30]
	// not a PNG, TIFF, BMP, JPEG, GIF, Netpbm or WebP picture
}
