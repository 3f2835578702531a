package codec

import (
	"errors"
	"io"
)

// Picture8 is a 2-D picture whose samples are 8-bit unsigned integers,
// kept as bytes: C samples per pixel interleaved, rows top to bottom, so
// that sample c of pixel (x, y) is Pix[(y*W+x)*C+c].
type Picture8 struct {
	W, H, C int
	Pix     []uint8
}

// ReadAllInto is io.ReadAll appending to buf: it reuses buf's capacity, so
// a caller that sizes buf from the file (Stat) and recycles it reads each
// file without allocating.
func ReadAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return buf, err
		}
	}
}
