package png

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	stdpng "image/png"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// ReadGrayLibpngFile is cv2.imread(path, cv2.IMREAD_GRAYSCALE) of a grey
// PNG (colour type 0 or 4), as OpenCV's libpng reads it where Pillow
// refuses the file: the USenhance reference falls back to it. libpng checks
// the CRC of every chunk: a bad one on a critical chunk (IHDR, PLTE, IDAT,
// IEND) is an error, a bad one on an ancillary chunk only drops that chunk
// (a warning), and so do an ancillary chunk with invalid contents (a tRNS
// of the wrong length, a short gAMA, …) and a PLTE in a grey image; an
// unknown critical chunk or a chunk type that is not four letters is an
// error. The samples are then those of the image data: 1-, 2- and 4-bit
// grey scaled to 8 bits (v·255/(2^depth − 1)), 16-bit grey reduced to its
// high byte (png_set_strip_16), the alpha of grey + alpha dropped (not
// composited). Colour and palette PNGs are refused here: libpng's
// rgb_to_gray, which OpenCV uses for them, is not reproduced.
func ReadGrayLibpngFile(path string, opts ...Options) (*volume.Volume, error) {
	o := codec.PickOptions(opts)
	f, err := codec.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := codec.ReadAllMax(f, o, "png")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v, err := decodeGrayPNGLibpng(data, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

func decodeGrayPNGLibpng(data []byte, o Options) (*volume.Volume, error) {
	const sig = "\x89PNG\r\n\x1a\n"
	if !bytes.HasPrefix(data, []byte(sig)) {
		return nil, errors.New("png (libpng): not a PNG signature")
	}
	var clean bytes.Buffer
	clean.WriteString(sig)
	rest := data[len(sig):]
	first, grey := true, false
	for {
		if len(rest) < 12 {
			return nil, errors.New("png (libpng): file ends inside a chunk header or before IEND")
		}
		n := binary.BigEndian.Uint32(rest)
		typ := rest[4:8]
		for _, c := range typ {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
				return nil, fmt.Errorf("png (libpng): invalid chunk type %q", typ)
			}
		}
		if n > 0x7fffffff || uint64(n)+12 > uint64(len(rest)) {
			return nil, fmt.Errorf("png (libpng): chunk %s cut short", typ)
		}
		body := rest[8 : 8+n]
		crcOK := crc32.ChecksumIEEE(rest[4:8+n]) == binary.BigEndian.Uint32(rest[8+n:])
		critical := typ[0]&0x20 == 0
		chunk := rest[:12+n]
		rest = rest[12+n:]
		name := string(typ)
		if first && name != "IHDR" {
			return nil, errors.New("png (libpng): missing IHDR")
		}
		first = false
		switch {
		case critical && !crcOK:
			return nil, fmt.Errorf("png (libpng): %s: CRC error", name)
		case !critical:
			continue // dropped: a bad CRC or bad contents is only a warning, and nothing else changes grey samples
		case name == "IHDR":
			if n != 13 {
				return nil, errors.New("png (libpng): IHDR: invalid")
			}
			ct := body[9]
			if ct != 0 && ct != 4 {
				return nil, fmt.Errorf("png (libpng): colour type %d: only grey PNGs are read this way (OpenCV converts colour with libpng's rgb_to_gray, not reproduced)", ct)
			}
			grey = true
			w, h := binary.BigEndian.Uint32(body), binary.BigEndian.Uint32(body[4:])
			if _, err := codec.SampleCount("png header: width × height", o.MaxBytes, int64(w), int64(h)); err != nil {
				return nil, err
			}
		case name == "PLTE":
			continue // ignored in a grey image (a warning)
		case name != "IDAT" && name != "IEND":
			return nil, fmt.Errorf("png (libpng): %s: unknown critical chunk", name)
		}
		clean.Write(chunk)
		if name == "IEND" {
			break
		}
	}
	if !grey {
		return nil, errors.New("png (libpng): missing IHDR")
	}
	img, err := stdpng.Decode(&clean)
	if err != nil {
		return nil, fmt.Errorf("png (libpng): %w", err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	v := volume.New(volume.NewGrid(w, h), volume.Uint8)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s uint8
			switch m := img.(type) {
			case *image.Gray:
				s = m.Pix[y*m.Stride+x]
			case *image.Gray16:
				s = m.Pix[y*m.Stride+2*x] // high byte
			case *image.NRGBA:
				s = m.Pix[y*m.Stride+4*x]
			case *image.NRGBA64:
				s = m.Pix[y*m.Stride+8*x]
			default:
				return nil, fmt.Errorf("png (libpng): unexpected decoded type %T", img)
			}
			v.Data[y*w+x] = float64(s)
		}
	}
	return v, nil
}
