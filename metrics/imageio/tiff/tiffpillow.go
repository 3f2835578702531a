package tiff

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	mbits "math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// pillowTIFFHint ends the errors of TIFF layouts Pillow cannot open with
// what to write instead.
const pillowTIFFHint = "; save it as PNG, or as a TIFF of 8-bit, 16-bit unsigned or 32-bit samples (e.g. numpy uint8/uint16/int32/float32)"

// pillowKey is the key of Pillow's TiffImagePlugin.OPEN_INFO: byte order,
// PhotometricInterpretation, SampleFormat, FillOrder, BitsPerSample and
// ExtraSamples, tuples written as comma-separated numbers.
type pillowKey struct {
	bigEndian    bool
	photometric  uint64
	sampleFormat string
	fillOrder    uint64
	bits         string
	extra        string
}

func (k pillowKey) String() string {
	bo := "II"
	if k.bigEndian {
		bo = "MM"
	}
	return fmt.Sprintf("(%s, PhotometricInterpretation %d, SampleFormat (%s), FillOrder %d, BitsPerSample (%s), ExtraSamples (%s))",
		bo, k.photometric, k.sampleFormat, k.fillOrder, k.bits, k.extra)
}

// pillowLayout is how Pillow opens a TIFF page: its mode and the rawmode
// its unpacker uses (of the FillOrder-1 key, as Pillow's libtiff path
// does: the decoder reverses the bits of FillOrder-2 data itself), and
// the samples per pixel it keeps.
type pillowLayout struct {
	mode, rawmode string
	fillOrder     uint64
	spp           uint64
	swap32        bool // reverse the bytes of each 32-bit sample (see layout)
	swap16        bool // reverse the bytes of each signed 16-bit sample (see layout)
}

// pillowPlanarCheck refuses the separate-plane pages Pillow does not read
// correctly: its raw decoder (no compression) unpacks plane k with the
// k-th letter of the rawmode, which exists only for 8-bit RGB and RGBA;
// its libtiff decoder leaves the alpha plane of LA and PA at zero.
func pillowPlanarCheck(pl *pillowLayout, compression uint64) error {
	switch {
	case pl.mode == "LA" || pl.mode == "PA":
		return fmt.Errorf("separate planes (PlanarConfiguration 2) of Pillow mode %s are not supported (Pillow leaves the alpha plane 0 or fails)", pl.mode)
	case compression != 1 && strings.HasPrefix(pl.rawmode, "RGBX"):
		return fmt.Errorf("compressed separate planes (PlanarConfiguration 2) of RGB with an unspecified extra sample are not supported (Pillow 11.1's libtiff decoding fails on them: OSError -2)")
	case compression == 1 && pl.rawmode != "RGB" && pl.rawmode != "RGBA":
		return fmt.Errorf("uncompressed separate planes (PlanarConfiguration 2) of Pillow rawmode %s are not supported (Pillow unpacks each plane with one letter of the rawmode, which fails or misreads the samples)", pl.rawmode)
	}
	return nil
}

func tupleString(v []uint64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatUint(x, 10)
	}
	return strings.Join(parts, ",")
}

