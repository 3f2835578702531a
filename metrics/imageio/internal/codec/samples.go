package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"sync"

	"github.com/rexmle/rexmle/metrics/internal/parallel"
	"github.com/rexmle/rexmle/metrics/volume"
)

// ElemSize returns the byte size of one element of dt.
func ElemSize(dt volume.DType) (int, error) {
	switch dt {
	case volume.Uint8, volume.Int8:
		return 1, nil
	case volume.Uint16, volume.Int16:
		return 2, nil
	case volume.Uint32, volume.Int32, volume.Float32:
		return 4, nil
	case volume.Uint64, volume.Int64, volume.Float64:
		return 8, nil
	}
	return 0, fmt.Errorf("unsupported element type %q", dt)
}

// SampleCount multiplies the dimensions with overflow checks and verifies
// the decoded size (count × 8 bytes) fits maxBytes. field names the header
// field for the error message.
func SampleCount(field string, maxBytes int64, dims ...int64) (int64, error) {
	n := uint64(1)
	for _, d := range dims {
		if d <= 0 {
			return 0, fmt.Errorf("%s: dimension %d, want at least 1", field, d)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64/8 {
			return 0, fmt.Errorf("%s: dimensions %v overflow", field, dims)
		}
		n = lo
	}
	if int64(n)*8 > maxBytes {
		return 0, fmt.Errorf("%s: dimensions %v need %d bytes decoded, over the %d-byte limit (Options.MaxBytes)", field, dims, int64(n)*8, maxBytes)
	}
	if uint64(int(n)) != n {
		return 0, fmt.Errorf("%s: dimensions %v too large for this platform", field, dims)
	}
	return int64(n), nil
}

// firstPieceSize and pieceSize bound the buffers readExact fills: the first
// is 64 KiB, each next one twice as large up to 16 MiB. Both are multiples
// of 8, so no element straddles two pieces.
const (
	firstPieceSize = 64 << 10
	pieceSize      = 16 << 20
)

// readExact reads exactly n bytes from r into pieces of at most pieceSize
// bytes, allocating only as data arrives, so a truncated stream whose header
// claims a huge size fails after allocating what the stream really held.
func readExact(r io.Reader, n int64) ([][]byte, error) {
	var pieces [][]byte
	got := int64(0)
	next := int64(firstPieceSize)
	for got < n {
		m := min(n-got, next)
		next = min(2*next, pieceSize)
		p := make([]byte, m)
		k, err := io.ReadFull(r, p)
		got += int64(k)
		if err != nil {
			return nil, PixelDataError(err, got, n)
		}
		pieces = append(pieces, p)
	}
	return pieces, nil
}

// decodeBlock is the unit of parallel conversion, in bytes.
const decodeBlock = 1 << 20

// decodeSamples converts the raw elements in pieces (concatenated) into out,
// in parallel blocks over all cores. len(out) elements are converted; the
// pieces must hold at least len(out) × ElemSize(dt) bytes.
func decodeSamples(out []float64, pieces [][]byte, dt volume.DType, bo binary.ByteOrder) error {
	size, err := ElemSize(dt)
	if err != nil {
		return err
	}
	type job struct {
		src []byte
		dst []float64
	}
	var jobs []job
	pos := 0
	for _, p := range pieces {
		for off := 0; off < len(p) && pos < len(out); off += decodeBlock {
			end := min(off+decodeBlock, len(p))
			cnt := min((end-off)/size, len(out)-pos)
			jobs = append(jobs, job{p[off : off+cnt*size], out[pos : pos+cnt]})
			pos += cnt
		}
	}
	if pos != len(out) {
		return fmt.Errorf("pixel data: have %d samples, want %d", pos, len(out))
	}
	parallel.For(len(jobs), 1, func(lo, hi int) {
		for _, j := range jobs[lo:hi] {
			Convert(j.dst, j.src, dt, bo)
		}
	})
	return nil
}

// Convert decodes len(dst) elements of type dt from src. The byte order is
// resolved once, outside the loops, so the loads inline (a call through the
// binary.ByteOrder interface per sample is about twice as slow).
func Convert(dst []float64, src []byte, dt volume.DType, bo binary.ByteOrder) {
	n := len(dst)
	switch {
	case dt == volume.Uint8:
		s := src[:n]
		for i := range dst {
			dst[i] = float64(s[i])
		}
	case dt == volume.Int8:
		s := src[:n]
		for i := range dst {
			dst[i] = float64(int8(s[i]))
		}
	case bo == binary.ByteOrder(binary.BigEndian):
		convertBE(dst, src, dt)
	default:
		convertLE(dst, src, dt)
	}
}

// convertLE is convert for LittleEndian multi-byte types.
func convertLE(dst []float64, src []byte, dt volume.DType) {
	bo := binary.LittleEndian
	n := len(dst)
	switch dt {
	case volume.Uint16:
		s := src[:2*n]
		for i := range dst {
			dst[i] = float64(bo.Uint16(s[2*i:]))
		}
	case volume.Int16:
		s := src[:2*n]
		for i := range dst {
			dst[i] = float64(int16(bo.Uint16(s[2*i:])))
		}
	case volume.Uint32:
		s := src[:4*n]
		for i := range dst {
			dst[i] = float64(bo.Uint32(s[4*i:]))
		}
	case volume.Int32:
		s := src[:4*n]
		for i := range dst {
			dst[i] = float64(int32(bo.Uint32(s[4*i:])))
		}
	case volume.Float32:
		s := src[:4*n]
		for i := range dst {
			dst[i] = float64(math.Float32frombits(bo.Uint32(s[4*i:])))
		}
	case volume.Uint64:
		s := src[:8*n]
		for i := range dst {
			dst[i] = float64(bo.Uint64(s[8*i:]))
		}
	case volume.Int64:
		s := src[:8*n]
		for i := range dst {
			dst[i] = float64(int64(bo.Uint64(s[8*i:])))
		}
	case volume.Float64:
		s := src[:8*n]
		for i := range dst {
			dst[i] = math.Float64frombits(bo.Uint64(s[8*i:]))
		}
	}
}

// convertBE is convert for BigEndian multi-byte types.
func convertBE(dst []float64, src []byte, dt volume.DType) {
	bo := binary.BigEndian
	n := len(dst)
	switch dt {
	case volume.Uint16:
		s := src[:2*n]
		for i := range dst {
			dst[i] = float64(bo.Uint16(s[2*i:]))
		}
	case volume.Int16:
		s := src[:2*n]
		for i := range dst {
			dst[i] = float64(int16(bo.Uint16(s[2*i:])))
		}
	case volume.Uint32:
		s := src[:4*n]
		for i := range dst {
			dst[i] = float64(bo.Uint32(s[4*i:]))
		}
	case volume.Int32:
		s := src[:4*n]
		for i := range dst {
			dst[i] = float64(int32(bo.Uint32(s[4*i:])))
		}
	case volume.Float32:
		s := src[:4*n]
		for i := range dst {
			dst[i] = float64(math.Float32frombits(bo.Uint32(s[4*i:])))
		}
	case volume.Uint64:
		s := src[:8*n]
		for i := range dst {
			dst[i] = float64(bo.Uint64(s[8*i:]))
		}
	case volume.Int64:
		s := src[:8*n]
		for i := range dst {
			dst[i] = float64(int64(bo.Uint64(s[8*i:])))
		}
	case volume.Float64:
		s := src[:8*n]
		for i := range dst {
			dst[i] = math.Float64frombits(bo.Uint64(s[8*i:]))
		}
	}
}

// typeRange returns the inclusive range of integer type dt as float64.
func typeRange(dt volume.DType) (lo, hi float64) {
	switch dt {
	case volume.Uint8:
		return 0, math.MaxUint8
	case volume.Int8:
		return math.MinInt8, math.MaxInt8
	case volume.Uint16:
		return 0, math.MaxUint16
	case volume.Int16:
		return math.MinInt16, math.MaxInt16
	case volume.Uint32:
		return 0, math.MaxUint32
	case volume.Int32:
		return math.MinInt32, math.MaxInt32
	case volume.Uint64:
		return 0, 1 << 64 // exclusive in practice: float64(MaxUint64) rounds up to 2^64
	case volume.Int64:
		return math.MinInt64, 1 << 63
	}
	return math.Inf(-1), math.Inf(1)
}

// EncodeSamples converts data to elements of type dt in byte order bo.
// Integer types need whole numbers within the type's range (NaN and
// fractions are errors, naming the first offending index); Float32 rounds to
// nearest.
func EncodeSamples(data []float64, dt volume.DType, bo binary.ByteOrder) ([]byte, error) {
	size, err := ElemSize(dt)
	if err != nil {
		return nil, err
	}
	if dt.IsInteger() {
		lo, hi := typeRange(dt)
		for i, x := range data {
			if x != math.Trunc(x) || x < lo || x > hi || ((dt == volume.Uint64 || dt == volume.Int64) && x == hi) {
				return nil, fmt.Errorf("sample %d is %v, not representable as %s", i, x, dt)
			}
		}
	}
	out := make([]byte, len(data)*size)
	switch dt {
	case volume.Uint8:
		for i, x := range data {
			out[i] = uint8(x)
		}
	case volume.Int8:
		for i, x := range data {
			out[i] = uint8(int8(x))
		}
	case volume.Uint16:
		for i, x := range data {
			bo.PutUint16(out[2*i:], uint16(x))
		}
	case volume.Int16:
		for i, x := range data {
			bo.PutUint16(out[2*i:], uint16(int16(x)))
		}
	case volume.Uint32:
		for i, x := range data {
			bo.PutUint32(out[4*i:], uint32(x))
		}
	case volume.Int32:
		for i, x := range data {
			bo.PutUint32(out[4*i:], uint32(int32(x)))
		}
	case volume.Float32:
		for i, x := range data {
			bo.PutUint32(out[4*i:], math.Float32bits(float32(x)))
		}
	case volume.Uint64:
		for i, x := range data {
			bo.PutUint64(out[8*i:], uint64(x))
		}
	case volume.Int64:
		for i, x := range data {
			bo.PutUint64(out[8*i:], uint64(int64(x)))
		}
	case volume.Float64:
		for i, x := range data {
			bo.PutUint64(out[8*i:], math.Float64bits(x))
		}
	}
	return out, nil
}

// CheckVolume validates a volume handed to a writer.
func CheckVolume(v *volume.Volume) error {
	if v == nil {
		return errors.New("nil volume")
	}
	return v.Check()
}

// ParallelFor runs fn over [0, n) in contiguous blocks, one per core, when
// n is large enough (2¹⁵ items per block) to repay the goroutines.
func ParallelFor(n int, fn func(lo, hi int)) { parallel.For(n, 1<<15, fn) }

// streamBufSize is the size of the buffers streamDecode cycles through; a
// multiple of 8.
const streamBufSize = 4 << 20

// streamDecode reads exactly len(out) elements of dt from r and converts
// them into out, overlapping the conversion (on all cores) with the reading
// (decompression is sequential). It is used when the input is known to hold
// the data, so out could be allocated up front.
func streamDecode(r io.Reader, out []float64, dt volume.DType, bo binary.ByteOrder) error {
	size, err := ElemSize(dt)
	if err != nil {
		return err
	}
	type job struct {
		buf []byte
		dst []float64
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	nbuf := workers + 2
	free := make(chan []byte, nbuf)
	for i := 0; i < nbuf; i++ {
		free <- nil // allocated lazily, so small images stay small
	}
	jobs := make(chan job, nbuf)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				Convert(j.dst, j.buf, dt, bo)
				free <- j.buf[:cap(j.buf)]
			}
		}()
	}
	total := int64(len(out)) * int64(size)
	got := int64(0)
	pos := 0
	per := streamBufSize / size
	for pos < len(out) {
		buf := <-free
		cnt := min(per, len(out)-pos)
		if buf == nil {
			buf = make([]byte, min(int64(streamBufSize), total))
		}
		buf = buf[:cnt*size]
		k, err := io.ReadFull(r, buf)
		got += int64(k)
		if err != nil {
			close(jobs)
			wg.Wait()
			return PixelDataError(err, got, total)
		}
		jobs <- job{buf, out[pos : pos+cnt]}
		pos += cnt
	}
	close(jobs)
	wg.Wait()
	return nil
}

