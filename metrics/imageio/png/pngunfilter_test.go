package png

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// unfilterSpec reconstructs one row of bpp-byte pixels from its filtered
// bytes in, given the previous reconstructed row (nil: zeros), byte by byte
// as the PNG specification (section 9) states each filter; the optimised
// unfilterRow and unfilterRowBpp are checked against it.
func unfilterSpec(ft byte, in, prev []byte, bpp int) ([]byte, bool) {
	if ft > 4 {
		return nil, false
	}
	cur := make([]byte, len(in))
	at := func(row []byte, i int) int {
		if i < 0 || row == nil {
			return 0
		}
		return int(row[i])
	}
	for i, x := range in {
		a, b, c := at(cur, i-bpp), at(prev, i), at(prev, i-bpp)
		pred := imagetest.PngPredictor(ft, a, b, c)
		cur[i] = byte(int(x) + pred)
	}
	return cur, true
}

// unfilterInputs are rows of several widths and contents (noise, runs,
// extremes that overflow the 8-bit sums) for the unfilter tests.
func unfilterInputs(r *rand.Rand) [][2][]byte {
	var out [][2][]byte
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 100, 513} {
		for kind := range 4 {
			in, prev := make([]byte, n), make([]byte, n)
			for i := range in {
				switch kind {
				case 0:
					in[i], prev[i] = byte(r.IntN(256)), byte(r.IntN(256))
				case 1:
					in[i], prev[i] = 0xff, 0xff
				case 2:
					in[i], prev[i] = byte(r.IntN(2))*0xff, byte(r.IntN(3))*0x7f
				default:
					in[i], prev[i] = byte(r.IntN(5)), byte(100+r.IntN(5))
				}
			}
			out = append(out, [2][]byte{in, prev})
		}
	}
	return out
}

// TestUnfilterMatchesSpec: every filter type, 1 to 8 bytes a pixel, with
// and without a previous row, on rows of every length around the kernels'
// 8-byte steps; unknown filter types are refused.
func TestUnfilterMatchesSpec(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, io := range unfilterInputs(r) {
		in, prev := io[0], io[1]
		for ft := byte(0); ft <= 5; ft++ {
			for _, pv := range [][]byte{nil, prev} {
				for _, bpp := range []int{1, 2, 3, 4, 6, 8} {
					if len(in)%bpp != 0 {
						continue
					}
					want, wantOK := unfilterSpec(ft, in, pv, bpp)
					got := bytes.Clone(in)
					ok := unfilterRowBpp(ft, got, pv, bpp)
					name := fmt.Sprintf("filter %d, bpp %d, %d bytes, prev %v", ft, bpp, len(in), pv != nil)
					if ok != wantOK || ok && !bytes.Equal(got, want) {
						t.Fatalf("unfilterRowBpp %s: %v %v, want %v %v", name, ok, got, wantOK, want)
					}
					if bpp != 1 {
						continue
					}
					got = bytes.Repeat([]byte{0xa5}, len(in))
					ok = unfilterRow(ft, got, in, pv)
					if ok != wantOK || ok && !bytes.Equal(got, want) {
						t.Fatalf("unfilterRow %s: %v %v, want %v %v", name, ok, got, wantOK, want)
					}
				}
			}
		}
	}
}

// BenchmarkUnfilter512 reconstructs 512 rows of 512 noise bytes with each
// filter type (1 byte a pixel: 8-bit grey, whose filters chain byte to
// byte; and 3, RGB).
func BenchmarkUnfilter512(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const w, h = 512, 512
	raw := make([]byte, w*h)
	for i := range raw {
		raw[i] = byte(r.IntN(256))
	}
	pix := make([]byte, w*h)
	for ft := byte(0); ft <= 4; ft++ {
		b.Run(fmt.Sprintf("gray8/filter%d", ft), func(b *testing.B) {
			b.SetBytes(w * h)
			defer threadCPUTimer(b)()
			for b.Loop() {
				for y := 0; y < h; y++ {
					unfilterRow(ft, pix[y*w:y*w+w], raw[y*w:y*w+w], prevRow(pix, y, w))
				}
			}
		})
	}
	raw3 := make([]byte, 3*w*h)
	for i := range raw3 {
		raw3[i] = byte(r.IntN(256))
	}
	rgb := make([]byte, 3*w*h)
	for ft := byte(0); ft <= 4; ft++ {
		b.Run(fmt.Sprintf("rgb/filter%d", ft), func(b *testing.B) {
			b.SetBytes(3 * w * h)
			defer threadCPUTimer(b)()
			for b.Loop() {
				copy(rgb, raw3) // unfiltered in place: the filtered rows again
				var prev []byte
				for y := 0; y < h; y++ {
					cur := rgb[y*3*w : (y+1)*3*w]
					unfilterRowBpp(ft, cur, prev, 3)
					prev = cur
				}
			}
		})
	}
}

// threadCPUTimer reports the benchmark loop's thread CPU time per operation
// as cpu-ns/op (the machine may be shared: the wall clock then measures the
// neighbours too); call the returned function after the loop.
func threadCPUTimer(b *testing.B) func() {
	runtime.LockOSThread()
	cpu := func() int64 {
		var ru syscall.Rusage
		if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
			return -1
		}
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	t0 := cpu()
	return func() {
		t1 := cpu()
		runtime.UnlockOSThread()
		if t0 >= 0 && t1 >= 0 && b.N > 0 {
			b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
		}
	}
}
