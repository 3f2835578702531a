package nifti

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// TestGunzipFileNIfTI: a .nii.gz read through the whole-file path and
// through the streaming reader gives the same image, and a file read from
// another position than its start is left to the streaming reader.
func TestGunzipFileNIfTI(t *testing.T) {
	dir := t.TempDir()
	v := volume.New(volume.NewGrid(9, 7, 5), volume.Int16)
	for i := range v.Data {
		v.Data[i] = float64(i%37 - 18)
	}
	path := filepath.Join(dir, "x.nii.gz")
	if err := WriteFile(path, v, ""); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, _, ok := codec.GunzipFile(bytes.NewReader(data), codec.MaxWholeGzipOut, nil)
	if !ok {
		t.Fatal("a whole .nii.gz in memory was not decoded whole")
	}
	if _, _, ok := codec.GunzipFile(bytes.NewReader(data), dec.Size()-1, nil); ok {
		t.Fatal("a .nii.gz decoding to more than the bound was decoded whole")
	}
	streamed, err := Read(io.MultiReader(bytes.NewReader(data)), true) // not sized: streaming reader
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Data, v.Data) || !slices.Equal(streamed.Data, v.Data) || got.Grid.Shape != v.Grid.Shape {
		t.Fatalf("whole-file and streamed decodes differ")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Seek(3, io.SeekStart)
	if _, _, ok := codec.GunzipFile(f, codec.MaxWholeGzipOut, nil); ok {
		t.Fatal("a file not at its start was decoded whole")
	}
}
