package pnm

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// pnmWhitespace is Pillow's PPM header white space.
const pnmWhitespace = " \t\n\v\f\r"

// pnmHeader reads tokens as Pillow's PpmImageFile does (11.1): white
// space separates them, "#" starts a comment to the next CR or LF (or the
// end), a token is at most 10 bytes.
type pnmHeader struct {
	b []byte
	i int
}

func (h *pnmHeader) read1() (byte, bool) {
	if h.i >= len(h.b) {
		return 0, false
	}
	h.i++
	return h.b[h.i-1], true
}

func (h *pnmHeader) token() (string, error) {
	var tok []byte
	for len(tok) <= 10 {
		c, ok := h.read1()
		if !ok {
			break
		}
		switch {
		case IsSpace(c):
			if len(tok) == 0 {
				continue
			}
			return string(tok), nil
		case c == '#':
			for {
				d, ok := h.read1()
				if !ok || d == '\r' || d == '\n' {
					break
				}
			}
			continue
		}
		tok = append(tok, c)
	}
	if len(tok) == 0 {
		return "", errors.New("reached EOF while reading header")
	}
	if len(tok) > 10 {
		return "", fmt.Errorf("token too long in file header: %q", tok)
	}
	return string(tok), nil
}

func IsSpace(c byte) bool {
	for i := 0; i < len(pnmWhitespace); i++ {
		if pnmWhitespace[i] == c {
			return true
		}
	}
	return false
}

// pythonInt parses a header token as Python's int() does for the
// decimal tokens a header holds (sign, digits, single underscores between
// digits).
func pythonInt(tok string) (int64, error) {
	s := tok
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var digits []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
		case c == '_' && i > 0 && i+1 < len(s) && s[i-1] != '_' && s[i+1] >= '0' && s[i+1] <= '9':
		default:
			return 0, fmt.Errorf("invalid literal for int(): %q", tok)
		}
	}
	n, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid literal for int(): %q", tok)
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Read decodes the binary Netpbm pictures Pillow 11.1 reads, with the
// samples numpy.array(Image.open(f)) gives:
//   - P4 (PBM): mode "1", a set bit black: 0, a clear bit 1;
//   - P5 (PGM): maxval 255 → the bytes (mode L); 65535 → 16-bit
//     big-endian samples (mode I); another maxval ≤ 255 → each byte v as
//     min(255, round(v/maxval·255)) (mode L, Python's round, half to
//     even); another maxval > 255 → each 16-bit sample as
//     min(65535, round(v/maxval·65535)) (mode I);
//   - P6 (PPM): RGB, maxval 255 → the bytes; any other → each sample
//     (1 or 2 bytes) as min(255, round(v/maxval·255)).
//
// The header is Pillow's (tokens, comments, maxval in 1…65535, the
// samples right after the white space that ends the last token); data cut
// short is an error (Pillow raises), data after the samples is ignored.
// Plain (ASCII) P1–P3 and Pillow's own P0/Pf/Py variants are refused.
func Read(br *bufio.Reader, o Options) (*volume.Volume, error) {
	data, err := codec.ReadAllMax(br, o, "pnm")
	if err != nil {
		return nil, err
	}
	h := &pnmHeader{b: data}
	var magic []byte
	for len(magic) < 6 {
		c, ok := h.read1()
		if !ok || IsSpace(c) {
			break
		}
		magic = append(magic, c)
	}
	switch string(magic) {
	case "P4", "P5", "P6":
	case "P1", "P2", "P3", "P0CMYK", "Pf", "PyP", "PyRGBA", "PyCMYK":
		return nil, fmt.Errorf("pnm: %s pictures are not supported (save binary P5 or P6)", magic)
	default:
		return nil, fmt.Errorf("pnm: not a PPM file (magic %q)", magic)
	}
	var size [2]int64
	for k := range size {
		tok, err := h.token()
		if err != nil {
			return nil, fmt.Errorf("pnm header: %w", err)
		}
		if size[k], err = pythonInt(tok); err != nil {
			return nil, fmt.Errorf("pnm header: %w", err)
		}
	}
	w, ht := size[0], size[1]
	bands := int64(1)
	if magic[1] == '6' {
		bands = 3
	}
	if _, err := codec.SampleCount("pnm header: width × height × channels", o.MaxBytes, w, ht, bands); err != nil {
		return nil, err
	}
	n := int(w * ht)
	if magic[1] == '4' {
		stride := (int(w) + 7) / 8
		body := data[h.i:]
		if len(body) < stride*int(ht) {
			return nil, errors.New("pnm: image file is truncated")
		}
		v := volume.New(volume.NewGrid(int(w), int(ht)), volume.Uint8)
		for y := 0; y < int(ht); y++ {
			row := body[y*stride:]
			for x := 0; x < int(w); x++ {
				if row[x/8]>>(7-x%8)&1 == 0 {
					v.Data[y*int(w)+x] = 1
				}
			}
		}
		return v, nil
	}
	tok, err := h.token()
	if err != nil {
		return nil, fmt.Errorf("pnm header: %w", err)
	}
	maxval, err := pythonInt(tok)
	if err != nil {
		return nil, fmt.Errorf("pnm header: %w", err)
	}
	if maxval <= 0 || maxval >= 65536 {
		return nil, errors.New("pnm header: maxval must be greater than 0 and less than 65536")
	}
	body := data[h.i:]
	wide := maxval > 255 // 2 bytes a sample
	inBytes := 1
	if wide {
		inBytes = 2
	}
	if len(body) < n*int(bands)*inBytes {
		return nil, errors.New("pnm: image file is truncated")
	}
	dt, outMax := volume.Uint8, 255.0
	if bands == 1 && wide {
		dt, outMax = volume.Int32, 65535 // mode I
	}
	v := volume.New(volume.NewGrid(int(w), int(ht)), dt)
	if bands == 3 {
		v.Channels = 3
		v.Data = make([]float64, 3*n)
	}
	scaled := !(maxval == 255 || maxval == 65535 && bands == 1)
	for i := range v.Data {
		s := float64(body[i])
		if wide {
			s = float64(uint16(body[2*i])<<8 | uint16(body[2*i+1]))
		}
		if scaled {
			s = math.Min(outMax, math.RoundToEven(s/float64(maxval)*outMax))
		}
		v.Data[i] = s
	}
	return v, nil
}
