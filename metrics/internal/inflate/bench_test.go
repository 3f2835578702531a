package inflate

import (
	"bytes"
	stdzlib "compress/zlib"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	kzlib "github.com/klauspost/compress/zlib"
)

func klauspostBestSpeed(tb testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w, err := kzlib.NewWriterLevel(&buf, kzlib.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	write(tb, w, b)
	return buf.Bytes()
}

// cpuTimer reports the benchmark loop's thread CPU time per operation as
// the metric cpu-ns/op (see threadCPU); call the returned function after
// the loop.
func cpuTimer(b *testing.B) func() {
	runtime.LockOSThread()
	t0, ok := threadCPU()
	return func() {
		t1, ok1 := threadCPU()
		runtime.UnlockOSThread()
		if ok && ok1 && b.N > 0 {
			b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
		}
	}
}

func benchZlib(b *testing.B, data []byte) { benchZlibStream(b, data, klauspostBestSpeed(b, data)) }

// benchZlibStream times Zlib and klauspost's reader on src, a zlib stream
// of data.
func benchZlibStream(b *testing.B, data, src []byte) {
	b.Logf("%d bytes -> %d (%.1f%%)", len(data), len(src), 100*float64(len(src))/float64(len(data)))
	dst := make([]byte, len(data))
	b.Run("inflate", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		defer cpuTimer(b)()
		for b.Loop() {
			if err := Zlib(dst, src); err != nil {
				b.Fatal(err)
			}
		}
		if !bytes.Equal(dst, data) {
			b.Fatal("wrong output")
		}
	})
	b.Run("klauspost", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		defer cpuTimer(b)()
		for b.Loop() {
			zr, err := kzlib.NewReader(bytes.NewReader(src))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, dst); err != nil {
				b.Fatal(err)
			}
		}
		if !bytes.Equal(dst, data) {
			b.Fatal("wrong output")
		}
	})
	// The same with one reader, Reset for each stream (no allocations).
	b.Run("klauspostReset", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		br := bytes.NewReader(src)
		zr, err := kzlib.NewReader(br)
		if err != nil {
			b.Fatal(err)
		}
		defer cpuTimer(b)()
		for b.Loop() {
			br.Reset(src)
			if err := zr.(kzlib.Resetter).Reset(br, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, dst); err != nil {
				b.Fatal(err)
			}
		}
		if !bytes.Equal(dst, data) {
			b.Fatal("wrong output")
		}
	})
}

// BenchmarkZlibFan512: a 512×512 sector-scan frame's PNG rows, written by
// klauspost zlib at BestSpeed.
func BenchmarkZlibFan512(b *testing.B) { benchZlib(b, fanFrame(512, 512, 7)) }

// BenchmarkZlibText: 1 MiB of English-like text, klauspost BestSpeed.
func BenchmarkZlibText(b *testing.B) {
	benchZlib(b, textLike(1<<20, rand.New(rand.NewPCG(8, 9))))
}

// noiseRows is a w×h 8-bit frame of uniform grey noise in 40…215 (the
// USenhance grader's "noisy" benchmark) as a PNG's filtered rows, filter
// type 0: nearly incompressible, every byte a literal of about 7.5 bits.
func noiseRows(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	out := make([]byte, 0, h*(w+1))
	for y := 0; y < h; y++ {
		out = append(out, 0)
		for x := 0; x < w; x++ {
			out = append(out, byte(40+r.IntN(176)))
		}
	}
	return out
}

// BenchmarkZlibNoise512: noiseRows(512, 512) written by compress/zlib at
// its default level (as image/png and Pillow's zlib write PNGs): dynamic
// blocks of about 16 K literals each, the literal-heavy worst case.
func BenchmarkZlibNoise512(b *testing.B) {
	data := noiseRows(512, 512, 5)
	benchZlibStream(b, data, stdDefault(b, data))
}

// stdDefault is data written by compress/zlib at its default level.
func stdDefault(tb testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	w, err := stdzlib.NewWriterLevel(&buf, stdzlib.DefaultCompression)
	if err != nil {
		tb.Fatal(err)
	}
	write(tb, w, data)
	return buf.Bytes()
}

// BenchmarkZlibDeep512: a 512×512 16-bit frame of speckle over 0…4095 as a
// PNG's filtered rows (filter type 0, big-endian samples) written by
// compress/zlib at its default level: short codes for the few high bytes,
// long ones for the noisy low bytes, so that literal pairs are built for
// every block.
func BenchmarkZlibDeep512(b *testing.B) {
	r := rand.New(rand.NewPCG(6, 7))
	data := make([]byte, 0, 512*(2*512+1))
	for y := 0; y < 512; y++ {
		data = append(data, 0)
		for x := 0; x < 512; x++ {
			v := uint16(min(4095, max(0, 900*(1+0.3*r.NormFloat64()))))
			data = append(data, byte(v>>8), byte(v))
		}
	}
	benchZlibStream(b, data, stdDefault(b, data))
}
