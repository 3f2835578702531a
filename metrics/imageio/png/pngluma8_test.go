package png

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// TestMode8CapsByKind: ReadMode8FileInto reads an 8-bit grey PNG as
// ReadGray8FileInto does under the grey cap, the other kinds as
// ReadLuma8FileInto does under opts' cap, each cap exact to the
// byte, and says which kind it read.
func TestMode8CapsByKind(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 8))
	const w, h = 5, 4
	for _, k := range []lumaKind{lumaKinds[[2]int{8, 0}], lumaKinds[[2]int{16, 0}], lumaKinds[[2]int{8, 4}], lumaKinds[[2]int{8, 2}], lumaKinds[[2]int{8, 6}]} {
		pix := make([]byte, w*h*k.bpp)
		for i := range pix {
			pix[i] = byte(r.IntN(256))
		}
		p := filepath.Join(dir, "m.png")
		if err := os.WriteFile(p, imagetest.LumaPNG(t, pix, w, h, k.bpp, k.depth, k.ct, []byte{4, 3}), 0o644); err != nil {
			t.Fatal(err)
		}
		want, _, _, ok := ReadLuma8FileInto(nil, p)
		if !ok {
			t.Fatalf("depth %d colour %d: ReadLuma8PictureFileInto declined", k.depth, k.ct)
		}
		size := int64(w * h * k.channels * 8) // as ReadPictureFile counts it
		grey := k.bpp == 1
		for _, c := range []struct {
			gray8, other int64
			ok           bool
		}{
			{size, size, true},
			{size - 1, size, !grey},
			{size, size - 1, grey},
			{size - 1, size - 1, false},
		} {
			got, gw, gh, gray, ok := ReadMode8FileInto(bytes.Repeat([]byte{0xa5}, 3), p, c.gray8, Options{MaxBytes: c.other})
			if ok != c.ok {
				t.Errorf("depth %d colour %d, caps %d/%d: ok %v, want %v", k.depth, k.ct, c.gray8, c.other, ok, c.ok)
				continue
			}
			if ok && (gray != grey || gw != w || gh != h || !bytes.Equal(got, want)) {
				t.Errorf("depth %d colour %d: gray %v %d×%d %v, want gray %v %v", k.depth, k.ct, gray, gw, gh, got, grey, want)
			}
		}
	}
}