// pillowTIFFLayout computes the OPEN_INFO key of a page as
// TiffImageFile._setup does (Pillow 11.1, metrics/REFERENCE-VERSIONS.md) and looks it up; a page
// whose key is missing is one Pillow cannot open ("cannot identify image
// file").
func pillowTIFFLayout(ifd tiffIFD, bigEndian bool) (*pillowLayout, error) {
	photo := ifd.first(TagPhotometric, 0) // missing: Pillow reads WhiteIsZero
	if ifd.first(tagCompression, 1) == 6 {
		photo = 6 // old-style JPEG: Pillow presumes YCbCr
	}
	fill := ifd.first(TagFillOrder, 1)
	sf := ifd[TagSampleFormat]
	if len(sf) == 0 {
		sf = []uint64{1}
	}
	if len(sf) > 1 {
		// Pillow 11.1 folds a per-sample SampleFormat only when every
		// value is 1 (12.2 folds any repeated value).
		ones := true
		for _, f := range sf {
			ones = ones && f == 1
		}
		if ones {
			sf = sf[:1]
		}
	}
	bps := ifd[TagBitsPerSample]
	if len(bps) == 0 {
		bps = []uint64{1}
	}
	extra := ifd[TagExtraSamples]
	spp := ifd.first(TagSamplesPerPixel, 1)
	// (Pillow 12.2 drops unspecified extra samples of separate planes
	// before the lookup; 11.1 looks them up, so grey + an unspecified
	// extra plane is refused.)
	if spp > 6 {
		return nil, fmt.Errorf("this TIFF is a layout Pillow cannot open: SamplesPerPixel = %d, more than the 6 its OPEN_INFO table knows%s", spp, pillowTIFFHint)
	}
	if spp < uint64(len(bps)) {
		bps = bps[:spp]
	} else if spp > uint64(len(bps)) && len(bps) == 1 {
		b := bps[0]
		bps = make([]uint64, spp)
		for i := range bps {
			bps[i] = b
		}
	}
	if uint64(len(bps)) != spp {
		return nil, fmt.Errorf("this TIFF is a layout Pillow cannot open: %d BitsPerSample values for SamplesPerPixel = %d (\"unknown data organization\")%s", len(bps), spp, pillowTIFFHint)
	}
	key := pillowKey{bigEndian, photo, tupleString(sf), fill, tupleString(bps), tupleString(extra)}
	mr, ok := pillowOpenInfo[key]
	if !ok {
		return nil, fmt.Errorf("this TIFF is a layout Pillow cannot open: %v is not in its TiffImagePlugin OPEN_INFO table (\"unknown pixel mode\")%s", key, pillowTIFFHint)
	}
	if fill == 2 {
		key.fillOrder = 1
		if mr1, ok := pillowOpenInfo[key]; ok {
			mr = mr1
		}
	}
	return &pillowLayout{mode: mr[0], rawmode: mr[1], fillOrder: fill, spp: spp}, nil
}

// pillowSamples turns the stored samples of a page into those of
// numpy.array of the Pillow image: WhiteIsZero 1- and 8-bit inverted
// ("1;I", "L;I"), 16-bit colour reduced to its high byte (";16L"/";16B"
// rawmodes of mode RGB and RGBA), premultiplied alpha divided out
// ("RGBa"), unspecified extra samples dropped (modes RGB and P read from
// RGBX and PX), 32-bit unsigned reinterpreted as signed (mode I), signed
// 16-bit as mode I.
func pillowSamples(v *volume.Volume, pl *pillowLayout) {
	raw := pl.rawmode
	switch raw {
	case "1;I":
		for i, x := range v.Data {
			v.Data[i] = 1 - x
		}
	case "L;I":
		for i, x := range v.Data {
			v.Data[i] = 255 - x
		}
	case "I;32N":
		for i, x := range v.Data {
			if x >= 1<<31 {
				v.Data[i] = x - (1 << 32)
			}
		}
		v.DType = volume.Int32
	case "I;16S", "I;16BS", "I;32S", "I;32BS":
		v.DType = volume.Int32
	}
	if pl.swap16 {
		for i, x := range v.Data {
			v.Data[i] = float64(int16(mbits.ReverseBytes16(uint16(int16(x)))))
		}
	}
	if pl.swap32 {
		for i, x := range v.Data {
			if v.DType == volume.Float32 {
				v.Data[i] = float64(math.Float32frombits(mbits.ReverseBytes32(math.Float32bits(float32(x)))))
			} else {
				v.Data[i] = float64(int32(mbits.ReverseBytes32(uint32(int32(x)))))
			}
		}
	}
	if (pl.mode == "RGB" || pl.mode == "RGBA") && (strings.HasSuffix(raw, ";16L") || strings.HasSuffix(raw, ";16B")) {
		for i, x := range v.Data {
			v.Data[i] = float64(uint16(x) >> 8)
		}
		v.DType = volume.Uint8
	}
	if strings.HasPrefix(raw, "RGBa") {
		unpremultiply(v)
	}
	switch {
	case pl.mode == "RGB" && v.NumChannels() > 3:
		codec.KeepChannels(v, 0, 1, 2)
	case pl.mode == "P" && v.NumChannels() > 1:
		codec.KeepChannels(v, 0)
	case pl.mode == "RGBA" && v.NumChannels() > 4:
		codec.KeepChannels(v, 0, 1, 2, 3)
	}
}

