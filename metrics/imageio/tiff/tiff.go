package tiff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	mbits "math/bits"
	"os"
	"sync"

	"github.com/klauspost/compress/zlib"
	"golang.org/x/image/tiff/lzw"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// TIFF tags the decoder reads.
const (
	tagNewSubfileType   = 254
	TagImageWidth       = 256
	TagImageLength      = 257
	TagBitsPerSample    = 258
	tagCompression      = 259
	TagPhotometric      = 262
	tagImageDescription = 270
	TagFillOrder        = 266
	TagStripOffsets     = 273
	TagSamplesPerPixel  = 277
	TagRowsPerStrip     = 278
	TagStripByteCounts  = 279
	TagPlanarConfig     = 284
	tagPredictor        = 317
	tagColorMap         = 320
	tagTileWidth        = 322
	tagTileLength       = 323
	tagTileOffsets      = 324
	tagTileByteCounts   = 325
	TagExtraSamples     = 338
	TagSampleFormat     = 339
)

// maxTIFFPages caps the IFD chain.
const maxTIFFPages = 1 << 16

// tiffTypeSize is the byte size of each TIFF field type (0 = unknown).
var tiffTypeSize = [...]int{0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8}

// tiffFile is a whole TIFF file in memory.
type tiffFile struct {
	b  []byte
	bo binary.ByteOrder
}

// tiffIFD holds the tags of one page as unsigned integers (floats and
// rationals are not needed).
type tiffIFD map[uint16][]uint64

func (d tiffIFD) first(tag uint16, def uint64) uint64 {
	if v, ok := d[tag]; ok && len(v) > 0 {
		return v[0]
	}
	return def
}

// ReadFile decodes a TIFF file; see Read.
func ReadFile(path string, opts ...Options) (*volume.Volume, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		return Read(f, opts...)
	})
}

// Read decodes a baseline TIFF (classic, not BigTIFF) into a volume:
// axis 0 = column, axis 1 = row, axis 2 = page. All pages (except
// reduced-resolution ones) are stacked, as tifffile does; they must share
// size and sample type. Options.FirstPage keeps only the first page, as
// Pillow does.
//
// Supported: strips and tiles; compression none, LZW, Deflate (8 and 32946)
// and PackBits; horizontal predictor (2) for integer samples; chunky
// (interleaved) samples; BitsPerSample 1 (returned as 0/1 uint8), 8, 16, 32
// and 64 with SampleFormat unsigned, signed or IEEE float (16-bit float
// widened, DType float32); 1 to 4 samples
// per pixel as Channels (gray, gray + alpha, RGB, RGBA). Values are returned
// as stored (WhiteIsZero is not inverted, as tifffile). A paletted image
// gives its indices, or with Options.ExpandPalette its colours: 3 uint8
// channels, each 16-bit colour-map entry reduced to its high byte (v >> 8),
// as Pillow does. Spacing is 1 and Direction zero: TIFF resolution
// tags are ignored. The whole file is read into memory (capped by
// Options.MaxBytes).
func Read(r io.Reader, opts ...Options) (*volume.Volume, error) {
	o := codec.PickOptions(opts)
	b, err := readTIFFBytes(r, o)
	if err != nil {
		return nil, err
	}
	return decodeTIFF(b, options{Options: o})
}

// options are Options with what only the TIFF decoder sets.
type options struct {
	Options
	// pillow makes the decoder read a page as Pillow does (see
	// ReadPillow); set by ReadPicture and ReadPillow.
	pillow bool
}

// readTIFFBytes reads a whole TIFF, at most Options.MaxBytes.
func readTIFFBytes(r io.Reader, o Options) ([]byte, error) {
	return codec.ReadAllMax(r, o, "tiff")
}

// openTIFF reads the header of a classic TIFF: its byte order.
func openTIFF(b []byte) (*tiffFile, error) {
	if len(b) < 8 {
		return nil, errors.New("tiff: file truncated in the header")
	}
	t := &tiffFile{b: b}
	switch string(b[:4]) {
	case "II*\x00":
		t.bo = binary.LittleEndian
	case "MM\x00*":
		t.bo = binary.BigEndian
	case "II+\x00", "MM\x00+":
		return nil, errors.New("tiff: BigTIFF is not supported")
	default:
		return nil, errors.New("tiff: bad byte-order mark, not a TIFF file")
	}
	return t, nil
}

