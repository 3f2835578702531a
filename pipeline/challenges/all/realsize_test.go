package all_test

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// firstImage returns the shape of the first image (in path order) under dir
// whose name ends in ext.
func firstImage(t *testing.T, dir, ext string) [3]int {
	t.Helper()
	var found string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ext) {
			found = p
		}
		return nil
	})
	if err != nil || found == "" {
		t.Fatalf("no %s image under %s (%v)", ext, dir, err)
	}
	v, err := imageio.Read(found)
	if err != nil {
		t.Fatal(err)
	}
	return v.Shape
}

// The challenges whose real-size case is cheap enough for every test run
// are prepared at REXMLE_SYNTH_CASES=full:10: the preparer accepts what the
// synthesizer draws at the real size, and the agents' images have it. The
// volumetric ones (SEG.A, TopCoW, TopBrain, PANTHER: 50–120 M voxels a case)
// test their real geometry in their own packages on a thin slab, and run
// whole in bench/full.sh.
func TestRealSizePrepares(t *testing.T) {
	if testing.Short() {
		t.Skip("real-size images: seconds per challenge")
	}
	for _, c := range []struct {
		id, ext string
		ok      func(s [3]int) bool
		want    string
	}{
		{"dentex", ".png", func(s [3]int) bool { return s == [3]int{2744, 1316, 1} }, "2744 × 1316"},
		{"usenhance", ".png", func(s [3]int) bool { return s == [3]int{512, 512, 1} }, "512 × 512"},
		{"ldct-iqa", ".tif", func(s [3]int) bool { return s == [3]int{512, 512, 1} }, "512 × 512"},
		{"isles22", "_dwi.nii.gz", func(s [3]int) bool {
			return s[0] >= 104 && s[0] < 121 && s[1] >= 104 && s[1] < 121 && s[2] >= 64 && s[2] < 82
		}, "104–120 × 104–120 × 64–81"},
		{"neurips-cellseg", "_label.tiff", func(s [3]int) bool {
			return s[0] >= 512 && s[0] < 4096 && s[1] >= 512 && s[1] < 4096
		}, "sides 512–4095"},
	} {
		t.Run(c.id, func(t *testing.T) {
			ch, ok := challenge.Lookup(c.id)
			if !ok {
				t.Fatalf("%s not registered", c.id)
			}
			p := challengetest.PrepareSized(t, ch, 1, challenge.SynthSize{Full: true, Cases: 10})
			if s := firstImage(t, p.Public(), c.ext); !c.ok(s) {
				t.Errorf("agents' image shape %v, want the real size %s", s, c.want)
			}
			if rows := testRows(t, p); rows < 2 || rows > 3 {
				t.Errorf("full:10: %d test cases, want 2 or 3", rows)
			}
		})
	}
}
