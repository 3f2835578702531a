package imageio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	stdjpeg "image/jpeg"
	"io"

	"golang.org/x/image/bmp"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/jpeg"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/pnm"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/imageio/webp"
	"github.com/rexmle/rexmle/metrics/volume"
)

// The 2-D picture formats recognised by their content (see SniffPicture).
const (
	FormatBMP  Format = "bmp"
	FormatJPEG Format = "jpeg"
	FormatGIF  Format = "gif"
	// FormatPNM is a Netpbm picture (PBM, PGM, PPM) as Pillow's PPM plugin
	// opens it: any content starting with "P" and one of 0123456fy.
	FormatPNM Format = "pnm"
	// FormatWebP is a still WebP picture (RIFF … WEBP with a VP8, VP8L or
	// VP8X chunk), which Pillow 11.1 opens with libwebp.
	FormatWebP Format = "webp"
)

// ErrUnknownPicture is returned (wrapped) by ReadPicture for content that
// starts with none of the signatures SniffPicture knows.
var ErrUnknownPicture = errors.New("not a PNG, TIFF, BMP, JPEG, GIF, Netpbm or WebP picture")

// SniffPicture names the picture format whose signature starts head, as
// Pillow's Image.open identifies a file by content, whatever its name:
// PNG (89 50 4E 47 0D 0A 1A 0A), TIFF ("II*\0" or "MM\0*"), BMP ("BM"),
// JPEG (FF D8 FF), GIF ("GIF87a"/"GIF89a"), Netpbm ("P" and one of
// 0123456fy, what Pillow's PPM plugin claims), WebP ("RIFF", size, "WEBP"
// and a VP8, VP8L or VP8X chunk). It returns "" for anything else.
func SniffPicture(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return FormatPNG
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return FormatTIFF
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return FormatJPEG
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return FormatGIF
	case bytes.HasPrefix(head, []byte("BM")):
		return FormatBMP
	case len(head) >= 2 && head[0] == 'P' && bytes.IndexByte([]byte("0123456fy"), head[1]) >= 0:
		return FormatPNM
	case webp.HasSignature(head):
		return FormatWebP
	}
	return ""
}

// ReadPictureFile decodes the 2-D picture at path by its content; see
// ReadPicture.
func ReadPictureFile(path string, opts ...Options) (*volume.Volume, Format, error) {
	f, err := codec.OpenRegular(path) // a FIFO named like a picture must not block
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	v, format, err := ReadPicture(f, opts...)
	if err != nil {
		return nil, format, fmt.Errorf("%s: %w", path, err)
	}
	return v, format, nil
}

// ReadPicture decodes a PNG, TIFF, BMP, JPEG or GIF picture chosen by its
// magic bytes (a file's name plays no part, as with Pillow), into a 2-D
// volume laid out as png.Read's, with the samples numpy.array(Image.open(f))
// gives:
//   - PNG as png.Read (Options apply), except that Pillow reduces 16-bit
//     colour to 8 bits (the high byte of each sample) and reads 16-bit
//     grey + alpha as RGBA (grey, grey, grey, alpha high bytes);
//   - TIFF as tiff.ReadPillow: the first page, the layouts Pillow opens
//     (others are refused), WhiteIsZero 1- and 8-bit inverted, 16-bit
//     RGB(A) reduced to 8 bits;
//   - BMP: 1–8-bit paletted files as palette indices (Pillow's "P", or "L"
//     and "1" for a grey ramp palette, where the index is the value), the
//     palette colours with Options.ExpandPalette; 24- and 32-bit files as
//     3 RGB channels (Pillow reads 32-bit BI_RGB as RGB, the fourth byte
//     being padding);
//   - GIF: the first frame, as palette indices or (ExpandPalette) colours;
//   - binary PBM/PGM/PPM (P4, P5, P6) as pnm.Read (Pillow's PPM plugin);
//   - still WebP as webp.Read (libwebp's output: RGB, or RGBA with alpha);
//   - JPEG: grey → 1 channel, colour → 3 RGB channels. Huffman-coded
//     8-bit files, sequential or progressive, grey or YCbCr 4:4:4/4:2:2/
//     4:2:0, are decoded with libjpeg-turbo's default arithmetic (islow
//     IDCT, fancy upsampling, its YCbCr tables), identical to Pillow's
//     samples; 12-bit, arithmetic-coded, CMYK, 4:4:0 and damaged files fall
//     back to Go's image/jpeg, which can differ by a grey level on a few
//     per cent of pixels.
//
// It fails with ErrUnknownPicture for any other content.
func ReadPicture(r io.Reader, opts ...Options) (*volume.Volume, Format, error) {
	o := codec.PickOptions(opts)
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(16)
	format := SniffPicture(head)
	var v *volume.Volume
	var err error
	switch format {
	case FormatPNG:
		if v, err = png.Read(br, o); err == nil {
			pillowPNG16(v)
		}
	case FormatTIFF:
		v, err = tiff.ReadPillow(br, o)
	case FormatBMP, FormatGIF, FormatJPEG:
		v, err = readStdPicture(br, format, o)
	case FormatPNM:
		v, err = pnm.Read(br, o)
	case FormatWebP:
		v, err = webp.Read(br, o)
	default:
		return nil, "", ErrUnknownPicture
	}
	return v, format, err
}