// unpremultiply divides 8-bit RGB by alpha as Pillow's RGBa unpackers do:
// alpha 0 → all zero, else min(c·255/a, 255) in integers.
func unpremultiply(v *volume.Volume) {
	nc := v.NumChannels()
	for p := 0; p+nc <= len(v.Data); p += nc {
		s := v.Data[p : p+nc]
		a := int(s[3])
		switch a {
		case 0:
			s[0], s[1], s[2], s[3] = 0, 0, 0, 0
		case 255:
		default:
			for c := 0; c < 3; c++ {
				s[c] = float64(min(int(s[c])*255/a, 255))
			}
		}
	}
}

// ReadPillowFile decodes a TIFF file as Pillow does; see
// ReadPillow.
func ReadPillowFile(path string, opts ...Options) (*volume.Volume, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		return ReadPillow(f, opts...)
	})
}

// ReadPillow decodes the first page of a TIFF with the samples
// numpy.array(PIL.Image.open(f)) gives, where Read gives tifffile's:
//   - a page whose (byte order, PhotometricInterpretation, SampleFormat,
//     FillOrder, BitsPerSample, ExtraSamples) is not in Pillow's
//     TiffImagePlugin.OPEN_INFO table (newest Pillow; see
//     tiffpillow_table.go) is refused, as Pillow refuses it ("cannot
//     identify image file"): e.g. int64, uint64, float64, big-endian
//     uint32, big-endian WhiteIsZero 16-bit, multi-channel float or
//     16-bit integer other than RGB(A), grey + alpha without an alpha
//     ExtraSamples;
//   - a missing PhotometricInterpretation is WhiteIsZero; WhiteIsZero 1-
//     and 8-bit samples are inverted (1 − v, 255 − v), 16-bit and float
//     ones are not (Pillow does not);
//   - signed 8-bit samples are their bytes read as unsigned (Pillow ≥ 10);
//     uint32 samples are read as int32 (mode I: 2³² − 1 → −1); int16 as
//     int32;
//   - 16-bit RGB and RGBA are reduced to 8 bits, keeping the high byte;
//     associated (premultiplied) alpha is divided out as Pillow's RGBa
//     unpackers do; an unspecified extra sample after RGB (RGBX) or a
//     palette index is dropped (Pillow ≥ 10.4 reads RGBX as RGB);
//   - FillOrder 2 and separate planes (PlanarConfiguration 2) are read;
//     a single-sample 8-bit YCbCr page is grey (mode L).
//
// Not read (refused, though Pillow reads them): 2-, 4- and 12-bit samples,
// CMYK, CIELab, JPEG and CCITT compression, more than 4 samples per pixel.
// The Orientation tag (2–8) is applied as Pillow ≥ 10 applies it on load
// (exif_transpose; 5–8 swap width and height; Pillow 9.4 transposed the
// samples but kept the stored width and height in the array's shape); the
// Predictor of uncompressed and PackBits pages is ignored, as Pillow does.
// Options.FirstPage is implied; the other Options apply as for Read.
func ReadPillow(r io.Reader, opts ...Options) (*volume.Volume, error) {
	o := codec.PickOptions(opts)
	o.FirstPage = true
	b, err := readTIFFBytes(r, o)
	if err != nil {
		return nil, err
	}
	return decodeTIFF(b, options{Options: o, pillow: true})
}

// PillowMode returns the mode in which Pillow opens the first page of
// the TIFF b (its OPEN_INFO entry; see pillowTIFFLayout).
func PillowMode(b []byte) (string, error) {
	if len(b) < 8 {
		return "", errors.New("tiff: file truncated in the header")
	}
	t := &tiffFile{b: b, bo: binary.LittleEndian}
	if b[0] == 'M' {
		t.bo = binary.BigEndian
	}
	ifd, _, err := t.readIFD(uint64(t.bo.Uint32(b[4:])))
	if err != nil {
		return "", err
	}
	pl, err := pillowTIFFLayout(ifd, b[0] == 'M')
	if err != nil {
		return "", err
	}
	return pl.mode, nil
}
