package nifti

import (
	"encoding/binary"
	"io"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/internal/boolbytes"
)

// readNonZero reads count integer elements of size bytes from r and
// reports which are non-zero: an integer is non-zero exactly when one of
// its bytes is, whatever the byte order. With known = true (the input is
// known to hold the data) the mask is allocated first; otherwise it grows
// with the data read, so a stream that ends early costs only what it held.
func readNonZero(r io.Reader, count int64, size int, known bool) ([]bool, error) {
	total := count * int64(size)
	var mask []bool
	if known {
		// Zeroed once (a released mask, or a new one); the appends below
		// only extend it.
		if p, ok := maskPool.Get().(*[]bool); ok && int64(cap(*p)) >= count {
			mask = (*p)[:count]
			clear(mask)
		} else {
			if ok {
				maskPool.Put(p)
			}
			mask = make([]bool, count)
		}
		mask = mask[:0]
		if ws, ok := r.(*codec.WholeStream); ok {
			// Decoded in one piece: tested where the bytes lie.
			if src, ok := ws.View(total); ok {
				mask = mask[:count]
				nonZeroInto(mask, src, size)
				return mask, nil
			}
		}
	}
	buf := make([]byte, min(int64(1<<16), total))
	buf = buf[:len(buf)/size*size]
	got := int64(0)
	for got < total {
		chunk := buf[:min(int64(len(buf)), total-got)]
		k, err := io.ReadFull(r, chunk)
		got += int64(k)
		if err != nil {
			return nil, codec.PixelDataError(err, got, total)
		}
		base, n := len(mask), len(chunk)/size
		if cap(mask)-base >= n {
			mask = mask[:base+n] // already zero
		} else {
			mask = append(mask, make([]bool, n)...)
		}
		nonZeroInto(mask[base:], chunk, size)
	}
	return mask, nil
}

// nonZeroInto sets dst[i] when element i (size bytes) of src has a
// non-zero byte; dst starts all false. Zero words are skipped eight bytes
// at a time.
func nonZeroInto(dst []bool, src []byte, size int) {
	if size == 1 {
		// A word at a time: the high bit of ((b & 0x7f) + 0x7f) | b is
		// set exactly when byte b is not zero; moved down to bit 0 it is
		// the bool of that byte.
		const low7, ones = 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
		out := boolbytes.Of(dst)
		o := 0
		for ; o+8 <= len(src); o += 8 {
			if w := binary.LittleEndian.Uint64(src[o:]); w != 0 {
				binary.LittleEndian.PutUint64(out[o:], (((w&low7)+low7)|w)>>7&ones)
			}
		}
		for ; o < len(src); o++ {
			dst[o] = src[o] != 0
		}
		return
	}
	for o := 0; o < len(src); {
		if o+8 <= len(src) && binary.LittleEndian.Uint64(src[o:]) == 0 {
			o += 8
			continue
		}
		end := min(o+8, len(src))
		for ; o < end; o++ {
			if src[o] != 0 {
				dst[o/size] = true
			}
		}
	}
}
