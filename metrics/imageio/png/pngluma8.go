package png

import (
	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
)

// ReadLuma8FileInto is ReadGray8FileInto for the pictures an
// image-to-image grader converts to Pillow's mode "L" (Image.convert("L")),
// extended to the other common non-interlaced PNGs: 16-bit grey (mode
// "I;16": each sample clipped to 255), 8-bit grey with alpha ("LA": the grey
// channel), 8-bit RGB and RGBA (ITU-R 601-2 luma as Pillow rounds it,
// (19595 R + 38470 G + 7471 B + 0x8000) >> 16, alpha ignored). It returns
// those 8-bit samples, and ok = false for any other picture or any PNG it
// does not check fully (as ReadGray8FileInto: palettes, 16-bit
// colour, tRNS, interlacing, damage go to ReadPictureFile). Options.MaxBytes
// bounds the samples as ReadPictureFile counts them (width × height ×
// channels × 8 bytes), so that it accepts no file ReadPictureFile would
// refuse for its size. dst is reused as by ReadGray8FileInto.
func ReadLuma8FileInto(dst []byte, path string, opts ...Options) (pix []byte, w, h int, ok bool) {
	o := codec.PickOptions(opts)
	pix, w, h, _, ok = readPNG8File(dst, path, png8Caps{gray8: o.MaxBytes, other: o.MaxBytes})
	return pix, w, h, ok
}

// ReadMode8FileInto reads what ReadGray8FileInto and
// ReadLuma8FileInto read, with the file read once: an 8-bit grey
// PNG whose decoded size (counted as Options.MaxBytes counts it) is at most
// gray8MaxBytes, and another kind within opts' MaxBytes. gray reports an
// 8-bit grey PNG. A grader that would try the first and then the second
// (other caps for grey PNGs, which it keeps as bytes) reads a 16-bit or
// colour file once instead of twice.
func ReadMode8FileInto(dst []byte, path string, gray8MaxBytes int64, opts ...Options) (pix []byte, w, h int, gray, ok bool) {
	o := codec.PickOptions(opts)
	if gray8MaxBytes <= 0 {
		gray8MaxBytes = o.MaxBytes
	}
	return readPNG8File(dst, path, png8Caps{gray8: gray8MaxBytes, other: o.MaxBytes})
}

// lumaKind is one (bit depth, colour type) of PNG the 8-bit readers take:
// bytes per pixel in the filtered rows and channels as ReadPictureFile
// counts them.
type lumaKind struct {
	bpp, channels int
	depth, ct     int
}

var lumaKinds = map[[2]int]lumaKind{
	{8, 0}:  {1, 1, 8, 0},
	{16, 0}: {2, 1, 16, 0},
	{8, 4}:  {2, 2, 8, 4},
	{8, 2}:  {3, 3, 8, 2},
	{8, 6}:  {4, 4, 8, 6},
}

// inflateLuma8 decompresses and unfilters the rows of a PNG of kind k
// (bpp > 1) and converts each to mode "L" into pix (h rows of w bytes).
func inflateLuma8(idat [][]byte, pix []byte, w, h int, k lumaKind) bool {
	rawp := codec.FileBufs.Get().(*[]byte)
	defer codec.FileBufs.Put(rawp)
	stride := w*k.bpp + 1
	raw, ok := inflateRows(idat, rawp, stride, h)
	if !ok {
		return false
	}
	// Unfiltered in place: each row's bytes overwrite its filtered ones
	// (the previous row is already reconstructed there).
	var prev []byte
	for y := 0; y < h; y++ {
		line := raw[y*stride : (y+1)*stride]
		cur := line[1:]
		if !unfilterRowBpp(line[0], cur, prev, k.bpp) {
			return false
		}
		prev = cur
		toLuma8(pix[y*w:y*w+w], cur, k)
	}
	return true
}

// toLuma8 converts one reconstructed row cur of a PNG of kind k to mode
// "L" bytes in out, without branches on the samples (16-bit rows clip
// about half their samples in 12-bit scans: a branch mispredicted).
func toLuma8(out, cur []byte, k lumaKind) {
	switch {
	case k.ct == 0: // 16-bit grey, big-endian: clipped to 255
		cur = cur[:2*len(out)]
		for x := range out {
			v := cur[2*x+1]
			if cur[2*x] != 0 {
				v = 255
			}
			out[x] = v
		}
	case k.ct == 4: // grey + alpha: the grey channel
		cur = cur[:2*len(out)]
		for x := range out {
			out[x] = cur[2*x]
		}
	case k.bpp == 3: // RGB
		cur = cur[:3*len(out)]
		for x := range out {
			p := cur[3*x : 3*x+3 : 3*x+3]
			out[x] = luma601(p[0], p[1], p[2])
		}
	default: // RGBA: alpha ignored
		cur = cur[:4*len(out)]
		for x := range out {
			p := cur[4*x : 4*x+4 : 4*x+4]
			out[x] = luma601(p[0], p[1], p[2])
		}
	}
}

// luma601 is Pillow's ITU-R 601-2 luma of an RGB pixel.
func luma601(r, g, b byte) byte {
	return uint8((19595*uint32(r) + 38470*uint32(g) + 7471*uint32(b) + 0x8000) >> 16)
}

// unfilterRowBpp reconstructs one row of bpp-byte pixels (PNG filter types
// 0–4) in place in cur, given the previous reconstructed row (nil for the
// first row, read as zeros).
func unfilterRowBpp(ft byte, cur, prev []byte, bpp int) bool {
	return unfilter(ft, cur, cur, prev, bpp)
}
