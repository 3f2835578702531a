package codec

import (
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/rexmle/rexmle/metrics/internal/inflate"
	"github.com/rexmle/rexmle/metrics/volume"
)

// MaxChannels caps ElementNumberOfChannels and NRRD list axes.
const MaxChannels = 4096

// Volume8 is an image read by metaimage.ReadFileBytes or nrrd.ReadFileBytes.
type Volume8 struct {
	// Volume is the image as metaimage.ReadFile (nrrd.ReadFile) returns it,
	// except that Data is nil when Bytes holds the samples.
	*volume.Volume
	// Bytes holds the samples of a single-channel 8-bit unsigned image
	// (nil for any other, whose samples are in Volume.Data).
	Bytes []uint8
}

// Truncate shortens s to n bytes and an ellipsis for an error message.
func Truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// WriteDims is the number of axes a writer records for v.
func WriteDims(v *volume.Volume) int {
	nd := max(v.Dims(), 2)
	for a := 2; a >= nd; a-- {
		if v.Spacing[a] != 1 {
			return a + 1
		}
	}
	return nd
}

// ZlibSource is a MetaImage's compressed data: streamed through a zlib
// reader (stream), or inflated whole (ReadBytes8).
type ZlibSource struct {
	R  io.Reader
	zr io.ReadCloser
}

// Stream returns a reader of the decompressed data.
func (z *ZlibSource) Stream() (io.Reader, error) {
	zr, err := zlib.NewReader(z.R)
	if err != nil {
		return nil, fmt.Errorf("compressed data: %w", err)
	}
	z.zr = zr
	return zr, nil
}

// Close releases the zlib reader, if one was opened.
func (z *ZlibSource) Close() {
	if z.zr != nil {
		z.zr.Close()
	}
}

// ReadBytes8 reads count one-byte samples from src, or from the compressed
// data z when it is not nil: inflated whole when the rest of the input is
// one zlib stream of exactly count bytes, else streamed (the first count
// bytes it decodes, as ReadSamples reads them). The samples go into buf
// when its capacity holds them (Options.Buffer), else into new memory.
func ReadBytes8(src io.Reader, z *ZlibSource, count int64, known bool, buf []byte) ([]uint8, error) {
	out := func() []uint8 {
		if int64(cap(buf)) >= count {
			return buf[:count]
		}
		return make([]uint8, count)
	}
	if z != nil {
		// A zlib stream of count bytes from any usual encoder is at most
		// count + count/8 + 1024 bytes long (stored blocks cost 5 bytes
		// per 65535); a longer one is streamed below.
		comp, err := io.ReadAll(io.LimitReader(z.R, count+count/8+1024))
		if err != nil {
			return nil, fmt.Errorf("compressed data: %w", err)
		}
		dst := out()
		if inflate.Zlib(dst, comp) == nil {
			return dst, nil
		}
		// Streamed from the bytes read and whatever follows them (a
		// valid stream may be longer than the bound).
		z.R = io.MultiReader(bytes.NewReader(comp), z.R)
		if src, err = z.Stream(); err != nil {
			return nil, err
		}
		defer z.Close()
		known = false
	}
	// Memory already held, or an input that provably holds the data, is
	// read into in one piece; anything else in growing pieces, so that a
	// truncated file claiming a huge image costs no huge allocation.
	if known || int64(cap(buf)) >= count {
		dst := out()
		if n, err := io.ReadFull(src, dst); err != nil {
			return nil, PixelDataError(err, int64(n), count)
		}
		return dst, nil
	}
	pieces, err := readExact(src, count)
	if err != nil {
		return nil, err
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	return bytes.Join(pieces, nil), nil
}
