package imagetest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sort"
	"testing"
)

// PngFile builds a PNG by hand: IHDR, optional extra chunks (type, data),
// one IDAT holding the given scanlines (each prefixed with filter 0), IEND.
func PngFile(t testing.TB, w, h uint32, depth, ctype byte, rows [][]byte, extra ...[2]string) []byte {
	t.Helper()
	var raw []byte
	for _, r := range rows {
		raw = append(append(raw, 0), r...)
	}
	return pngFileRaw(t, w, h, depth, ctype, raw, extra...)
}

// pngFileRaw is PngFile of the scanlines raw (each already prefixed with
// its filter byte).
func pngFileRaw(t testing.TB, w, h uint32, depth, ctype byte, raw []byte, extra ...[2]string) []byte {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, ctype
	chunk("IHDR", ihdr)
	for _, e := range extra {
		chunk(e[0], []byte(e[1]))
	}
	chunk("IDAT", ZlibBytes(t, raw))
	chunk("IEND", nil)
	return out.Bytes()
}

// TiffEntry is one hand-written IFD entry: SHORT (3) or LONG (4) values.
type TiffEntry struct {
	typ  uint16
	vals []uint32
}

// TiffFileBytes builds a single-page TIFF: blocks are written first, then
// the IFD with the given entries plus offsets/byte counts of the blocks
// under offTag/cntTag (strip or tile tags).
func TiffFileBytes(bo binary.ByteOrder, entries map[uint16]TiffEntry, offTag, cntTag uint16, blocks [][]byte) []byte {
	var out bytes.Buffer
	if bo == binary.LittleEndian {
		out.WriteString("II*\x00")
	} else {
		out.WriteString("MM\x00*")
	}
	out.Write(make([]byte, 4))
	var offs, cnts []uint32
	for _, b := range blocks {
		offs = append(offs, uint32(out.Len()))
		cnts = append(cnts, uint32(len(b)))
		out.Write(b)
	}
	all := map[uint16]TiffEntry{}
	for k, v := range entries {
		all[k] = v
	}
	all[offTag] = TiffEntry{4, offs}
	all[cntTag] = TiffEntry{4, cnts}
	tags := make([]int, 0, len(all))
	for k := range all {
		tags = append(tags, int(k))
	}
	sort.Ints(tags)
	// out-of-line values
	ext := map[uint16]uint32{}
	for _, k := range tags {
		e := all[uint16(k)]
		size := 2
		if e.typ == 4 {
			size = 4
		}
		if size*len(e.vals) > 4 {
			ext[uint16(k)] = uint32(out.Len())
			for _, x := range e.vals {
				if size == 2 {
					binary.Write(&out, bo, uint16(x))
				} else {
					binary.Write(&out, bo, x)
				}
			}
		}
	}
	ifd := out.Len()
	b := out.Bytes()
	bo.PutUint32(b[4:], uint32(ifd))
	binary.Write(&out, bo, uint16(len(tags)))
	for _, k := range tags {
		e := all[uint16(k)]
		binary.Write(&out, bo, uint16(k))
		binary.Write(&out, bo, e.typ)
		binary.Write(&out, bo, uint32(len(e.vals)))
		var val [4]byte
		if off, ok := ext[uint16(k)]; ok {
			bo.PutUint32(val[:], off)
		} else if e.typ == 3 {
			for i, x := range e.vals {
				bo.PutUint16(val[2*i:], uint16(x))
			}
		} else {
			bo.PutUint32(val[:], e.vals[0])
		}
		out.Write(val[:])
	}
	out.Write(make([]byte, 4))
	return out.Bytes()
}

func Short(v ...uint32) TiffEntry { return TiffEntry{3, v} }
func Long(v ...uint32) TiffEntry  { return TiffEntry{4, v} }
