package inflate

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// check decodes src with Zlib into a buffer of n bytes and compares with the
// oracle (compress/zlib, stream ending exactly at len(src), n bytes).
func check(t *testing.T, name string, src []byte, n int) {
	t.Helper()
	want, werr := stdZlib(src)
	ok := werr == nil && len(want) == n && trailingOK(src)
	dst := make([]byte, n)
	err := Zlib(dst, src)
	switch {
	case ok && err != nil:
		t.Fatalf("%s: Zlib failed on a valid stream: %v", name, err)
	case !ok && err == nil:
		t.Fatalf("%s: Zlib accepted a stream the standard decoder rejects (%v, %d bytes, want %d)", name, werr, len(want), n)
	case ok && !bytes.Equal(dst, want):
		t.Fatalf("%s: Zlib's output differs from compress/zlib's", name)
	}
}

// TestDifferential: streams from every stdlib and klauspost level, on data
// of many kinds and sizes, decode to exactly compress/zlib's output.
func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 2, 7, 8, 9, 100, 257, 1000, 4096, 65535, 65536, 70000, 200000}
	encs := encoders()
	iters := 0
	for kind := 0; kind < 8; kind++ {
		for _, n := range sizes {
			data := genData(r, kind, n)
			for _, e := range encs {
				if n >= 65536 && r.IntN(3) != 0 {
					continue // keep the test quick: a third of the large cases
				}
				src := e.enc(t, data)
				name := e.name + "/kind" + itoa(kind) + "/n" + itoa(n)
				dst := make([]byte, n)
				if err := Zlib(dst, src); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.Equal(dst, data) {
					t.Fatalf("%s: output differs from the input", name)
				}
				iters++
			}
		}
	}
	// Random sizes.
	for i := 0; i < 1500; i++ {
		n := r.IntN(3000)
		if i%50 == 0 {
			n = r.IntN(300000)
		}
		data := genData(r, r.IntN(8), n)
		e := encs[r.IntN(len(encs))]
		src := e.enc(t, data)
		dst := make([]byte, n)
		if err := Zlib(dst, src); err != nil {
			t.Fatalf("%s n=%d: %v", e.name, n, err)
		}
		if !bytes.Equal(dst, data) {
			t.Fatalf("%s n=%d: output differs from the input", e.name, n)
		}
		// Wrong output sizes fail.
		if Zlib(make([]byte, n+1), src) == nil || (n > 0 && Zlib(make([]byte, n-1), src) == nil) {
			t.Fatalf("%s n=%d: accepted a wrong output size", e.name, n)
		}
		iters++
	}
	t.Logf("%d streams", iters)
}

// TestFan512: the benchmark's frame round-trips through every encoder.
func TestFan512(t *testing.T) {
	data := fanFrame(512, 512, 7)
	for _, e := range encoders() {
		check(t, e.name, e.enc(t, data), len(data))
	}
}

// TestCorruption: flipped, truncated, extended and spliced streams are
// rejected whenever compress/zlib rejects them or decodes other bytes.
func TestCorruption(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	encs := encoders()
	for i := 0; i < 3000; i++ {
		n := r.IntN(2000)
		if i%20 == 0 {
			n = r.IntN(100000)
		}
		data := genData(r, r.IntN(8), n)
		src := encs[r.IntN(len(encs))].enc(t, data)
		bad := append([]byte(nil), src...)
		switch r.IntN(6) {
		case 0, 1: // flip bits
			for k := 1 + r.IntN(3); k > 0; k-- {
				bad[r.IntN(len(bad))] ^= 1 << r.IntN(8)
			}
		case 2: // overwrite a byte
			bad[r.IntN(len(bad))] = byte(r.Uint32())
		case 3: // truncate
			bad = bad[:r.IntN(len(bad))]
		case 4: // extend
			bad = append(bad, byte(r.Uint32()))
		case 5: // flip a bit near the end (final block, trailer)
			k := len(bad) - 1 - r.IntN(min(len(bad), 12))
			bad[k] ^= 1 << r.IntN(8)
		}
		check(t, "corrupt"+itoa(i), bad, n)
	}
}

// TestDeflate: the raw-stream entry point reports the bytes it consumed
// and wrote.
func TestDeflate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, e := range encoders() {
		data := genData(r, 3, 5000)
		src := e.enc(t, data)
		raw := append(src[2:len(src)-4:len(src)-4], 0xAA, 0xBB)
		dst := make([]byte, 6000)
		nOut, nIn, err := Deflate(dst, raw)
		if err != nil || nOut != len(data) || nIn != len(raw)-2 || !bytes.Equal(dst[:nOut], data) {
			t.Fatalf("%s: Deflate = %d, %d, %v; want %d, %d", e.name, nOut, nIn, err, len(data), len(raw)-2)
		}
		if _, _, err := Deflate(dst[:len(data)-1], raw); err == nil {
			t.Fatalf("%s: Deflate into too small a buffer succeeded", e.name)
		}
	}
}
