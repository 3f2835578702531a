package medseg

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Loaded is an image read with the reference's medical_utils loader
// conventions (see Load).
type Loaded struct {
	// Volume holds the array the reference sees, in storage order (axis 0
	// fastest = the last numpy axis). Its Spacing is the spacing the
	// reference pairs with each axis, which is not always the true one.
	// Its Data is nil when Bytes holds the samples.
	*volume.Volume
	// Bytes holds the samples of an 8-bit unsigned MetaImage or NRRD (nil
	// otherwise): the same values as Data would hold.
	Bytes []uint8
	// Format is the decoder chosen by suffix.
	Format imageio.Format
}

// Load reads the submission file rel (inside root, named by field) the way
// the reference's load_medical_image does, choosing the decoder by suffix:
//
//   - .mha/.mhd/.nrrd: the array is ITK's [z,y,x] (storage order x fastest,
//     as read); the reference reports spacing (sz, sx, sy) against axes
//     (z, y, x), so the returned storage-order spacing is (sy, sx, sz): the
//     in-plane pair swapped.
//   - .nii or any .gz: nibabel's [X,Y,Z] transposed to [Z,X,Y] with spacing
//     (zZ, zX, zY) correctly paired; in storage order that is the volume with
//     axes 0 and 1 exchanged. 4-D images keep their first volume.
//   - anything else (DICOM included): invalid.
//
// With asReference false the image is returned as decoded (storage order
// of the file, true spacing), as SimpleITK-based official evaluations see
// it. maxBytes bounds the decoded size. Every failure is an
// *InvalidSubmission naming rel and field.
//
// An 8-bit unsigned single-channel MetaImage (.mha/.mhd) or binary NRRD
// keeps its samples as bytes in Loaded.Bytes (Data nil): masks usually
// are, and their float64 copy would cost most of a large case's grading.
func Load(root, rel, field string, maxBytes int64, asReference bool) (*Loaded, error) {
	return LoadInto(nil, root, rel, field, maxBytes, asReference)
}

// LoadInto is Load with buf offered for 8-bit samples (imageio
// Options.Buffer): Loaded.Bytes may share its memory.
func LoadInto(buf []byte, root, rel, field string, maxBytes int64, asReference bool) (*Loaded, error) {
	lower := strings.ToLower(rel)
	var format imageio.Format
	switch {
	case strings.HasSuffix(lower, ".nii"), strings.HasSuffix(lower, ".gz"):
		format = imageio.FormatNIfTI
	case strings.HasSuffix(lower, ".mha"), strings.HasSuffix(lower, ".mhd"):
		format = imageio.FormatMetaImage
	case strings.HasSuffix(lower, ".nrrd"):
		format = imageio.FormatNRRD
	default:
		return nil, challenge.Invalidf(rel, field, "unsupported file type; want .mha, .nrrd or .nii.gz")
	}
	p, err := challenge.ResolveInside(root, rel, field)
	if err != nil {
		return nil, err
	}
	// OpenInside reports a missing or irregular file as invalid.
	f, err := challenge.OpenInside(root, rel, field)
	if err != nil {
		return nil, err
	}
	opt := imageio.Options{MaxBytes: maxBytes, FirstVolume: true, Buffer: buf}
	var v *volume.Volume
	var raw []uint8
	switch format {
	case imageio.FormatNIfTI:
		v, err = nifti.Read(f, strings.HasSuffix(lower, ".gz"), opt)
		f.Close()
	case imageio.FormatMetaImage:
		f.Close()
		var m *imageio.Volume8
		if m, err = metaimage.ReadFileBytes(p, opt); err == nil {
			v, raw = m.Volume, m.Bytes
		}
	default:
		f.Close()
		var m *imageio.Volume8
		if m, err = nrrd.ReadFileBytes(p, opt); err == nil {
			v, raw = m.Volume, m.Bytes
		}
	}
	if err != nil {
		return nil, challenge.Invalidf(rel, field, "cannot read the image: %v", trimPath(err, p))
	}
	if v.NumChannels() != 1 {
		return nil, challenge.Invalidf(rel, field, "%d channels per voxel, want a single-channel mask", v.NumChannels())
	}
	if !asReference {
		return &Loaded{Volume: v, Bytes: raw, Format: format}, nil
	}
	if format == imageio.FormatNIfTI {
		v = SwapXY(v)
	} else {
		v.Spacing[0], v.Spacing[1] = v.Spacing[1], v.Spacing[0]
	}
	return &Loaded{Volume: v, Bytes: raw, Format: format}, nil
}

// LoadAnswer reads a private answer file with Load's array conventions
// (NIfTI axes 0 and 1 exchanged) but keeps the spacing each storage axis
// truly has (no in-plane swap for MetaImage/NRRD). An 8-bit unsigned
// single-channel MetaImage or binary NRRD keeps its samples as bytes
// (returned, with the volume's Data nil). Errors are grader errors, not
// invalid submissions.
func LoadAnswer(path string) (*volume.Volume, []uint8, error) { return LoadAnswerInto(nil, path) }

// LoadAnswerInto is LoadAnswer with buf offered for 8-bit samples (imageio
// Options.Buffer): the bytes returned may share its memory.
func LoadAnswerInto(buf []byte, path string) (*volume.Volume, []uint8, error) {
	if f, _ := imageio.FormatOf(path); f == imageio.FormatMetaImage || f == imageio.FormatNRRD {
		read := metaimage.ReadFileBytes
		if f == imageio.FormatNRRD {
			read = nrrd.ReadFileBytes
		}
		m, err := read(path, imageio.Options{FirstVolume: true, Buffer: buf})
		if err != nil {
			return nil, nil, fmt.Errorf("read answer: %w", err)
		}
		return m.Volume, m.Bytes, nil
	}
	v, err := imageio.Read(path, imageio.Options{FirstVolume: true})
	if err != nil {
		return nil, nil, fmt.Errorf("read answer: %w", err)
	}
	if f, _ := imageio.FormatOf(path); f == imageio.FormatNIfTI {
		return SwapXY(v), nil, nil
	}
	return v, nil, nil
}

// SwapXY returns v with storage axes 0 and 1 exchanged (data, shape,
// spacing, origin and direction rows).
func SwapXY(v *volume.Volume) *volume.Volume {
	nx, ny, nz := v.Shape[0], v.Shape[1], v.Shape[2]
	out := &volume.Volume{Grid: v.Grid, DType: v.DType, Channels: v.Channels, Data: make([]float64, len(v.Data))}
	out.Shape[0], out.Shape[1] = ny, nx
	out.Spacing[0], out.Spacing[1] = v.Spacing[1], v.Spacing[0]
	out.Origin = v.Origin
	out.Direction = v.Direction
	out.Direction[0], out.Direction[1] = v.Direction[1], v.Direction[0]
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				out.Data[j+ny*(i+nx*k)] = v.Data[i+nx*(j+ny*k)]
			}
		}
	}
	return out
}

// trimPath removes the absolute path of the file from a decoder error so
// messages name only the submission-relative file.
func trimPath(err error, p string) string {
	s := err.Error()
	s = strings.ReplaceAll(s, p+": ", "")
	return strings.ReplaceAll(s, filepath.Dir(p)+string(filepath.Separator), "")
}
