package imagetest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"
)

// PngChunk is one chunk of a hand-built PNG; badCRC flips its CRC.
type PngChunk struct {
	Typ    string
	Body   []byte
	BadCRC bool
}

func WriteChunks(chunks []PngChunk, tail []byte) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	for _, c := range chunks {
		binary.Write(&out, binary.BigEndian, uint32(len(c.Body)))
		out.WriteString(c.Typ)
		out.Write(c.Body)
		crc := crc32.ChecksumIEEE(append([]byte(c.Typ), c.Body...))
		if c.BadCRC {
			crc ^= 0x10000
		}
		binary.Write(&out, binary.BigEndian, crc)
	}
	out.Write(tail)
	return out.Bytes()
}

// PngFormat is a bit depth, colour type and interlace method.
type PngFormat struct {
	Depth, Ct  int
	Interlaced bool
}

func (f PngFormat) String() string {
	s := fmt.Sprintf("d%d_ct%d", f.Depth, f.Ct)
	if f.Interlaced {
		s += "_i"
	}
	return s
}

func ZlibLevel(t testing.TB, raw []byte, level int) []byte {
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(raw)
	zw.Close()
	return b.Bytes()
}

func IhdrBody(w, h int, f PngFormat) []byte {
	b := make([]byte, 13)
	binary.BigEndian.PutUint32(b, uint32(w))
	binary.BigEndian.PutUint32(b[4:], uint32(h))
	b[8], b[9] = byte(f.Depth), byte(f.Ct)
	if f.Interlaced {
		b[12] = 1
	}
	return b
}

func Idats(z []byte, split int) []PngChunk {
	var c []PngChunk
	for len(z) > 0 {
		n := min(split, len(z))
		c = append(c, PngChunk{Typ: "IDAT", Body: z[:n]})
		z = z[n:]
	}
	return c
}

func Cat(parts ...[]PngChunk) []PngChunk {
	var out []PngChunk
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var Iend = []PngChunk{{Typ: "IEND"}}
