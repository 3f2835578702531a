package codec

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// gzipMember builds one gzip member of p with the given header fields
// (hcrc: with a correct header CRC).
func gzipMember(t testing.TB, p []byte, name, comment string, extra []byte, hcrc bool, level int) []byte {
	t.Helper()
	var body bytes.Buffer
	zw, err := gzip.NewWriterLevel(&body, level)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(p)
	zw.Close()
	deflated := body.Bytes()[10 : body.Len()-8] // compress/gzip writes a bare 10-byte header here
	hdr := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}
	if extra != nil {
		hdr[3] |= gzipFlagExtra
		hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(extra)))
		hdr = append(hdr, extra...)
	}
	if name != "" {
		hdr[3] |= gzipFlagName
		hdr = append(append(hdr, name...), 0)
	}
	if comment != "" {
		hdr[3] |= gzipFlagComment
		hdr = append(append(hdr, comment...), 0)
	}
	if hcrc {
		hdr[3] |= gzipFlagHCRC
		hdr = binary.LittleEndian.AppendUint16(hdr, uint16(crc32.ChecksumIEEE(hdr)))
	}
	out := append(hdr, deflated...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(p))
	return binary.LittleEndian.AppendUint32(out, uint32(len(p)))
}

// stdGunzip decodes with compress/gzip (several members allowed).
func stdGunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// TestGunzipWhole: every gzip file the whole-file path decodes, compress/gzip
// decodes to the same bytes; the plain cases (any header field) are taken;
// several members, trailing bytes, long names, bad header CRCs and every
// damage are left to the streaming reader or decoded identically.
func TestGunzipWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	payload := func() []byte {
		p := make([]byte, rng.IntN(3000))
		for i := range p {
			if rng.IntN(3) == 0 {
				p[i] = byte(rng.IntN(256))
			}
		}
		return p
	}
	check := func(name string, data []byte, wantOK bool) {
		t.Helper()
		got, ok := GunzipWhole(data, bytes.Repeat([]byte{0xee}, rng.IntN(4000)), MaxWholeGzipOut)
		want, err := stdGunzip(data)
		if ok && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("%s: whole-file path gave %d bytes, compress/gzip %d bytes, %v", name, len(got), len(want), err)
		}
		if ok != wantOK && wantOK {
			t.Fatalf("%s: declined a plain member", name)
		}
		if ok && !wantOK {
			t.Fatalf("%s: took a file it must leave to the streaming reader", name)
		}
	}
	for it := 0; it < 400; it++ {
		p := payload()
		level := []int{gzip.NoCompression, gzip.BestSpeed, gzip.DefaultCompression, gzip.HuffmanOnly}[it%4]
		var extra []byte
		if it%3 == 0 {
			extra = []byte("ex\x00tra")
		}
		name, comment := "", ""
		if it%5 == 0 {
			name = "case.nii"
		}
		if it%7 == 0 {
			comment = strings.Repeat("c", rng.IntN(100))
		}
		m := gzipMember(t, p, name, comment, extra, it%2 == 0, level)
		check("plain", m, true)
		check("two members", append(append([]byte(nil), m...), m...), false)
		check("trailing zero", append(append([]byte(nil), m...), 0), false)
		bad := append([]byte(nil), m...)
		bad[len(bad)-1-rng.IntN(8)] ^= byte(1 + rng.IntN(255)) // CRC or ISIZE
		check("bad trailer", bad, false)
		for k := 0; k < 4; k++ { // any damage: either declined or what compress/gzip gives
			d := append([]byte(nil), m...)
			d[rng.IntN(len(d))] ^= byte(1 + rng.IntN(255))
			got, ok := GunzipWhole(d, nil, MaxWholeGzipOut)
			if want, err := stdGunzip(d); ok && (err != nil || !bytes.Equal(got, want)) {
				t.Fatalf("damaged member decoded to %d bytes; compress/gzip: %d bytes, %v", len(got), len(want), err)
			}
		}
		check("truncated", m[:rng.IntN(len(m))], false)
	}
	p := payload()
	check("name of 511 bytes", gzipMember(t, p, strings.Repeat("n", 511), "", nil, false, 1), true)
	check("name of 512 bytes", gzipMember(t, p, strings.Repeat("n", 512), "", nil, false, 1), false)
	h := gzipMember(t, p, "x", "", nil, true, 1)
	h[12] ^= 1 // the name, so the header CRC no longer holds
	check("bad header CRC", h, false)
	r := gzipMember(t, p, "", "", nil, false, 1)
	r[3] |= 0x20 // a reserved flag
	check("reserved flag", r, false)
}