func decodeTIFF(b []byte, o options) (*volume.Volume, error) {
	t, err := openTIFF(b)
	if err != nil {
		return nil, err
	}
	off := uint64(t.bo.Uint32(b[4:]))
	seen := map[uint64]bool{}
	var v *volume.Volume
	var pageLen int
	pages := 0
	for off != 0 {
		if seen[off] {
			return nil, fmt.Errorf("tiff: IFD chain loops back to offset %d", off)
		}
		seen[off] = true
		if len(seen) > maxTIFFPages {
			return nil, fmt.Errorf("tiff: more than %d pages", maxTIFFPages)
		}
		ifd, next, err := t.readIFD(off)
		if err != nil {
			return nil, fmt.Errorf("tiff: page %d: %w", len(seen)-1, err)
		}
		off = next
		if ifd.first(tagNewSubfileType, 0)&1 != 0 && v != nil {
			continue // reduced-resolution copy
		}
		page, err := t.decodePage(ifd, o)
		if err != nil {
			return nil, fmt.Errorf("tiff: page %d: %w", len(seen)-1, err)
		}
		if v == nil {
			v = page
			pageLen = len(page.Data)
		} else {
			if page.Shape != [3]int{v.Shape[0], v.Shape[1], 1} || page.Channels != v.Channels || page.DType != v.DType {
				return nil, fmt.Errorf("tiff: page %d is %v × %d %s, page 0 is %v × %d %s; pages must match",
					len(seen)-1, page.Shape, page.Channels, page.DType, v.Shape, v.Channels, v.DType)
			}
			if int64(len(v.Data)+pageLen)*8 > o.MaxBytes {
				return nil, fmt.Errorf("tiff: pages exceed the %d-byte limit (Options.MaxBytes)", o.MaxBytes)
			}
			v.Data = append(v.Data, page.Data...)
			v.Shape[2]++
		}
		pages++
		if o.FirstPage {
			break
		}
	}
	if v == nil {
		return nil, errors.New("tiff: no image page")
	}
	return v, nil
}

// readIFD reads the directory at off and returns its tags and the offset of
// the next directory.
func (t *tiffFile) readIFD(off uint64) (tiffIFD, uint64, error) {
	b := t.b
	if off+2 > uint64(len(b)) {
		return nil, 0, fmt.Errorf("IFD offset %d beyond the file (%d bytes)", off, len(b))
	}
	n := uint64(t.bo.Uint16(b[off:]))
	end := off + 2 + 12*n
	if end+4 > uint64(len(b)) {
		return nil, 0, fmt.Errorf("IFD at %d with %d entries runs past the file end", off, n)
	}
	ifd := tiffIFD{}
	for i := uint64(0); i < n; i++ {
		e := b[off+2+12*i:]
		tag, typ, cnt := t.bo.Uint16(e), t.bo.Uint16(e[2:]), uint64(t.bo.Uint32(e[4:]))
		if int(typ) >= len(tiffTypeSize) || tiffTypeSize[typ] == 0 {
			continue // unknown type: skip, as readers do
		}
		sz := uint64(tiffTypeSize[typ])
		total := sz * cnt
		if cnt > uint64(len(b)) || total > uint64(len(b)) {
			return nil, 0, fmt.Errorf("tag %d: count %d runs past the file end", tag, cnt)
		}
		data := e[8:12]
		if total > 4 {
			p := uint64(t.bo.Uint32(e[8:]))
			if p+total > uint64(len(b)) {
				return nil, 0, fmt.Errorf("tag %d: values at %d+%d run past the file end", tag, p, total)
			}
			data = b[p : p+total]
		}
		switch typ {
		case 2: // ASCII: only the description is read
			if tag != tagImageDescription {
				continue
			}
			vals := make([]uint64, cnt)
			for j := range vals {
				vals[j] = uint64(data[j])
			}
			ifd[tag] = vals
		case 1, 6, 7: // BYTE, SBYTE, UNDEFINED
			vals := make([]uint64, cnt)
			for j := range vals {
				vals[j] = uint64(data[j])
			}
			ifd[tag] = vals
		case 3, 8: // SHORT, SSHORT
			vals := make([]uint64, cnt)
			for j := range vals {
				vals[j] = uint64(t.bo.Uint16(data[2*j:]))
			}
			ifd[tag] = vals
		case 4, 9, 13: // LONG, SLONG, IFD
			vals := make([]uint64, cnt)
			for j := range vals {
				vals[j] = uint64(t.bo.Uint32(data[4*j:]))
			}
			ifd[tag] = vals
		case 16, 17, 18: // LONG8 family
			vals := make([]uint64, cnt)
			for j := range vals {
				vals[j] = t.bo.Uint64(data[8*j:])
			}
			ifd[tag] = vals
		}
	}
	return ifd, uint64(t.bo.Uint32(b[end:])), nil
}