// readStdPicture decodes BMP, GIF and JPEG with the Go decoders after a
// size check on the header.
func readStdPicture(br *bufio.Reader, format Format, o Options) (*volume.Volume, error) {
	// Buffer the whole stream: DecodeConfig and Decode each need the start.
	data, err := io.ReadAll(io.LimitReader(br, o.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	var decodeConfig func(io.Reader) (image.Config, error)
	var decode func(io.Reader) (image.Image, error)
	switch format {
	case FormatBMP:
		decodeConfig, decode = bmp.DecodeConfig, bmp.Decode
	case FormatGIF:
		decodeConfig, decode = gif.DecodeConfig, gif.Decode
	default:
		decodeConfig, decode = stdjpeg.DecodeConfig, stdjpeg.Decode
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s header: %w", format, err)
	}
	if _, err := codec.SampleCount(string(format)+" header: width × height × channels", o.MaxBytes, int64(cfg.Width), int64(cfg.Height), 4); err != nil {
		return nil, err
	}
	if format == FormatJPEG {
		// libjpeg-turbo's arithmetic for Huffman 8-bit files; anything
		// else (12-bit, arithmetic coding, CMYK, damaged) goes to Go's.
		if v, err := jpeg.DecodeTurbo(data); err == nil {
			return v, nil
		}
	}
	img, err := decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	switch m := img.(type) {
	case *image.YCbCr:
		return jpeg.RGBVolume(m), nil
	case *image.CMYK:
		return nil, fmt.Errorf("%s: CMYK pictures are not supported", format)
	}
	v, err := codec.ImageToVolume(img, o.ExpandPalette)
	if err != nil {
		return nil, err
	}
	if format == FormatBMP && v.NumChannels() == 4 && !isPaletted(img) {
		codec.KeepChannels(v, 0, 1, 2)
	}
	return v, nil
}

func isPaletted(img image.Image) bool { _, ok := img.(*image.Paletted); return ok }

// pillowPNG16 reduces a 16-bit colour PNG (2 to 4 channels) to what
// Pillow's PNG modes give: RGB;16B and RGBA;16B keep the high byte of
// each sample, LA;16B becomes mode RGBA (grey high byte three times,
// then the alpha high byte). 16-bit grey (mode I / I;16) is kept.
func pillowPNG16(v *volume.Volume) {
	if v.DType != volume.Uint16 || v.NumChannels() < 2 {
		return
	}
	if v.NumChannels() == 2 {
		out := make([]float64, 2*len(v.Data))
		for i := 0; i+1 < len(v.Data); i += 2 {
			g, a := float64(uint16(v.Data[i])>>8), float64(uint16(v.Data[i+1])>>8)
			o := out[2*i:]
			o[0], o[1], o[2], o[3] = g, g, g, a
		}
		v.Data, v.Channels, v.DType = out, 4, volume.Uint8
		return
	}
	for i, x := range v.Data {
		v.Data[i] = float64(uint16(x) >> 8)
	}
	v.DType = volume.Uint8
}
