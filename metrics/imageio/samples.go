package imageio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rexmle/rexmle/metrics/volume"
)

// elemSize returns the byte size of one element of dt.
func elemSize(dt volume.DType) (int, error) {
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

// sampleCount multiplies the dimensions with overflow checks and verifies
// the decoded size (count × 8 bytes) fits maxBytes. field names the header
// field for the error message.
func sampleCount(field string, maxBytes int64, dims ...int64) (int64, error) {
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
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("pixel data truncated: got %d of %d bytes", got, n)
			}
			return nil, fmt.Errorf("pixel data: %w (after %d of %d bytes)", err, got, n)
		}
		pieces = append(pieces, p)
	}
	return pieces, nil
}

// decodeBlock is the unit of parallel conversion, in bytes.
const decodeBlock = 1 << 20

// decodeSamples converts the raw elements in pieces (concatenated) into out,
// in parallel blocks over all cores. len(out) elements are converted; the
// pieces must hold at least len(out) × elemSize(dt) bytes.
func decodeSamples(out []float64, pieces [][]byte, dt volume.DType, bo binary.ByteOrder) error {
	size, err := elemSize(dt)
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
	workers := min(runtime.GOMAXPROCS(0), len(jobs))
	if workers <= 1 {
		for _, j := range jobs {
			convert(j.dst, j.src, dt, bo)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				convert(jobs[i].dst, jobs[i].src, dt, bo)
			}
		}()
	}
	wg.Wait()
	return nil
}

// convert decodes len(dst) elements of type dt from src.
func convert(dst []float64, src []byte, dt volume.DType, bo binary.ByteOrder) {
	switch dt {
	case volume.Uint8:
		for i := range dst {
			dst[i] = float64(src[i])
		}
	case volume.Int8:
		for i := range dst {
			dst[i] = float64(int8(src[i]))
		}
	case volume.Uint16:
		for i := range dst {
			dst[i] = float64(bo.Uint16(src[2*i:]))
		}
	case volume.Int16:
		for i := range dst {
			dst[i] = float64(int16(bo.Uint16(src[2*i:])))
		}
	case volume.Uint32:
		for i := range dst {
			dst[i] = float64(bo.Uint32(src[4*i:]))
		}
	case volume.Int32:
		for i := range dst {
			dst[i] = float64(int32(bo.Uint32(src[4*i:])))
		}
	case volume.Float32:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(bo.Uint32(src[4*i:])))
		}
	case volume.Uint64:
		for i := range dst {
			dst[i] = float64(bo.Uint64(src[8*i:]))
		}
	case volume.Int64:
		for i := range dst {
			dst[i] = float64(int64(bo.Uint64(src[8*i:])))
		}
	case volume.Float64:
		for i := range dst {
			dst[i] = math.Float64frombits(bo.Uint64(src[8*i:]))
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

// encodeSamples converts data to elements of type dt in byte order bo.
// Integer types need whole numbers within the type's range (NaN and
// fractions are errors, naming the first offending index); Float32 rounds to
// nearest.
func encodeSamples(data []float64, dt volume.DType, bo binary.ByteOrder) ([]byte, error) {
	size, err := elemSize(dt)
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

// checkVolume validates a volume handed to a writer.
func checkVolume(v *volume.Volume) error {
	if v == nil {
		return errors.New("nil volume")
	}
	return v.Check()
}

// parallelFor runs fn over [0, n) split into contiguous ranges, one per core.
func parallelFor(n int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < 1<<16 || workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