// tiffDType maps BitsPerSample and SampleFormat to an element type.
func tiffDType(bits, format uint64) (volume.DType, error) {
	switch {
	case bits == 1 && format == 1:
		return volume.Uint8, nil
	case bits == 8 && format == 1:
		return volume.Uint8, nil
	case bits == 8 && format == 2:
		return volume.Int8, nil
	case bits == 16 && format == 1:
		return volume.Uint16, nil
	case bits == 16 && format == 2:
		return volume.Int16, nil
	case bits == 16 && format == 3:
		return volume.Float32, nil // float16, widened (volume has no half type)
	case bits == 32 && format == 1:
		return volume.Uint32, nil
	case bits == 32 && format == 2:
		return volume.Int32, nil
	case bits == 32 && format == 3:
		return volume.Float32, nil
	case bits == 64 && format == 1:
		return volume.Uint64, nil
	case bits == 64 && format == 2:
		return volume.Int64, nil
	case bits == 64 && format == 3:
		return volume.Float64, nil
	}
	return "", fmt.Errorf("BitsPerSample %d with SampleFormat %d is not supported (want 1, 8, 16, 32 or 64 bits; unsigned, signed or float)", bits, format)
}

// tiffLayout is a validated page: its sample type and where its strips or
// tiles are.
type tiffLayout struct {
	w, h, spp, bits        uint64
	dt                     volume.DType
	photometric            uint64
	predictor, compression uint64
	bw, bh, across         uint64 // block (strip or tile) size; blocks per row
	tiled                  bool
	offsets, counts        []uint64
	rowBytes, elem         uint64 // bytes per block row; bytes per sample
	perPlane               uint64 // blocks per sample plane (all blocks when chunky)
	planar                 bool   // PlanarConfiguration 2: one plane per sample
	planes                 uint64 // planar: the planes decoded (the first ones)
	reverseBits            bool   // FillOrder 2 (Pillow): bits of each stored byte reversed
	pillow                 *pillowLayout
}

// layout checks a page's tags and returns where its samples are; every
// decoder of a page goes through it, so that all accept the same files.
func (t *tiffFile) layout(ifd tiffIFD, o options) (*tiffLayout, error) {
	s, err := samplesOf(ifd, o, t.bo == binary.BigEndian)
	if err != nil {
		return nil, err
	}
	predictor, compression, err := codingOf(ifd, o, s)
	if err != nil {
		return nil, err
	}
	if _, err := codec.SampleCount("tiff: ImageWidth × ImageLength × SamplesPerPixel", o.MaxBytes, int64(s.w), int64(s.h), int64(s.spp)); err != nil {
		return nil, err
	}
	b, err := t.blocksOf(ifd, s, compression)
	if err != nil {
		return nil, err
	}
	l := &tiffLayout{w: s.w, h: s.h, spp: s.spp, bits: s.bits, dt: s.dt, photometric: s.photometric,
		predictor: predictor, compression: compression, bw: b.bw, bh: b.bh, across: b.across, tiled: b.tiled,
		offsets: b.offsets, counts: b.counts, rowBytes: (b.bw*b.blockSpp*s.bits + 7) / 8, elem: s.bits / 8,
		perPlane: b.across * b.down, planar: s.planar, pillow: s.pl}
	pl := s.pl
	if pl != nil {
		l.reverseBits = pl.fillOrder == 2
		if s.planar {
			l.planes = pl.spp // planes Pillow keeps (unspecified extra planes dropped)
			if err := pillowPlanarCheck(pl, compression); err != nil {
				return nil, err
			}
		}
		// Pillow's libtiff path (any compression) gets native-order samples
		// but unpacks 32-bit and signed 16-bit big-endian ones with a byte
		// swap all the same (it renames only the unsigned 16-bit rawmodes).
		pl.swap32 = compression != 1 && (pl.rawmode == "I;32BS" || pl.rawmode == "F;32BF")
		pl.swap16 = compression != 1 && pl.rawmode == "I;16BS"
	}
	return l, nil
}

// tiffSamples is what a page's tags say about its samples.
type tiffSamples struct {
	w, h, spp, bits, format, photometric uint64
	dt                                   volume.DType
	planar                               bool          // PlanarConfiguration 2 (Pillow only)
	pl                                   *pillowLayout // Pillow's reading of the page, nil for tifffile's
}

