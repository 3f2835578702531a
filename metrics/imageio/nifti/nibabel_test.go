package nifti

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/volume"
)

// nibabelPython returns a python3 that imports nibabel, or skips the test.
// The system interpreter is tried first because a pyenv shim on PATH may
// lack the Debian python3-nibabel package.
func nibabelPython(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short mode")
	}
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if err := exec.Command(py, "-c", "import nibabel, numpy").Run(); err == nil {
			t.Logf("using %s for the nibabel cross-check", py)
			return py
		}
	}
	t.Skip("no python3 with nibabel")
	return ""
}

// nibabelWriteScript writes one file per (version, dtype, endianness) and
// prints, for each, what nibabel itself reads back.
const nibabelWriteScript = `
import json, sys, os
import numpy as np
import nibabel as nib
out = sys.argv[1]
types = ['uint8','int8','uint16','int16','uint32','int32','int64','uint64','float32','float64']
aff = np.array([[0.0, -1.5, 0.0, 10.0], [2.0, 0.0, 0.0, -4.5], [0.0, 0.0, 3.0, 7.25], [0, 0, 0, 1]])
res = []
for ver in (1, 2):
    for t in types:
        for endian in ('<', '>'):
            for scaled in (False, True):
                if scaled and t not in ('int16', 'uint8'):
                    continue
                data = (np.arange(24).reshape((4, 3, 2), order='F') * 5 + 1)
                if t.startswith('int') or t.startswith('float'):
                    data = data - 40
                data = data.astype(t)
                cls = nib.Nifti1Image if ver == 1 else nib.Nifti2Image
                hdr = (nib.Nifti1Header if ver == 1 else nib.Nifti2Header)(endianness=endian)
                img = cls(data, aff, header=hdr)
                img.header.set_data_dtype(t)
                if scaled:
                    img.header.set_slope_inter(0.5, -3.0)
                name = os.path.join(out, 'v%d_%s_%s%s.nii%s' % (ver, t, 'be' if endian == '>' else 'le', '_s' if scaled else '', '.gz' if t in ('int16', 'float32') else ''))
                if scaled:
                    # write the raw stored values with the header's scaling kept
                    hdr2 = img.header.copy()
                    with open(name, 'wb') if not name.endswith('.gz') else __import__('gzip').open(name, 'wb') as f:
                        hdr2.set_data_offset(352 if ver == 1 else 544)
                        hdr2.set_slope_inter(0.5, -3.0)
                        hdr2.write_to(f)
                        f.write(b'\x00' * (hdr2.get_data_offset() - f.tell()))
                        f.write(data.astype(hdr2.get_data_dtype()).tobytes(order='F'))
                else:
                    nib.save(img, name)
                back = nib.load(name)
                arr = np.asarray(back.dataobj)
                res.append({'path': name, 'values': arr.flatten(order='F').astype(float).tolist(),
                            'shape': list(arr.shape), 'zooms': [float(z) for z in back.header.get_zooms()],
                            'affine': back.affine.tolist(), 'scaled': scaled})
print(json.dumps(res))
`

// nibabelReadScript prints what nibabel reads from each file given.
const nibabelReadScript = `
import json, sys
import numpy as np
import nibabel as nib
res = []
for name in sys.argv[1:]:
    img = nib.load(name)
    arr = np.asarray(img.dataobj)
    res.append({'path': name, 'values': arr.flatten(order='F').astype(float).tolist(), 'shape': list(arr.shape),
                'zooms': [float(z) for z in img.header.get_zooms()], 'affine': img.affine.tolist(),
                'dtype': str(img.get_data_dtype()), 'sform': int(img.header['sform_code']), 'qform': int(img.header['qform_code'])})
print(json.dumps(res))
`

type nibabelResult struct {
	Path   string        `json:"path"`
	Values []float64     `json:"values"`
	Shape  []int         `json:"shape"`
	Zooms  []float64     `json:"zooms"`
	Affine [4][4]float64 `json:"affine"`
	Scaled bool          `json:"scaled"`
	DType  string        `json:"dtype"`
	Sform  int           `json:"sform"`
	Qform  int           `json:"qform"`
}

