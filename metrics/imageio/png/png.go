package png

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	stdpng "image/png"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/zlib"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// pngIHDR is the image header of a PNG stream.
type pngIHDR struct {
	width, height int64
	bitDepth      int
	colorType     int
}

// readPNGHeader reads the signature and the IHDR chunk (33 bytes).
func readPNGHeader(b []byte) (pngIHDR, error) {
	var h pngIHDR
	if len(b) < 33 {
		return h, errors.New("png: file truncated in the header")
	}
	if string(b[:8]) != "\x89PNG\r\n\x1a\n" {
		return h, errors.New("png: bad signature, not a PNG file")
	}
	// Pillow reads the first 13 bytes of a longer IHDR.
	if string(b[12:16]) != "IHDR" || binary.BigEndian.Uint32(b[8:]) < 13 {
		return h, errors.New("png: first chunk is not an IHDR of at least 13 bytes")
	}
	h.width = int64(binary.BigEndian.Uint32(b[16:]))
	h.height = int64(binary.BigEndian.Uint32(b[20:]))
	h.bitDepth = int(b[24])
	h.colorType = int(b[25])
	if h.width < 1 || h.width > math.MaxInt32 {
		return h, fmt.Errorf("png header: width = %d, want 1..%d", h.width, math.MaxInt32)
	}
	if h.height < 1 || h.height > math.MaxInt32 {
		return h, fmt.Errorf("png header: height = %d, want 1..%d", h.height, math.MaxInt32)
	}
	return h, nil
}

// channels is the number of samples per pixel the decoder returns.
func (h pngIHDR) channels(expand bool) int64 {
	switch h.colorType {
	case 2:
		return 3
	case 3:
		if expand {
			return 4 // at most; trimmed to 3 when the palette is opaque
		}
		return 1
	case 4:
		return 2
	case 6:
		return 4
	}
	return 1
}

// ReadFile decodes a PNG file; see Read.
func ReadFile(path string, opts ...Options) (*volume.Volume, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		return Read(f, opts...)
	})
}

// Read decodes a PNG into a 2-D volume: axis 0 = column, axis 1 = row,
// Spacing 1, Direction zero (unknown). Samples are kept as stored, as
// numpy.array(PIL.Image.open(...)) gives them:
//   - gray 8-bit → 1 channel uint8; 1-bit gray → values 0/1 (PIL mode "1");
//     2- and 4-bit gray are scaled to 0..255 (as PIL and Go do);
//   - gray 16-bit → 1 channel uint16;
//   - gray + alpha → 2 channels (L, A); RGB → 3; RGBA → 4 (not
//     premultiplied); 16-bit colour keeps 16-bit values (uint16; PIL would
//     reduce them to 8 bits);
//   - paletted → 1 channel of palette indices (uint8), or with
//     Options.ExpandPalette the palette colours: 3 channels, 4 when any
//     palette entry is not opaque.
//
// It accepts the files Pillow's Image.open and load accept, damaged ones
// included (a bad CRC on image data or later chunks, data after the last
// row ignored, IEND missing; see pnglenient.go), and refuses those Pillow
// refuses.
func Read(r io.Reader, opts ...Options) (*volume.Volume, error) {
	o := codec.PickOptions(opts)
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(33)
	h, err := readPNGHeader(head)
	if err != nil {
		return nil, err
	}
	if _, err := codec.SampleCount("png header: width × height × channels", o.MaxBytes, h.width, h.height, h.channels(o.ExpandPalette)); err != nil {
		return nil, err
	}
	// The whole file, in a recycled buffer (nothing decoded refers to it).
	bufp := codec.FileBufs.Get().(*[]byte)
	defer codec.FileBufs.Put(bufp)
	data, err := codec.ReadAllInto((*bufp)[:0], io.LimitReader(br, o.MaxBytes+1))
	*bufp = data
	if err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	if int64(len(data)) > o.MaxBytes {
		return nil, fmt.Errorf("png: file larger than the %d-byte limit (Options.MaxBytes)", o.MaxBytes)
	}
	// Go's strict decoder first; a file it refuses is read again by
	// Pillow's rules (pnglenient.go), which accept some damage.
	img, err := stdpng.Decode(bytes.NewReader(data))
	if err == nil {
		err = pillowCheckChunks(data)
	} else {
		img, err = decodePNGPillow(data, o)
	}
	if err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	return pngVolume(img, h, o.ExpandPalette)
}

// pngVolume converts a decoded PNG with header h to Read's volume.
func pngVolume(img image.Image, h pngIHDR, expand bool) (*volume.Volume, error) {
	v, err := codec.ImageToVolume(img, expand)
	if err != nil {
		return nil, err
	}
	// Go widens gray + alpha, and gray or RGB with a tRNS key, to RGBA:
	// keep the channels the file stores.
	switch h.colorType {
	case 0:
		codec.KeepChannels(v, 0)
		if h.bitDepth == 1 {
			for i, x := range v.Data {
				if x != 0 {
					v.Data[i] = 1
				}
			}
		}
	case 2:
		codec.KeepChannels(v, 0, 1, 2)
	case 4:
		codec.KeepChannels(v, 0, 3)
	}
	return v, nil
}

// WriteFile writes v to path as PNG; see Write.
func WriteFile(path string, v *volume.Volume, bitDepth int) error {
	var buf bytes.Buffer
	if err := Write(&buf, v, bitDepth); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Write encodes a 2-D volume (Shape[2] = 1) as PNG with bitDepth 8 or
// 16: 1 channel → gray, 2 → gray + alpha, 3 → RGB, 4 → RGBA (not
// premultiplied); no filtering, zlib level "best speed". Samples must be
// whole numbers in 0..2^bitDepth−1.
func Write(w io.Writer, v *volume.Volume, bitDepth int) error {
	if err := codec.CheckVolume(v); err != nil {
		return err
	}
	if v.Shape[2] != 1 {
		return fmt.Errorf("png: volume has %d slices, want a 2-D image", v.Shape[2])
	}
	dt := volume.Uint8
	switch bitDepth {
	case 8:
	case 16:
		dt = volume.Uint16
	default:
		return fmt.Errorf("png: bit depth %d, want 8 or 16", bitDepth)
	}
	nc := v.NumChannels()
	colorType := map[int]byte{1: 0, 2: 4, 3: 2, 4: 6}
	ct, ok := colorType[nc]
	if !ok {
		return fmt.Errorf("png: %d channels, want 1 to 4", nc)
	}
	samples, err := codec.EncodeSamples(v.Data, dt, binary.BigEndian)
	if err != nil {
		return fmt.Errorf("png: %w", err)
	}
	wd, ht := v.Shape[0], v.Shape[1]
	if int64(wd) > math.MaxInt32 || int64(ht) > math.MaxInt32 {
		return fmt.Errorf("png: %d × %d is too large", wd, ht)
	}
	rowBytes := wd * nc * bitDepth / 8
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	for y := 0; y < ht; y++ {
		zw.Write([]byte{0}) // filter: none
		zw.Write(samples[y*rowBytes : (y+1)*rowBytes])
	}
	if err := zw.Close(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(data)))
		bw.Write(n[:])
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		bw.WriteString(typ)
		bw.Write(data)
		binary.BigEndian.PutUint32(n[:], crc.Sum32())
		bw.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(wd))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(ht))
	ihdr[8], ihdr[9] = byte(bitDepth), ct
	chunk("IHDR", ihdr)
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return bw.Flush()
}