// samplesOf checks and returns a page's image size, samples per pixel,
// sample size and format, photometric interpretation and planar
// configuration; o.pillow applies Pillow's OPEN_INFO table (bigEndian: the
// file's byte order).
func samplesOf(ifd tiffIFD, o options, bigEndian bool) (tiffSamples, error) {
	w, h := ifd.first(TagImageWidth, 0), ifd.first(TagImageLength, 0)
	if w < 1 || w > math.MaxInt32 {
		return tiffSamples{}, fmt.Errorf("ImageWidth = %d, want 1..%d", w, math.MaxInt32)
	}
	if h < 1 || h > math.MaxInt32 {
		return tiffSamples{}, fmt.Errorf("ImageLength = %d, want 1..%d", h, math.MaxInt32)
	}
	spp := ifd.first(TagSamplesPerPixel, 1)
	if spp < 1 || spp > 4 {
		return tiffSamples{}, fmt.Errorf("SamplesPerPixel = %d, want 1..4", spp)
	}
	bitsList := ifd[TagBitsPerSample]
	bits := ifd.first(TagBitsPerSample, 1)
	for _, b := range bitsList {
		if b != bits {
			return tiffSamples{}, fmt.Errorf("BitsPerSample %v: mixed sample sizes are not supported", bitsList)
		}
	}
	format := ifd.first(TagSampleFormat, 1)
	for _, f := range ifd[TagSampleFormat] {
		if f != format {
			return tiffSamples{}, fmt.Errorf("SampleFormat %v: mixed sample formats are not supported", ifd[TagSampleFormat])
		}
	}
	if format == 4 { // undefined: treat as unsigned
		format = 1
	}
	// Pillow opens only the layouts of its OPEN_INFO table, and reads a
	// missing PhotometricInterpretation as WhiteIsZero.
	var pl *pillowLayout
	photometric := ifd.first(TagPhotometric, 1)
	if o.pillow {
		var err error
		if pl, err = pillowTIFFLayout(ifd, bigEndian); err != nil {
			return tiffSamples{}, err
		}
		photometric = ifd.first(TagPhotometric, 0)
		if pl.rawmode == "L" && format == 2 {
			format = 1 // signed 8-bit: Pillow reads the bytes as mode L
		}
	}
	dt, err := tiffDType(bits, format)
	if err != nil {
		return tiffSamples{}, err
	}
	if bits == 1 && spp != 1 {
		return tiffSamples{}, fmt.Errorf("1-bit samples with SamplesPerPixel = %d are not supported", spp)
	}
	planar := false
	if pc := ifd.first(TagPlanarConfig, 1); pc != 1 && spp > 1 {
		if !o.pillow || pc != 2 {
			return tiffSamples{}, fmt.Errorf("PlanarConfiguration = %d (separate planes) is not supported", pc)
		}
		planar = true
	}
	switch photometric {
	case 0, 1, 2, 3:
	case 6: // YCbCr: Pillow reads a single 8-bit sample as L
		if pl == nil || pl.rawmode != "L" {
			return tiffSamples{}, fmt.Errorf("tiff: PhotometricInterpretation = 6 (YCbCr) colour is not supported")
		}
	default:
		return tiffSamples{}, fmt.Errorf("tiff: PhotometricInterpretation = %d is not supported (want 0, 1, 2 or 3)", photometric)
	}
	return tiffSamples{w: w, h: h, spp: spp, bits: bits, format: format, photometric: photometric, dt: dt, planar: planar, pl: pl}, nil
}

// codingOf checks and returns a page's predictor and compression.
func codingOf(ifd tiffIFD, o options, s tiffSamples) (predictor, compression uint64, err error) {
	predictor = ifd.first(tagPredictor, 1)
	if c := ifd.first(tagCompression, 1); o.pillow && (c == 1 || c == 32773) {
		// Pillow decodes uncompressed strips itself and PackBits through
		// libtiff, whose PackBits codec has no predictor: the tag is
		// ignored there (tifffile undoes it).
		predictor = 1
	}
	if predictor != 1 && (predictor != 2 || s.format == 3 || s.bits < 8) {
		return 0, 0, fmt.Errorf("tiff: Predictor = %d with %d-bit samples of format %d is not supported", predictor, s.bits, s.format)
	}
	compression = ifd.first(tagCompression, 1)
	switch compression {
	case 1, 5, 8, 32946, 32773:
	default:
		return 0, 0, fmt.Errorf("tiff: Compression = %d is not supported (want none 1, LZW 5, Deflate 8/32946 or PackBits 32773)", compression)
	}
	return predictor, compression, nil
}