// ReadSamples reads count elements of dt from r. With known = true (the
// input is known to hold the data) the output is allocated first and filled
// while reading; otherwise the raw bytes are collected piece by piece first,
// so a stream that ends early costs only what it held.
func ReadSamples(r io.Reader, count int64, dt volume.DType, bo binary.ByteOrder, known bool) ([]float64, error) {
	size, err := ElemSize(dt)
	if err != nil {
		return nil, err
	}
	if ws, ok := r.(*WholeStream); ok {
		// Decoded in one piece: converted where the bytes lie.
		if src, ok := ws.View(count * int64(size)); ok {
			out := make([]float64, count)
			if err := decodeSamples(out, [][]byte{src}, dt, bo); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
	if known {
		out := make([]float64, count)
		if err := streamDecode(r, out, dt, bo); err != nil {
			return nil, err
		}
		return out, nil
	}
	pieces, err := readExact(r, count*int64(size))
	if err != nil {
		return nil, err
	}
	out := make([]float64, count)
	if err := decodeSamples(out, pieces, dt, bo); err != nil {
		return nil, err
	}
	return out, nil
}

// inputSize reports the total size of r and a ReaderAt on it when r is a
// file or an in-memory reader; ok is false otherwise.
func inputSize(r io.Reader) (size int64, at io.ReaderAt, ok bool) {
	switch x := r.(type) {
	case *os.File:
		st, err := x.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return 0, nil, false
		}
		return st.Size(), x, true
	case interface {
		io.ReaderAt
		Size() int64
	}:
		return x.Size(), x, true
	}
	return 0, nil, false
}

// maxDeflateRatio bounds how much a deflate stream can expand (1032:1).
const maxDeflateRatio = 1032

// HoldsPlain reports whether an uncompressed input of the given size can
// hold `need` bytes from its start; known is false when the size is unknown.
func HoldsPlain(r io.Reader, need int64) (size int64, holds, known bool) {
	size, _, known = inputSize(r)
	return size, known && size >= need, known
}

// HoldsGzip reports whether a gzip input that runs to the end of r plausibly
// decompresses to at least `need` bytes: within the deflate expansion bound,
// and, when need < 4 GiB, with the trailer's ISIZE (the uncompressed length
// mod 2^32) at least need. A truncated file fails one of these in almost all
// cases; one that passes by chance still fails while reading.
func HoldsGzip(r io.Reader, need int64) bool {
	size, at, ok := inputSize(r)
	if !ok || size < 18 || need/maxDeflateRatio > size {
		return false
	}
	if need >= 1<<32 {
		return true
	}
	var tail [4]byte
	if _, err := at.ReadAt(tail[:], size-4); err != nil {
		return false
	}
	return int64(binary.LittleEndian.Uint32(tail[:])) >= need
}

// PixelDataError describes a read of pixel data that failed after got of
// total bytes: a truncation when the input ended.
func PixelDataError(err error, got, total int64) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("pixel data truncated: got %d of %d bytes", got, total)
	}
	return fmt.Errorf("pixel data: %w (after %d of %d bytes)", err, got, total)
}
