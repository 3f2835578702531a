package inflate

import (
	"bytes"
	"testing"
)

// FuzzZlib: Zlib never accepts what compress/zlib rejects (read to EOF,
// ending exactly at the end of the input), and never decodes to other
// bytes, for the fuzzed output size and for compress/zlib's. The seeds are
// streams from every encoder.
func FuzzZlib(f *testing.F) {
	r := newRand(21)
	encs := encoders()
	for i := 0; i < 3*len(encs); i++ {
		data := genData(r, i%8, r.IntN(1500))
		f.Add(encs[i%len(encs)].enc(f, data), uint16(len(data)))
	}
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		if len(src) > 4096 {
			return
		}
		want, err := stdZlib(src)
		ok := err == nil && trailingOK(src)
		sizes := []int{int(n)}
		if ok && len(want) != int(n) {
			sizes = append(sizes, len(want))
		}
		for _, size := range sizes {
			dst := make([]byte, size)
			if Zlib(dst, src) != nil {
				continue
			}
			if !ok {
				t.Fatalf("Zlib accepted a stream compress/zlib rejects (%v)", err)
			}
			if size != len(want) || !bytes.Equal(dst, want) {
				t.Fatalf("Zlib decoded %d bytes that differ from compress/zlib's %d", size, len(want))
			}
		}
	})
}