// tiffBlocks is how a page's samples are cut into strips or tiles.
type tiffBlocks struct {
	bw, bh, across, down uint64
	tiled                bool
	blockSpp             uint64 // samples per pixel in one block (1 for planar pages)
	offsets, counts      []uint64
}

// blocksOf checks and returns a page's strips (tiles as wide as the image)
// or tiles, their offsets and byte counts.
func (t *tiffFile) blocksOf(ifd tiffIFD, s tiffSamples, compression uint64) (tiffBlocks, error) {
	w, h, spp, planar := s.w, s.h, s.spp, s.planar
	// Blocks: strips are tiles as wide as the image.
	bw, bh := w, ifd.first(TagRowsPerStrip, h)
	offsets, counts := ifd[TagStripOffsets], ifd[TagStripByteCounts]
	_, tiled := ifd[tagTileWidth]
	if tiled {
		bw, bh = ifd.first(tagTileWidth, 0), ifd.first(tagTileLength, 0)
		offsets, counts = ifd[tagTileOffsets], ifd[tagTileByteCounts]
		if bw < 1 || bh < 1 || bw > 1<<16 || bh > 1<<16 || bw*bh > max(4*w*h, 1<<20) {
			return tiffBlocks{}, fmt.Errorf("TileWidth × TileLength = %d × %d, want 1..65536 each and at most max(4 × image area, 2^20) pixels", bw, bh)
		}
	}
	if !tiled && (bh < 1 || bh > h) {
		bh = h // RowsPerStrip beyond the image: one strip (tiles keep their size)
	}
	across, down := (w+bw-1)/bw, (h+bh-1)/bh
	planes, blockSpp := uint64(1), spp
	if planar {
		planes, blockSpp = spp, 1
	}
	if uint64(len(offsets)) != across*down*planes {
		return tiffBlocks{}, fmt.Errorf("%d strip/tile offsets, want %d", len(offsets), across*down*planes)
	}
	if len(counts) != len(offsets) {
		if compression == 1 && len(counts) == 0 && len(offsets) == 1 {
			counts = []uint64{uint64(len(t.b)) - offsets[0]}
		} else {
			return tiffBlocks{}, fmt.Errorf("%d strip/tile byte counts for %d offsets", len(counts), len(offsets))
		}
	}
	return tiffBlocks{bw: bw, bh: bh, across: across, down: down, tiled: tiled, blockSpp: blockSpp, offsets: offsets, counts: counts}, nil
}

// block decompresses strip or tile bi into buf (grown as needed) and
// returns its top-left pixel, its row count and its bytes, rows × rowBytes.
// The predictor is not undone.
func (t *tiffFile) block(l *tiffLayout, bi int, buf []byte) (bx, by, rows uint64, data []byte, err error) {
	off, cnt := l.offsets[bi], l.counts[bi]
	if off > uint64(len(t.b)) || cnt > uint64(len(t.b))-off {
		return 0, 0, 0, nil, fmt.Errorf("strip/tile %d at %d+%d runs past the file end (%d bytes)", bi, off, cnt, len(t.b))
	}
	pi := uint64(bi) % l.perPlane
	bx, by = pi%l.across*l.bw, pi/l.across*l.bh
	rows = min(l.bh, l.h-by)
	if l.tiled {
		rows = l.bh // tiles are always full size
	}
	need := l.rowBytes * rows
	if uint64(cap(buf)) < need {
		buf = make([]byte, need)
	}
	data = buf[:need]
	src := t.b[off : off+cnt]
	if l.reverseBits {
		rev := make([]byte, len(src))
		for i, c := range src {
			rev[i] = mbits.Reverse8(c)
		}
		src = rev
	}
	if err := tiffDecompress(data, src, l.compression); err != nil {
		return 0, 0, 0, nil, fmt.Errorf("strip/tile %d: %w", bi, err)
	}
	return bx, by, rows, data, nil
}

