package imageio

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// TestPillowTIFFLayouts checks ReadPictureFile against Pillow on the TIFF
// layouts tifffile writes: the same files refused, the same samples
// otherwise. Where the installed Pillow is older than the table
// tiff.ReadPillow follows (Pillow 13), the known differences are allowed:
// signed 8-bit (readable from Pillow 10.0), RGB + unspecified extra sample
// (RGB from 10.4, RGBX before), compressed RGBX planes (11.1 fails on
// them), compressed big-endian int16 (11.1 swaps its bytes). (Grey + an unspecified extra plane stored
// separately is refused by 9.4 and by 11.1, the version followed; 12.2
// reads plane 0.)
func TestPillowTIFFLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import PIL, numpy, tifffile").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with Pillow, numpy and tifffile")
	}
	dir := t.TempDir()
	sp := filepath.Join(dir, "gen.py")
	if err := os.WriteFile(sp, []byte(imagetest.TifffileLayoutsScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, sp, dir).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var res struct {
		Version string `json:"version"`
		Cases   []struct {
			imagetest.PillowResult
			Error string `json:"error"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	major, _ := strconv.Atoi(strings.Split(res.Version, ".")[0])
	minor, _ := strconv.Atoi(strings.Split(res.Version+".0", ".")[1])
	t.Logf("Pillow %s, %d files", res.Version, len(res.Cases))
	if len(res.Cases) < 500 {
		t.Fatalf("only %d files written", len(res.Cases))
	}
	for _, c := range res.Cases {
		name := filepath.Base(c.Path)
		v, _, err := ReadPictureFile(c.Path)
		old := major < 10
		switch {
		case old && strings.HasPrefix(name, "int8_") && strings.Contains(name, "minisblack") && strings.Contains(name, "_1_"):
			continue // Pillow 9 cannot open int8; Pillow 10+ reads its bytes as L
		case old && strings.Contains(name, "_zlib_4uns_rgb_separate"):
			continue // Pillow 9 reads compressed RGBX planes; 11.1's libtiff path fails (OSError -2)
		case old && strings.HasPrefix(name, "int16_be_zlib_"):
			continue // Pillow 9 reads compressed big-endian int16 as stored; 11.1 swaps its bytes (mode I from I;16BS)
		}
		if c.Error != "" {
			if err == nil {
				t.Errorf("%s: Pillow refuses (%s), we read %v × %d %s", name, c.Error, v.Shape, v.NumChannels(), v.DType)
			}
			continue
		}
		if err != nil && strings.Contains(err.Error(), "separate planes (PlanarConfiguration 2) of Pillow") {
			continue // refused on purpose: Pillow misreads these (see pillowPlanarCheck)
		}
		if err != nil {
			t.Errorf("%s: Pillow reads mode %s, we fail: %v", name, c.Mode, err)
			continue
		}
		nc := 1
		if len(c.Shape) == 3 {
			nc = c.Shape[2]
		}
		want := c.Values
		if c.Mode == "RGBX" && (major < 10 || major == 10 && minor < 4) {
			nc, want = 3, nil // RGB from Pillow 10.4
			for i := 0; i < len(c.Values); i += 4 {
				want = append(want, c.Values[i:i+3]...)
			}
		}
		if v.Shape != [3]int{c.Shape[1], c.Shape[0], 1} || v.NumChannels() != nc {
			t.Errorf("%s: %v × %d channels, Pillow %v (mode %s)", name, v.Shape, v.NumChannels(), c.Shape, c.Mode)
			continue
		}
		for i := range want {
			if v.Data[i] != want[i] {
				t.Errorf("%s (mode %s): sample %d = %v, Pillow %v", name, c.Mode, i, v.Data[i], want[i])
				break
			}
		}
	}
}
