package imageio

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/volume"
)

func TestReadPicture8File(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(8, 2))
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	le := binary.LittleEndian
	u16 := imagetest.TiffFileBytes(le, map[uint16]imagetest.TiffEntry{256: imagetest.Long(2), 257: imagetest.Long(1), 258: imagetest.Short(16), 277: imagetest.Short(1)}, 273, 279, [][]byte{{1, 0, 2, 1}})
	tif, _, _, _, _ := imagetest.RandomTIFF8(t, r)
	files := []string{
		write("a.tif", tif),
		write("u16.tif", u16),
		write("gray.png", imagetest.PngFile(t, 2, 2, 8, 0, [][]byte{{0, 200}, {17, 255}})),
		write("bad.tif", tif[:len(tif)/2]),
		write("junk.tif", []byte("hello")),
		filepath.Join(dir, "missing.tif"),
	}
	for _, o := range []Options{{FirstPage: true}, {MaxBytes: 16, FirstPage: true}} {
		for _, p := range files {
			v, format, err := ReadPictureFile(p, o)
			p8, v2, format2, err2 := ReadPicture8File(p, nil, o)
			if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || format != format2 {
				t.Fatalf("%s: ReadPictureFile (%q, %v), ReadPicture8File (%q, %v)", filepath.Base(p), format, err, format2, err2)
			}
			if err != nil {
				continue
			}
			if p8 != nil {
				if v2 != nil {
					t.Fatalf("%s: both results set", filepath.Base(p))
				}
				if v.DType != volume.Uint8 || v.Shape != [3]int{p8.W, p8.H, 1} || v.NumChannels() != p8.C {
					t.Fatalf("%s: shapes differ", filepath.Base(p))
				}
				for i, x := range v.Data {
					if float64(p8.Pix[i]) != x {
						t.Fatalf("%s: sample %d differs", filepath.Base(p), i)
					}
				}
				continue
			}
			if v2 == nil || v2.Shape != v.Shape || v2.DType != v.DType || len(v2.Data) != len(v.Data) {
				t.Fatalf("%s: volumes differ", filepath.Base(p))
			}
			for i := range v.Data {
				if v.Data[i] != v2.Data[i] {
					t.Fatalf("%s: sample %d differs", filepath.Base(p), i)
				}
			}
		}
	}
}
