package inflate

import (
	"bytes"
	stdflate "compress/flate"
	stdzlib "compress/zlib"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	kflate "github.com/klauspost/compress/flate"
	kzlib "github.com/klauspost/compress/zlib"
)

// fanFrame is a synthetic 8-bit ultrasound frame as a PNG's filtered rows: h
// rows of a 0 filter byte and w pixels. Pixels outside a 70° sector with
// its apex at the top centre and radius 0.95·w are 0 (the black surround);
// inside they are 1 + 110·(1 + 0.2·N(0,1)) clamped to [1, 255] (speckle).
func fanFrame(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]byte, 0, h*(w+1))
	cx, radius, half := float64(w-1)/2, 0.95*float64(w), 35*math.Pi/180
	for y := 0; y < h; y++ {
		out = append(out, 0)
		for x := 0; x < w; x++ {
			dx, dy := float64(x)-cx, float64(y)
			var v byte
			if math.Hypot(dx, dy) <= radius && math.Abs(math.Atan2(dx, dy)) <= half {
				v = byte(min(255, max(1, math.Round(1+110*(1+0.2*r.NormFloat64())))))
			}
			out = append(out, v)
		}
	}
	return out
}

// textLike is English-like text: words from a small vocabulary with a
// skewed frequency, spaces, punctuation and line breaks.
func textLike(n int, r *rand.Rand) []byte {
	words := []string{"the", "of", "and", "a", "to", "in", "is", "grader", "image", "mask",
		"ultrasound", "segmentation", "Dice", "score", "volume", "patient", "slice", "metric",
		"value", "expected", "reference", "with", "for", "that", "on", "by", "0.8731", "42"}
	var b []byte
	for len(b) < n {
		i := int(float64(len(words)) * math.Pow(r.Float64(), 2.5))
		b = append(b, words[i]...)
		switch r.IntN(12) {
		case 0:
			b = append(b, ". "...)
		case 1:
			b = append(b, '\n')
		default:
			b = append(b, ' ')
		}
	}
	return b[:n]
}

// genData returns test inputs of many kinds and sizes.
func genData(r *rand.Rand, kind, n int) []byte {
	b := make([]byte, n)
	switch kind % 8 {
	case 0: // random bytes
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case 1: // runs
		for i := 0; i < n; {
			v, l := byte(r.IntN(4)), 1+r.IntN(300)
			for ; l > 0 && i < n; l, i = l-1, i+1 {
				b[i] = v
			}
		}
	case 2: // repeats at short distances 1..8, with some noise
		for i := 0; i < n; {
			d, l := 1+r.IntN(8), 1+r.IntN(400)
			for j := 0; j < d && i < n; j, i = j+1, i+1 {
				b[i] = byte(r.Uint32())
			}
			for ; l > 0 && i < n; l, i = l-1, i+1 {
				b[i] = b[i-d]
			}
		}
	case 3:
		b = textLike(n, r)
	case 4: // fan-frame rows
		w := 16 + r.IntN(200)
		f := fanFrame(w, n/(w+1)+1, r.Uint64())
		b = f[:n]
	case 5: // skewed alphabet: long Huffman codes
		for i := range b {
			k := 0
			for k < 40 && r.IntN(3) != 0 {
				k++
			}
			b[i] = byte(k)
		}
	case 6: // far matches: a random block repeated at distances up to 32 KiB
		blk := 1 + r.IntN(32768)
		for i := range b {
			if i < blk {
				b[i] = byte(r.Uint32())
			} else {
				b[i] = b[i-blk]
				if r.IntN(500) == 0 {
					b[i]++
				}
			}
		}
	case 7: // two symbols only
		for i := range b {
			b[i] = 'a' + byte(r.IntN(2))
		}
	}
	return b
}

// Encoders: stdlib and klauspost zlib at every level.
type encoder struct {
	name string
	enc  func(tb testing.TB, b []byte) []byte
}

func encoders() []encoder {
	var es []encoder
	for _, lvl := range []int{stdflate.HuffmanOnly, stdflate.DefaultCompression, stdflate.NoCompression, 1, 2, 3, 4, 5, 6, 7, 8, 9} {
		es = append(es, encoder{"std" + itoa(lvl), func(tb testing.TB, b []byte) []byte {
			var buf bytes.Buffer
			w, err := stdzlib.NewWriterLevel(&buf, lvl)
			if err != nil {
				tb.Fatal(err)
			}
			write(tb, w, b)
			return buf.Bytes()
		}})
	}
	for _, lvl := range []int{kflate.HuffmanOnly, kflate.DefaultCompression, kflate.NoCompression, 1, 2, 3, 4, 5, 6, 7, 8, 9} {
		es = append(es, encoder{"klauspost" + itoa(lvl), func(tb testing.TB, b []byte) []byte {
			var buf bytes.Buffer
			w, err := kzlib.NewWriterLevel(&buf, lvl)
			if err != nil {
				tb.Fatal(err)
			}
			write(tb, w, b)
			return buf.Bytes()
		}})
	}
	return es
}

func write(tb testing.TB, w io.WriteCloser, b []byte) {
	tb.Helper()
	if _, err := w.Write(b); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + itoa(i%10)
}

// stdZlib is the oracle: compress/zlib's reader, read to EOF.
func stdZlib(src []byte) ([]byte, error) {
	zr, err := stdzlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	return out, zr.Close()
}

// trailingOK reports whether src's zlib stream ends exactly at len(src):
// the standard reader ignores what follows the trailer, Zlib does not.
func trailingOK(src []byte) bool {
	br := bytes.NewReader(src)
	zr, err := stdzlib.NewReader(br)
	if err != nil {
		return false
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return false
	}
	// compress/zlib reads through a bufio.Reader unless the source is an
	// io.ByteReader, which bytes.Reader is: it stops right after the trailer.
	return br.Len() == 0
}
