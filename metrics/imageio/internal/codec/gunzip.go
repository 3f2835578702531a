package codec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/rexmle/rexmle/metrics/internal/inflate"
)

// Whole-file gzip decoding: a .nii.gz read from its start is decoded in one
// piece into one buffer by metrics/internal/inflate (2–3× klauspost's
// streaming reader) when it is a single gzip member no larger than these
// bounds. Anything else — several members, trailing bytes, reserved flags,
// a bad header CRC, a damaged stream, a checksum or length mismatch — is
// left to the streaming reader, which reports the errors.
const (
	MaxWholeGzipIn  = 64 << 20  // compressed bytes read whole
	MaxWholeGzipOut = 512 << 20 // decoded bytes held at once
)

// gzip header flags (RFC 1952 section 2.3.1).
const (
	gzipFlagHCRC    = 1 << 1
	gzipFlagExtra   = 1 << 2
	gzipFlagName    = 1 << 3
	gzipFlagComment = 1 << 4
	gzipFlagsKnown  = 1<<0 | gzipFlagHCRC | gzipFlagExtra | gzipFlagName | gzipFlagComment
)

// GunzipFile decodes the whole gzip input r when r is a regular file or an
// in-memory reader positioned at its start and it decodes to at most
// maxOut bytes (see also the bounds above). The decoded file goes into buf
// when its capacity holds all of it, else into memory of GunzipBufs. On
// success it returns a reader over the decoded bytes and a function that
// recycles GunzipBufs' memory once they are no longer used (unless
// WholeStream.take handed it out); ok false leaves r as it was (it is read
// with ReadAt only).
func GunzipFile(r io.Reader, maxOut int64, buf []byte) (dec *WholeStream, release func(), ok bool) {
	size, at, known := inputSize(r)
	if !known || size < 18 || size > MaxWholeGzipIn || !atStart(r) {
		return nil, nil, false
	}
	inp := FileBufs.Get().(*[]byte)
	defer FileBufs.Put(inp)
	if int64(cap(*inp)) < size {
		*inp = make([]byte, size)
	}
	data := (*inp)[:size]
	if n, err := at.ReadAt(data, 0); int64(n) != size || (err != nil && err != io.EOF) {
		return nil, nil, false
	}
	var outp *[]byte // nil: the caller's buf
	if int64(cap(buf)) < int64(binary.LittleEndian.Uint32(data[size-4:])) {
		outp = GunzipBufs.Get().(*[]byte)
		buf = *outp
	}
	out, ok := GunzipWhole(data, buf, maxOut)
	if !ok {
		if outp != nil {
			GunzipBufs.Put(outp)
		}
		return nil, nil, false
	}
	if outp != nil {
		*outp = out
	}
	dec = &WholeStream{Reader: bytes.NewReader(out), buf: out, pooled: outp}
	return dec, func() {
		if !dec.taken && outp != nil {
			GunzipBufs.Put(outp)
		}
	}, true
}

// WholeStream reads the bytes GunzipFile decoded.
type WholeStream struct {
	*bytes.Reader
	buf    []byte
	pooled *[]byte // buf's GunzipBufs entry; nil when buf is the caller's
	taken  bool
}

// Take returns the next n bytes without copying them (ok false when fewer
// remain) and gives the buffer up: it is not recycled when the stream is
// released. pooled is its GunzipBufs entry (nil when it is the caller's
// memory), which the taker may put back once the bytes are no longer used.
func (w *WholeStream) Take(n int64) (p []byte, pooled *[]byte, ok bool) {
	if p, ok = w.View(n); !ok {
		return nil, nil, false
	}
	w.taken = true
	return p, w.pooled, true
}

// View returns the next n bytes without copying them, ok false when fewer
// remain; they are valid until the stream is released.
func (w *WholeStream) View(n int64) (p []byte, ok bool) {
	if n > int64(w.Len()) {
		return nil, false
	}
	at := int64(len(w.buf) - w.Len())
	w.Seek(n, io.SeekCurrent)
	return w.buf[at : at+n : at+n], true
}

// GunzipBufs recycles decoded buffers: GunzipFile's, and the 8-bit samples
// of released masks (nifti.Mask.Release). It is apart from FileBufs, whose
// smaller file buffers would otherwise be drawn for them.
var GunzipBufs = sync.Pool{New: func() any { return new([]byte) }}

// atStart reports whether r would be read from its first byte.
func atStart(r io.Reader) bool {
	switch x := r.(type) {
	case *os.File:
		off, err := x.Seek(0, io.SeekCurrent)
		return err == nil && off == 0
	case *bytes.Reader:
		return int64(x.Len()) == x.Size()
	}
	return false
}

// GunzipWhole decodes data, one complete gzip member and nothing after it,
// into buf when its capacity suffices (a new buffer otherwise). ok is false
// for anything the streaming reader should see instead, and for a member
// that decodes to more than maxOut bytes.
func GunzipWhole(data, buf []byte, maxOut int64) (out []byte, ok bool) {
	if len(data) < 18 || data[0] != 0x1f || data[1] != 0x8b || data[2] != 8 {
		return nil, false
	}
	flg := data[3]
	if flg&^gzipFlagsKnown != 0 {
		return nil, false
	}
	pos := 10
	if flg&gzipFlagExtra != 0 {
		if pos+2 > len(data) {
			return nil, false
		}
		pos += 2 + int(binary.LittleEndian.Uint16(data[pos:]))
	}
	for _, f := range []byte{gzipFlagName, gzipFlagComment} {
		if flg&f == 0 || pos >= len(data) {
			continue
		}
		// compress/gzip reads a name or comment of at most 511 bytes.
		end := bytes.IndexByte(data[pos:], 0)
		if end < 0 || end >= 512 {
			return nil, false
		}
		pos += end + 1
	}
	if flg&gzipFlagHCRC != 0 {
		if pos+2 > len(data) || binary.LittleEndian.Uint16(data[pos:]) != uint16(crc32.ChecksumIEEE(data[:pos])) {
			return nil, false
		}
		pos += 2
	}
	if pos > len(data)-8 {
		return nil, false
	}
	body, trailer := data[pos:len(data)-8], data[len(data)-8:]
	want := int64(binary.LittleEndian.Uint32(trailer[4:]))
	if want > min(maxOut, MaxWholeGzipOut) || want > int64(len(body))*maxDeflateRatio+8 {
		return nil, false
	}
	if int64(cap(buf)) < want {
		buf = make([]byte, want)
	}
	out = buf[:want]
	nOut, nIn, err := inflate.Deflate(out, body)
	if err != nil || int64(nOut) != want || nIn != len(body) ||
		crc32.ChecksumIEEE(out) != binary.LittleEndian.Uint32(trailer) {
		return nil, false
	}
	return out, true
}
