package imageio

import (
	"bytes"
	stdgzip "compress/gzip"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

// benchNIfTI holds a ~105 MB (uncompressed) int16 volume, 512×512×200,
// written once as .nii and .nii.gz: a smooth CT-like pattern plus noise,
// so gzip compresses it to a realistic ratio.
var benchNIfTI struct {
	once     sync.Once
	raw, gz  []byte
	rawBytes int64
}

func loadBenchNIfTI(b *testing.B) {
	benchNIfTI.once.Do(func() {
		g := volume.Grid{Shape: [3]int{512, 512, 200}, Spacing: [3]float64{0.7, 0.7, 1.5}}
		v := volume.New(g, volume.Int16)
		rng := rand.New(rand.NewPCG(1, 2))
		for k := 0; k < g.Shape[2]; k++ {
			for j := 0; j < g.Shape[1]; j++ {
				for i := 0; i < g.Shape[0]; i++ {
					dx, dy := float64(i-256), float64(j-256)
					val := -1000.0
					if dx*dx+dy*dy < 200*200 {
						val = 40 + float64((i/16+j/16+k/8)%5)*30 + float64(rng.IntN(20))
					}
					v.Data[g.Index(i, j, k)] = val
				}
			}
		}
		var raw, gz bytes.Buffer
		if err := nifti.Write(&raw, v, volume.Int16, false); err != nil {
			panic(err)
		}
		zw, _ := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
		zw.Write(raw.Bytes())
		zw.Close()
		benchNIfTI.raw, benchNIfTI.gz = raw.Bytes(), gz.Bytes()
		benchNIfTI.rawBytes = int64(raw.Len())
	})
	b.SetBytes(benchNIfTI.rawBytes)
	b.ReportAllocs()
	b.ResetTimer()
}

// BenchmarkReadNIfTIGz decodes the 105 MB int16 .nii.gz to float64.
func BenchmarkReadNIfTIGz(b *testing.B) {
	loadBenchNIfTI(b)
	for b.Loop() {
		if _, err := nifti.Read(bytes.NewReader(benchNIfTI.gz), true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadNIfTIRaw decodes the same volume from an uncompressed .nii.
func BenchmarkReadNIfTIRaw(b *testing.B) {
	loadBenchNIfTI(b)
	for b.Loop() {
		if _, err := nifti.Read(bytes.NewReader(benchNIfTI.raw), false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGunzipKlauspost is the floor: decompressing the same .nii.gz
// to io.Discard with github.com/klauspost/compress/gzip.
func BenchmarkGunzipKlauspost(b *testing.B) {
	loadBenchNIfTI(b)
	for b.Loop() {
		zr, err := gzip.NewReader(bytes.NewReader(benchNIfTI.gz))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGunzipStdlib is the same with the standard library's gzip.
func BenchmarkGunzipStdlib(b *testing.B) {
	loadBenchNIfTI(b)
	for b.Loop() {
		zr, err := stdgzip.NewReader(bytes.NewReader(benchNIfTI.gz))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
	}
}

// benchRaster returns a 1024×1024 image with nc channels of the given
// depth: smooth gradients plus noise.
func benchRaster(nc int, dt volume.DType) *volume.Volume {
	v := &volume.Volume{Grid: volume.NewGrid(1024, 1024), DType: dt, Channels: nc, Data: make([]float64, 1024*1024*nc)}
	rng := rand.New(rand.NewPCG(3, 4))
	maxv := 255
	if dt == volume.Uint16 {
		maxv = 65535
	}
	for i := range v.Data {
		p := i / nc
		x, y := p%1024, p/1024
		v.Data[i] = float64(((x+y)*maxv/2048 + rng.IntN(8)) % (maxv + 1))
	}
	return v
}

func benchDecode(b *testing.B, data []byte, dec func(io.Reader, ...Options) (*volume.Volume, error), raw int) {
	b.SetBytes(int64(raw))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := dec(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadPNGGray8_1024(b *testing.B) {
	var buf bytes.Buffer
	if err := png.Write(&buf, benchRaster(1, volume.Uint8), 8); err != nil {
		b.Fatal(err)
	}
	benchDecode(b, buf.Bytes(), png.Read, 1024*1024)
}

func BenchmarkReadPNGGray16_1024(b *testing.B) {
	var buf bytes.Buffer
	if err := png.Write(&buf, benchRaster(1, volume.Uint16), 16); err != nil {
		b.Fatal(err)
	}
	benchDecode(b, buf.Bytes(), png.Read, 2*1024*1024)
}

func BenchmarkReadPNGRGB_1024(b *testing.B) {
	var buf bytes.Buffer
	if err := png.Write(&buf, benchRaster(3, volume.Uint8), 8); err != nil {
		b.Fatal(err)
	}
	benchDecode(b, buf.Bytes(), png.Read, 3*1024*1024)
}

func BenchmarkReadTIFFGray16_1024(b *testing.B) {
	var buf bytes.Buffer
	if err := tiff.Write(&buf, benchRaster(1, volume.Uint16), volume.Uint16); err != nil {
		b.Fatal(err)
	}
	benchDecode(b, buf.Bytes(), tiff.Read, 2*1024*1024)
}

func BenchmarkReadTIFFRGB_1024(b *testing.B) {
	var buf bytes.Buffer
	if err := tiff.Write(&buf, benchRaster(3, volume.Uint8), volume.Uint8); err != nil {
		b.Fatal(err)
	}
	benchDecode(b, buf.Bytes(), tiff.Read, 3*1024*1024)
}

func BenchmarkReadTIFFFloat32_1024(b *testing.B) {
	var buf bytes.Buffer
	v := benchRaster(1, volume.Uint16)
	if err := tiff.Write(&buf, v, volume.Float32); err != nil {
		b.Fatal(err)
	}
	benchDecode(b, buf.Bytes(), tiff.Read, 4*1024*1024)
}

// BenchmarkConvertInt16 converts 1 M little-endian int16 samples to float64
// on one goroutine (bytes/s of raw input).
func BenchmarkConvertInt16(b *testing.B) {
	src := make([]byte, 2<<20)
	dst := make([]float64, 1<<20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		codec.Convert(dst, src, volume.Int16, binary.LittleEndian)
	}
}