func runPython(t *testing.T, py, script string, args ...string) []nibabelResult {
	t.Helper()
	sp := filepath.Join(t.TempDir(), "script.py")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, append([]string{sp}, args...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("python: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var res []nibabelResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v", err)
	}
	return res
}

func TestNibabelWritesWeRead(t *testing.T) {
	py := nibabelPython(t)
	dir := t.TempDir()
	res := runPython(t, py, nibabelWriteScript, dir)
	if len(res) != 2*10*2+2*2*2 {
		t.Fatalf("python wrote %d files", len(res))
	}
	for _, r := range res {
		t.Run(filepath.Base(r.Path), func(t *testing.T) {
			v, err := ReadFile(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			if v.Shape != [3]int{r.Shape[0], r.Shape[1], r.Shape[2]} {
				t.Fatalf("shape %v, nibabel %v", v.Shape, r.Shape)
			}
			imagetest.CheckVec(t, "values", v.Data, r.Values)
			imagetest.CheckVec(t, "spacing", v.Spacing[:], r.Zooms)
			aff := volume.Affine(v)
			for i := 0; i < 4; i++ {
				imagetest.CheckVec(t, "affine row", aff[i][:], r.Affine[i][:])
			}
			if r.Scaled && v.DType != volume.Float64 {
				t.Errorf("dtype %s for a scaled file, want float64", v.DType)
			}
			h, err := ReadHeaderFile(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			if be := strings.Contains(r.Path, "_be"); h.BigEndian != be {
				t.Errorf("BigEndian = %v, want %v", h.BigEndian, be)
			}
			if !r.Scaled && string(v.DType) != strings.Split(filepath.Base(r.Path), "_")[1] {
				t.Errorf("dtype %s", v.DType)
			}
		})
	}
}

func TestNibabelReadsWhatWeWrite(t *testing.T) {
	py := nibabelPython(t)
	dir := t.TempDir()
	var paths []string
	var vols []*volume.Volume
	for _, dt := range imagetest.AllDTypes {
		for _, ext := range []string{".nii", ".nii.gz"} {
			v := volume.New(volume.Grid{Shape: [3]int{4, 3, 2}, Spacing: [3]float64{0.5, 1.25, 3}}, dt)
			for i := range v.Data {
				v.Data[i] = float64(i*5 + 1)
				if !(dt == volume.Uint8 || dt == volume.Uint16 || dt == volume.Uint32 || dt == volume.Uint64) {
					v.Data[i] -= 40
				}
			}
			v.Origin = [3]float64{-10, 20.5, 3}
			v.Direction = [3][3]float64{{0, 0.6, 0.8}, {0, -0.8, 0.6}, {-1, 0, 0}}
			p := filepath.Join(dir, string(dt)+ext)
			if err := WriteFile(p, v, dt); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
			vols = append(vols, v)
		}
	}
	res := runPython(t, py, nibabelReadScript, paths...)
	for i, r := range res {
		v := vols[i]
		t.Run(filepath.Base(r.Path), func(t *testing.T) {
			if r.DType != string(v.DType) {
				t.Errorf("nibabel dtype %s, want %s", r.DType, v.DType)
			}
			if len(r.Shape) != 3 || r.Shape[0] != 4 || r.Shape[1] != 3 || r.Shape[2] != 2 {
				t.Fatalf("nibabel shape %v", r.Shape)
			}
			imagetest.CheckVec(t, "values", r.Values, v.Data)
			imagetest.CheckVec(t, "zooms", r.Zooms, v.Spacing[:])
			want := volume.Affine(v)
			// column 0 = Direction[0]·0.5 = (0, 0.3, 0.4); origin last column.
			if math.Abs(want[1][0]-0.3) > 1e-12 || want[0][3] != -10 {
				t.Fatalf("Affine(v) = %v", want)
			}
			for k := 0; k < 4; k++ {
				imagetest.CheckVec(t, "affine row", r.Affine[k][:], want[k][:])
			}
			if r.Sform != 1 || r.Qform != 1 {
				t.Errorf("codes sform %d qform %d", r.Sform, r.Qform)
			}
		})
	}
}