// decodePage decodes one IFD into a single-page volume.
func (t *tiffFile) decodePage(ifd tiffIFD, o options) (*volume.Volume, error) {
	l, err := t.layout(ifd, o)
	if err != nil {
		return nil, err
	}
	w, h, spp, bw, bits := l.w, l.h, l.spp, l.bw, l.bits
	blockSpp, nc := spp, spp // samples per pixel in a block; channels decoded
	if l.planar {
		blockSpp, nc = 1, l.planes
	}
	n := int(w * h * nc)
	v := &volume.Volume{Grid: volume.NewGrid(int(w), int(h)), DType: l.dt, Channels: int(nc), Data: make([]float64, n)}
	bo := t.bo
	block := make([]byte, l.rowBytes*l.bh)
	rowVals := make([]float64, bw*blockSpp)
	for bi := range l.offsets {
		plane := uint64(bi) / l.perPlane
		if l.planar && plane >= l.planes {
			break
		}
		bx, by, rows, data, err := t.block(l, bi, block)
		if err != nil {
			return nil, err
		}
		for y := uint64(0); y < rows && by+y < h; y++ {
			row := data[y*l.rowBytes : (y+1)*l.rowBytes]
			if l.predictor == 2 {
				undoHorizontalPredictor(row, int(blockSpp), int(l.elem), bo)
			}
			if bits == 1 {
				for x := uint64(0); x < bw; x++ {
					rowVals[x] = float64(row[x/8] >> (7 - x%8) & 1)
				}
			} else if bits == 16 && l.dt == volume.Float32 {
				for i := range rowVals {
					rowVals[i] = halfToFloat(bo.Uint16(row[2*i:]))
				}
			} else {
				codec.Convert(rowVals, row, l.dt, bo)
			}
			cols := min(bw, w-bx)
			if l.planar {
				dst := v.Data[((by+y)*w+bx)*nc+plane:]
				for x := uint64(0); x < cols; x++ {
					dst[x*nc] = rowVals[x]
				}
				continue
			}
			dst := v.Data[((by+y)*w+bx)*spp:]
			copy(dst[:cols*spp], rowVals[:cols*spp])
		}
	}
	if l.pillow != nil {
		pillowSamples(v, l.pillow)
		orientPillow(v, pillowOrientation(ifd))
	}
	if l.photometric == 3 && o.ExpandPalette {
		if err := expandTIFFPalette(v, ifd[tagColorMap], bits); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// expandTIFFPalette replaces indices with the colour map's RGB, each 16-bit
// entry reduced to its high byte.
func expandTIFFPalette(v *volume.Volume, cmap []uint64, bits uint64) error {
	if v.NumChannels() != 1 || bits > 16 {
		return fmt.Errorf("palette image with %d samples of %d bits is not supported", v.NumChannels(), bits)
	}
	ncol := 1 << bits
	if len(cmap) != 3*ncol {
		return fmt.Errorf("ColorMap has %d entries, want %d", len(cmap), 3*ncol)
	}
	out := make([]float64, 3*len(v.Data))
	for i, idx := range v.Data {
		k := int(idx)
		for c := 0; c < 3; c++ {
			out[3*i+c] = float64(cmap[c*ncol+k] >> 8)
		}
	}
	v.Data, v.Channels, v.DType = out, 3, volume.Uint8
	return nil
}

// tiffDecompress fills dst from the compressed block src; a block that
// decodes to fewer bytes than dst is an error.
func tiffDecompress(dst, src []byte, compression uint64) error {
	var r io.Reader
	switch compression {
	case 1:
		if len(src) < len(dst) {
			return fmt.Errorf("truncated: %d bytes, want %d", len(src), len(dst))
		}
		copy(dst, src)
		return nil
	case 32773:
		return unpackBits(dst, src)
	case 5:
		lr := lzw.NewReader(bytes.NewReader(src), lzw.MSB, 8)
		defer lr.Close()
		r = lr
	default:
		zr, err := getZlibReader(bytes.NewReader(src))
		if err != nil {
			return fmt.Errorf("deflate: %w", err)
		}
		defer zlibPool.Put(zr)
		r = zr
	}
	if k, err := io.ReadFull(r, dst); err != nil {
		return fmt.Errorf("decompressed %d of %d bytes: %w", k, len(dst), err)
	}
	return nil
}

// zlibPool keeps Deflate readers (each holds tens of kilobytes of tables and
// window) for reuse across blocks and files.
var zlibPool sync.Pool

// getZlibReader returns a pooled zlib reader reset onto src (put it back
// into zlibPool after use), or the header error zlib.NewReader gives. The
// TIFF Deflate blocks and the 8-bit PNG path share the pool.
func getZlibReader(src io.Reader) (io.ReadCloser, error) {
	if zr, ok := zlibPool.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(src, nil); err != nil {
			zlibPool.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(src)
}

// unpackBits decodes PackBits runs from src into dst.
func unpackBits(dst, src []byte) error {
	o, i := 0, 0
	for o < len(dst) {
		if i >= len(src) {
			return fmt.Errorf("packbits: truncated after %d of %d bytes", o, len(dst))
		}
		n := int(int8(src[i]))
		i++
		switch {
		case n >= 0:
			cnt := n + 1
			if i+cnt > len(src) || o+cnt > len(dst) {
				return errors.New("packbits: literal run overflows")
			}
			copy(dst[o:], src[i:i+cnt])
			i += cnt
			o += cnt
		case n != -128:
			cnt := 1 - n
			if i >= len(src) || o+cnt > len(dst) {
				return errors.New("packbits: repeat run overflows")
			}
			for k := 0; k < cnt; k++ {
				dst[o+k] = src[i]
			}
			i++
			o += cnt
		}
	}
	return nil
}

// undoHorizontalPredictor integrates a row of differences in place.
func undoHorizontalPredictor(row []byte, spp, elem int, bo binary.ByteOrder) {
	stride := spp * elem
	switch elem {
	case 1:
		for i := spp; i < len(row); i++ {
			row[i] += row[i-spp]
		}
	case 2:
		for i := stride; i+2 <= len(row); i += 2 {
			bo.PutUint16(row[i:], bo.Uint16(row[i:])+bo.Uint16(row[i-stride:]))
		}
	case 4:
		for i := stride; i+4 <= len(row); i += 4 {
			bo.PutUint32(row[i:], bo.Uint32(row[i:])+bo.Uint32(row[i-stride:]))
		}
	case 8:
		for i := stride; i+8 <= len(row); i += 8 {
			bo.PutUint64(row[i:], bo.Uint64(row[i:])+bo.Uint64(row[i-stride:]))
		}
	}
}

// tiffFormat returns BitsPerSample and SampleFormat for dt.
func tiffFormat(dt volume.DType) (bits, format uint16, err error) {
	size, err := codec.ElemSize(dt)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case dt == volume.Float32 || dt == volume.Float64:
		format = 3
	case dt == volume.Int8 || dt == volume.Int16 || dt == volume.Int32 || dt == volume.Int64:
		format = 2
	default:
		format = 1
	}
	return uint16(size * 8), format, nil
}

// WriteFile writes v to path as TIFF; see Write.
func WriteFile(path string, v *volume.Volume, dt volume.DType) error {
	var buf bytes.Buffer
	if err := Write(&buf, v, dt); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Write encodes v as an uncompressed little-endian TIFF with elements
// of type dt (v.DType when empty): one page per slice along axis 2, one strip
// per page; 1 channel → BlackIsZero gray, 2 → gray + alpha, 3 → RGB,
// 4 → RGBA (alpha recorded as an unassociated ExtraSample). SampleFormat
// records signed and float types. Integer types need whole in-range samples.
func Write(w io.Writer, v *volume.Volume, dt volume.DType) error {
	if err := codec.CheckVolume(v); err != nil {
		return err
	}
	if dt == "" {
		dt = v.DType
	}
	bits, format, err := tiffFormat(dt)
	if err != nil {
		return fmt.Errorf("tiff: %w", err)
	}
	nc := v.NumChannels()
	if nc > 4 {
		return fmt.Errorf("tiff: %d channels, want 1 to 4", nc)
	}
	data, err := codec.EncodeSamples(v.Data, dt, binary.LittleEndian)
	if err != nil {
		return fmt.Errorf("tiff: %w", err)
	}
	pageBytes := len(data) / v.Shape[2]
	var out bytes.Buffer
	out.Write([]byte("II*\x00\x00\x00\x00\x00"))
	prevNext := 4 // where to patch the offset of the next IFD
	for p := 0; p < v.Shape[2]; p++ {
		dataOff := out.Len()
		out.Write(data[p*pageBytes : (p+1)*pageBytes])
		if out.Len()%2 == 1 {
			out.WriteByte(0)
		}
		entries := pageEntries(v, nc, bits, format, dataOff, pageBytes)
		if prevNext, err = writeIFD(&out, entries, prevNext); err != nil {
			return err
		}
	}
	_, err = w.Write(out.Bytes())
	return err
}

// ifdEntry is one tag of an image file directory: its type is 3 (SHORT)
// or 4 (LONG).
type ifdEntry struct {
	tag, typ uint16
	vals     []uint32
}

// pageEntries are the tags Write gives one page of v (nc channels of
// bits-bit samples in SampleFormat format, one strip of pageBytes at
// dataOff), in ascending tag order.
func pageEntries(v *volume.Volume, nc int, bits, format uint16, dataOff, pageBytes int) []ifdEntry {
	photometric := uint32(1)
	if nc >= 3 {
		photometric = 2
	}
	bitsVals := make([]uint32, nc)
	fmtVals := make([]uint32, nc)
	for i := range bitsVals {
		bitsVals[i], fmtVals[i] = uint32(bits), uint32(format)
	}
	entries := []ifdEntry{
		{TagImageWidth, 4, []uint32{uint32(v.Shape[0])}},
		{TagImageLength, 4, []uint32{uint32(v.Shape[1])}},
		{TagBitsPerSample, 3, bitsVals},
		{tagCompression, 3, []uint32{1}},
		{TagPhotometric, 3, []uint32{photometric}},
		{TagStripOffsets, 4, []uint32{uint32(dataOff)}},
		{TagSamplesPerPixel, 3, []uint32{uint32(nc)}},
		{TagRowsPerStrip, 4, []uint32{uint32(v.Shape[1])}},
		{TagStripByteCounts, 4, []uint32{uint32(pageBytes)}},
		{TagPlanarConfig, 3, []uint32{1}},
	}
	if nc == 2 || nc == 4 {
		entries = append(entries, ifdEntry{TagExtraSamples, 3, []uint32{2}})
	}
	return append(entries, ifdEntry{TagSampleFormat, 3, fmtVals})
}

// writeIFD appends entries' out-of-line values and then the directory to
// out (each word-aligned), patches the offset at prevNext to point to
// it, and returns where the directory's own next-IFD offset lies.
func writeIFD(out *bytes.Buffer, entries []ifdEntry, prevNext int) (int, error) {
	le := binary.LittleEndian
	extOff := make([]int, len(entries))
	for i, e := range entries {
		size := 2
		if e.typ == 4 {
			size = 4
		}
		if size*len(e.vals) > 4 {
			extOff[i] = out.Len()
			for _, x := range e.vals {
				if size == 2 {
					binary.Write(out, le, uint16(x))
				} else {
					binary.Write(out, le, x)
				}
			}
		}
	}
	if out.Len()%2 == 1 {
		out.WriteByte(0)
	}
	ifdOff := out.Len()
	if int64(ifdOff) > math.MaxUint32 {
		return 0, errors.New("tiff: image larger than 4 GiB needs BigTIFF, not supported")
	}
	le.PutUint32(out.Bytes()[prevNext:], uint32(ifdOff))
	binary.Write(out, le, uint16(len(entries)))
	for i, e := range entries {
		binary.Write(out, le, e.tag)
		binary.Write(out, le, e.typ)
		binary.Write(out, le, uint32(len(e.vals)))
		var val [4]byte
		if extOff[i] != 0 {
			le.PutUint32(val[:], uint32(extOff[i]))
		} else if e.typ == 3 {
			for k, x := range e.vals {
				le.PutUint16(val[2*k:], uint16(x))
			}
		} else {
			le.PutUint32(val[:], e.vals[0])
		}
		out.Write(val[:])
	}
	next := out.Len()
	out.Write([]byte{0, 0, 0, 0})
	return next, nil
}

// halfToFloat widens an IEEE 754 binary16 value (tifffile's float16).
func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * m * math.Ldexp(1, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * (1 + m/1024) * math.Ldexp(1, e-15)
}

// ReadTifffileFile is ReadFile that also returns the array shape
// tifffile gives the file when tifffile wrote it: tifffile stores the shape
// it was given as a JSON ImageDescription ({"shape": [1, 64, 64]}) on the
// first page and reads the file back in that shape, length-1 axes
// included, so a mask saved as mask[None] comes back 3-D. shape is nil when
// the first page has no such description (tifffile then shapes the array
// from the pages). The file is read once.
func ReadTifffileFile(path string, opts ...Options) (v *volume.Volume, shape []int, err error) {
	o := codec.PickOptions(opts)
	v, err = codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		b, err := readTIFFBytes(f, o)
		if err != nil {
			return nil, err
		}
		shape = tifffileShape(b)
		return decodeTIFF(b, options{Options: o})
	})
	return v, shape, err
}

// tifffileShape is the {"shape": […]} of the first page's
// ImageDescription of the TIFF b, or nil.
func tifffileShape(b []byte) []int {
	t, err := openTIFF(b)
	if err != nil {
		return nil
	}
	ifd, _, err := t.readIFD(uint64(t.bo.Uint32(b[4:])))
	if err != nil {
		return nil
	}
	desc := make([]byte, 0, len(ifd[tagImageDescription]))
	for _, c := range ifd[tagImageDescription] {
		desc = append(desc, byte(c))
	}
	desc = bytes.TrimRight(desc, "\x00")
	if !bytes.HasPrefix(desc, []byte("{")) {
		return nil
	}
	var meta struct {
		Shape []int `json:"shape"`
	}
	if json.Unmarshal(desc, &meta) != nil || len(meta.Shape) == 0 {
		return nil
	}
	return meta.Shape
}
