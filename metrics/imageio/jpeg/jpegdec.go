package jpeg

import (
	"errors"

	"github.com/rexmle/rexmle/metrics/volume"
)

// errJPEGUnsupported marks a JPEG this decoder leaves to Go's image/jpeg
// (arithmetic coding, lossless, 12-bit samples, 2 or 4 components,
// unusual sampling factors).
var errJPEGUnsupported = errors.New("jpeg: variant not handled by the libjpeg-compatible decoder")

// DecodeTurbo decodes a sequential or progressive Huffman 8-bit JPEG with
// libjpeg-turbo's default arithmetic: the accurate integer inverse DCT
// (jidctint.c "islow", 13-bit constants, two passes, output range-limited
// through libjpeg's wrap-around table), then for colour images fancy
// chroma upsampling and the fixed-point YCbCr→RGB tables (RGBVolume's
// rules). One component gives 1 grey channel, three give RGB.
func DecodeTurbo(data []byte) (*volume.Volume, error) {
	d := &jpegDec{data: data}
	if err := d.parse(); err != nil {
		return nil, err
	}
	return d.output()
}

type jpegComp struct {
	id, h, v, tq int
	bw, bh       int     // blocks per line / column (MCU-padded)
	coef         []int32 // dequantisation happens in the IDCT
	plane        []uint8 // bw*8 × bh*8 samples after the IDCT
	td, ta       int
	pred         int32
}

type jpegDec struct {
	data       []byte
	pos        int
	w, h       int
	comps      []*jpegComp
	hmax, vmax int
	mcux, mcuy int
	q          [4][64]int32
	qset       [4]bool
	dc, ac     [4]*huffTable
	restart    int
	frame      bool
	prog       bool  // progressive (SOF2)
	eobrun     int32 // progressive AC end-of-band run
	// bit reader
	bits  uint32
	nbits int
}

type huffTable struct {
	// lookup by code length: for each length, the first code, count and
	// the index of its first symbol
	maxcode [18]int32
	valptr  [17]int32
	mincode [17]int32
	vals    []uint8
}

var jpegZigzag = [64]int{
	0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
	12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
	35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
	58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
}

func (d *jpegDec) u16(p int) int { return int(d.data[p])<<8 | int(d.data[p+1]) }

func (d *jpegDec) parse() error {
	b := d.data
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return errors.New("jpeg: no SOI marker")
	}
	d.pos = 2
	for {
		// find the next marker
		for d.pos < len(b) && b[d.pos] != 0xFF {
			d.pos++
		}
		for d.pos < len(b) && b[d.pos] == 0xFF {
			d.pos++
		}
		if d.pos >= len(b) {
			return errors.New("jpeg: truncated before the scan")
		}
		m := b[d.pos]
		d.pos++
		if m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01 {
			continue
		}
		if m == 0xD9 {
			if !d.frame {
				return errors.New("jpeg: no frame")
			}
			return nil
		}
		if d.pos+2 > len(b) {
			return errors.New("jpeg: truncated segment")
		}
		n := d.u16(d.pos)
		if n < 2 || d.pos+n > len(b) {
			return errors.New("jpeg: bad segment length")
		}
		seg := b[d.pos+2 : d.pos+n]
		d.pos += n
		var err error
		switch {
		case m == 0xC0 || m == 0xC1:
			err = d.sof(seg)
		case m == 0xC2:
			d.prog = true
			err = d.sof(seg)
		case m >= 0xC3 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			return errJPEGUnsupported
		case m == 0xC4:
			err = d.dht(seg)
		case m == 0xDB:
			err = d.dqt(seg)
		case m == 0xDD:
			if len(seg) < 2 {
				return errors.New("jpeg: bad DRI")
			}
			d.restart = int(seg[0])<<8 | int(seg[1])
		case m == 0xDA:
			err = d.sos(seg)
		case m == 0xEE && len(seg) >= 12 && string(seg[:5]) == "Adobe":
			if seg[11] != 1 && len(d.comps) == 3 {
				return errJPEGUnsupported // RGB-coded (transform 0) or YCCK
			}
		}
		if err != nil {
			return err
		}
	}
}

func (d *jpegDec) sof(s []byte) error {
	if d.frame {
		return errors.New("jpeg: two frames")
	}
	if len(s) < 6 {
		return errors.New("jpeg: short SOF")
	}
	if s[0] != 8 {
		return errJPEGUnsupported
	}
	d.h, d.w = int(s[1])<<8|int(s[2]), int(s[3])<<8|int(s[4])
	nc := int(s[5])
	if d.w == 0 || d.h == 0 {
		return errJPEGUnsupported // height from DNL: rare
	}
	if nc != 1 && nc != 3 {
		return errJPEGUnsupported
	}
	if len(s) < 6+3*nc {
		return errors.New("jpeg: short SOF")
	}
	d.hmax, d.vmax = 1, 1
	for i := 0; i < nc; i++ {
		c := &jpegComp{id: int(s[6+3*i]), h: int(s[7+3*i] >> 4), v: int(s[7+3*i] & 15), tq: int(s[8+3*i])}
		if c.h < 1 || c.h > 2 || c.v < 1 || c.v > 2 || c.tq > 3 {
			return errJPEGUnsupported
		}
		d.hmax, d.vmax = max(d.hmax, c.h), max(d.vmax, c.v)
		d.comps = append(d.comps, c)
	}
	if nc == 1 {
		d.comps[0].h, d.comps[0].v, d.hmax, d.vmax = 1, 1, 1, 1
	}
	d.mcux = (d.w + 8*d.hmax - 1) / (8 * d.hmax)
	d.mcuy = (d.h + 8*d.vmax - 1) / (8 * d.vmax)
	for _, c := range d.comps {
		c.bw, c.bh = d.mcux*c.h, d.mcuy*c.v
		if int64(c.bw)*int64(c.bh)*64 > 1<<28 {
			return errJPEGUnsupported
		}
		c.coef = make([]int32, c.bw*c.bh*64)
	}
	d.frame = true
	return nil
}

func (d *jpegDec) dqt(s []byte) error {
	for len(s) > 0 {
		pq, tq := s[0]>>4, int(s[0]&15)
		if tq > 3 {
			return errors.New("jpeg: bad DQT")
		}
		s = s[1:]
		for k := 0; k < 64; k++ {
			if pq == 0 {
				if len(s) < 1 {
					return errors.New("jpeg: short DQT")
				}
				d.q[tq][jpegZigzag[k]] = int32(s[0])
				s = s[1:]
			} else {
				if len(s) < 2 {
					return errors.New("jpeg: short DQT")
				}
				d.q[tq][jpegZigzag[k]] = int32(s[0])<<8 | int32(s[1])
				s = s[2:]
			}
		}
		d.qset[tq] = true
	}
	return nil
}

func (d *jpegDec) dht(s []byte) error {
	for len(s) > 0 {
		if len(s) < 17 {
			return errors.New("jpeg: short DHT")
		}
		tc, th := s[0]>>4, int(s[0]&15)
		if tc > 1 || th > 3 {
			return errors.New("jpeg: bad DHT")
		}
		t := &huffTable{}
		total := 0
		var counts [17]int
		for l := 1; l <= 16; l++ {
			counts[l] = int(s[l])
			total += counts[l]
		}
		if len(s) < 17+total || total > 256 {
			return errors.New("jpeg: short DHT")
		}
		t.vals = append([]uint8(nil), s[17:17+total]...)
		code, k := int32(0), int32(0)
		for l := 1; l <= 16; l++ {
			t.valptr[l] = k
			t.mincode[l] = code
			code += int32(counts[l])
			k += int32(counts[l])
			if counts[l] > 0 {
				t.maxcode[l] = code - 1
			} else {
				t.maxcode[l] = -1
			}
			code <<= 1
		}
		t.maxcode[17] = 1 << 30
		if tc == 0 {
			d.dc[th] = t
		} else {
			d.ac[th] = t
		}
		s = s[17+total:]
	}
	return nil
}

// bit reader over entropy-coded data: 0xFF00 is a literal 0xFF; at a
// marker, zeros are supplied (as libjpeg does for corrupt data).
func (d *jpegDec) fill() {
	for d.nbits <= 24 {
		var c byte
		if d.pos < len(d.data) {
			c = d.data[d.pos]
			if c == 0xFF {
				if d.pos+1 < len(d.data) && d.data[d.pos+1] == 0 {
					d.pos += 2
				} else {
					c = 0 // marker: do not consume
				}
			} else {
				d.pos++
			}
		}
		d.bits |= uint32(c) << (24 - d.nbits)
		d.nbits += 8
	}
}

func (d *jpegDec) getBits(n int) int32 {
	if n == 0 {
		return 0
	}
	if d.nbits < n {
		d.fill()
	}
	v := int32(d.bits >> (32 - n))
	d.bits <<= n
	d.nbits -= n
	return v
}

func (d *jpegDec) decodeHuff(t *huffTable) (int, error) {
	code := d.getBits(1)
	l := 1
	for code > t.maxcode[l] {
		l++
		if l > 16 {
			return 0, errors.New("jpeg: bad Huffman code")
		}
		code = code<<1 | d.getBits(1)
	}
	i := t.valptr[l] + code - t.mincode[l]
	if int(i) >= len(t.vals) || i < 0 {
		return 0, errors.New("jpeg: bad Huffman code")
	}
	return int(t.vals[i]), nil
}

func extend(v int32, s int) int32 {
	if s == 0 {
		return 0
	}
	if v < 1<<(s-1) {
		return v - (1 << s) + 1
	}
	return v
}

// jpegScan is one scan being decoded: its components and, for a
// progressive scan, its spectral band (ss..se), and successive
// approximation bits (ah, al).
type jpegScan struct {
	d      *jpegDec
	comps  []*jpegComp
	ss, se int
	ah     int
	al     uint
}

func (d *jpegDec) sos(s []byte) error {
	sc, err := d.scanHeader(s)
	if err != nil {
		return err
	}
	d.bits, d.nbits = 0, 0
	d.eobrun = 0
	if err := sc.decodeMCUs(sc.blockDecoder()); err != nil {
		return err
	}
	// Skip to the next marker for the outer loop.
	for d.pos+1 < len(d.data) && !(d.data[d.pos] == 0xFF && d.data[d.pos+1] != 0 && !(d.data[d.pos+1] >= 0xD0 && d.data[d.pos+1] <= 0xD7)) {
		d.pos++
	}
	return nil
}

// scanHeader reads an SOS segment: the scan's components with their
// Huffman tables and, for a progressive frame, the spectral selection and
// successive approximation, each checked against what the frame and the
// tables defined so far allow.
func (d *jpegDec) scanHeader(s []byte) (*jpegScan, error) {
	if !d.frame || len(s) < 1 {
		return nil, errors.New("jpeg: scan before frame")
	}
	ns := int(s[0])
	if ns < 1 || len(s) < 1+2*ns+3 {
		return nil, errors.New("jpeg: bad SOS")
	}
	ss, se := int(s[1+2*ns]), int(s[2+2*ns])
	ah, al := int(s[3+2*ns]>>4), uint(s[3+2*ns]&15)
	if !d.prog {
		ss, se, ah, al = 0, 63, 0, 0
	} else if ss > se || se > 63 || (ss == 0 && se != 0) || (ss > 0 && ns != 1) || al > 13 {
		return nil, errors.New("jpeg: bad progressive scan parameters")
	}
	sc := &jpegScan{d: d, ss: ss, se: se, ah: ah, al: al}
	for i := 0; i < ns; i++ {
		id, tables := int(s[1+2*i]), s[2+2*i]
		var c *jpegComp
		for _, x := range d.comps {
			if x.id == id {
				c = x
			}
		}
		if c == nil {
			return nil, errors.New("jpeg: scan names an unknown component")
		}
		c.td, c.ta = int(tables>>4), int(tables&15)
		needDC := ss == 0 && ah == 0
		needAC := !d.prog || ss > 0
		if c.td > 3 || c.ta > 3 || (needDC && d.dc[c.td] == nil) || (needAC && d.ac[c.ta] == nil) || !d.qset[c.tq] {
			return nil, errors.New("jpeg: scan uses a missing table")
		}
		c.pred = 0
		sc.comps = append(sc.comps, c)
	}
	return sc, nil
}

// blockDecoder picks how each block of the scan is decoded: sequential, or
// one of the four progressive passes.
func (sc *jpegScan) blockDecoder() func(c *jpegComp, bx, by int) error {
	switch {
	case !sc.d.prog:
		return sc.baseline
	case sc.ss == 0 && sc.ah == 0:
		return sc.dcFirst
	case sc.ss == 0:
		return sc.dcRefine
	case sc.ah == 0:
		return sc.acFirst
	default:
		return sc.acRefine
	}
}

// decodeMCUs decodes the scan's MCUs in order with block, handling restart
// intervals.
func (sc *jpegScan) decodeMCUs(block func(c *jpegComp, bx, by int) error) error {
	d := sc.d
	ns := len(sc.comps)
	var units [][3]int // (component, bx, by) per MCU, filled per MCU below
	var nx, ny int
	if ns == 1 {
		// Non-interleaved: the component's own block grid.
		c := sc.comps[0]
		nx = ((d.w*c.h+d.hmax-1)/d.hmax + 7) / 8
		ny = ((d.h*c.v+d.vmax-1)/d.vmax + 7) / 8
	} else {
		nx, ny = d.mcux, d.mcuy
	}
	mcu := 0
	for my := 0; my < ny; my++ {
		for mx := 0; mx < nx; mx++ {
			if d.restart > 0 && mcu > 0 && mcu%d.restart == 0 {
				sc.restartInterval()
			}
			mcu++
			units = units[:0]
			if ns == 1 {
				units = append(units, [3]int{0, mx, my})
			} else {
				for ci, c := range sc.comps {
					for v := 0; v < c.v; v++ {
						for h := 0; h < c.h; h++ {
							units = append(units, [3]int{ci, mx*c.h + h, my*c.v + v})
						}
					}
				}
			}
			for _, u := range units {
				if err := block(sc.comps[u[0]], u[1], u[2]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// restartInterval byte-aligns, expects RSTn and resets the predictions.
func (sc *jpegScan) restartInterval() {
	d := sc.d
	d.bits, d.nbits = 0, 0
	for d.pos+1 < len(d.data) && !(d.data[d.pos] == 0xFF && d.data[d.pos+1] >= 0xD0 && d.data[d.pos+1] <= 0xD7) {
		d.pos++
	}
	if d.pos+1 < len(d.data) {
		d.pos += 2
	}
	for _, c := range sc.comps {
		c.pred = 0
	}
	d.eobrun = 0
}

// baseline decodes one block of a sequential scan: the DC difference, then
// the run-length coded AC coefficients.
func (sc *jpegScan) baseline(c *jpegComp, bx, by int) error {
	d := sc.d
	blk := c.coef[(by*c.bw+bx)*64:][:64]
	if err := sc.decodeDC(c); err != nil {
		return err
	}
	blk[0] = c.pred
	for k := 1; k < 64; k++ {
		rs, err := d.decodeHuff(d.ac[c.ta])
		if err != nil {
			return err
		}
		r, sz := rs>>4, rs&15
		if sz == 0 {
			if r != 15 {
				break
			}
			k += 15
			continue
		}
		k += r
		if k > 63 {
			return errors.New("jpeg: AC index out of range")
		}
		blk[jpegZigzag[k]] = extend(d.getBits(sz), sz)
	}
	return nil
}

// Progressive scans (libjpeg jdphuff.c): DC first / refine, AC first /
// refine with end-of-band runs.

// dcFirst decodes the first DC pass of a block.
func (sc *jpegScan) dcFirst(c *jpegComp, bx, by int) error {
	if err := sc.decodeDC(c); err != nil {
		return err
	}
	c.coef[(by*c.bw+bx)*64] = c.pred << sc.al
	return nil
}

// decodeDC decodes a block's DC difference and adds it to the component's
// prediction.
func (sc *jpegScan) decodeDC(c *jpegComp) error {
	d := sc.d
	t, err := d.decodeHuff(d.dc[c.td])
	if err != nil {
		return err
	}
	if t > 16 {
		return errors.New("jpeg: bad DC size")
	}
	c.pred += extend(d.getBits(t), t)
	return nil
}

// dcRefine adds one bit of DC precision to a block.
func (sc *jpegScan) dcRefine(c *jpegComp, bx, by int) error {
	if sc.d.getBits(1) != 0 {
		c.coef[(by*c.bw+bx)*64] |= 1 << sc.al
	}
	return nil
}

// acFirst decodes the first AC pass of a block's band, or counts down an
// end-of-band run.
func (sc *jpegScan) acFirst(c *jpegComp, bx, by int) error {
	d := sc.d
	blk := c.coef[(by*c.bw+bx)*64:][:64]
	if d.eobrun > 0 {
		d.eobrun--
		return nil
	}
	for k := sc.ss; k <= sc.se; k++ {
		rs, err := d.decodeHuff(d.ac[c.ta])
		if err != nil {
			return err
		}
		r, sz := rs>>4, rs&15
		if sz != 0 {
			k += r
			if k > 63 {
				return errors.New("jpeg: AC index out of range")
			}
			blk[jpegZigzag[k]] = extend(d.getBits(sz), sz) << sc.al
			continue
		}
		if r == 15 {
			k += 15
			continue
		}
		d.eobrun = 1 << r
		if r > 0 {
			d.eobrun += d.getBits(r)
		}
		d.eobrun--
		break
	}
	return nil
}

// acRefine adds one bit of precision to a block's band: correction bits
// for the coefficients already non-zero, and newly non-zero ones.
func (sc *jpegScan) acRefine(c *jpegComp, bx, by int) error {
	d := sc.d
	blk := c.coef[(by*c.bw+bx)*64:][:64]
	p1, m1 := int32(1)<<sc.al, int32(-1)<<sc.al
	refine := func(k int) {
		cf := &blk[jpegZigzag[k]]
		if d.getBits(1) != 0 && *cf&p1 == 0 {
			if *cf >= 0 {
				*cf += p1
			} else {
				*cf += m1
			}
		}
	}
	k, se := sc.ss, sc.se
	if d.eobrun == 0 {
		for ; k <= se; k++ {
			rs, err := d.decodeHuff(d.ac[c.ta])
			if err != nil {
				return err
			}
			r, sz := rs>>4, rs&15
			var val int32
			if sz != 0 {
				if d.getBits(1) != 0 {
					val = p1
				} else {
					val = m1
				}
			} else if r != 15 {
				d.eobrun = 1 << r
				if r > 0 {
					d.eobrun += d.getBits(r)
				}
				break
			}
			for k <= se {
				if blk[jpegZigzag[k]] != 0 {
					refine(k)
				} else {
					r--
					if r < 0 {
						break
					}
				}
				k++
			}
			if val != 0 && k <= 63 {
				blk[jpegZigzag[k]] = val
			}
		}
	}
	if d.eobrun > 0 {
		for ; k <= se; k++ {
			if blk[jpegZigzag[k]] != 0 {
				refine(k)
			}
		}
		d.eobrun--
	}
	return nil
}

// idctRange is libjpeg's post-IDCT range-limit table (jdmaster.c) indexed
// by (value & 1023): values −128..127 map to 0..255 (the +128 level
// shift), larger values to 255 up to 511, then 0 (wrap-around region),
// and the top 128 entries back to 0..127.
var idctRange [1024]uint8

func init() {
	for j := 0; j < 1024; j++ {
		switch {
		case j < 128:
			idctRange[j] = uint8(j + 128)
		case j < 512:
			idctRange[j] = 255
		case j < 896:
			idctRange[j] = 0
		default:
			idctRange[j] = uint8(j - 896)
		}
	}
}

// idctIslow is jpeg_idct_islow (libjpeg-turbo jidctint.c): coef in natural
// order, q the quantisation table, out an 8×8 block with the given stride.
func idctIslow(coef []int32, q *[64]int32, out []uint8, stride int) {
	const (
		constBits = 13
		pass1Bits = 2
		fix0298   = 2446
		fix0390   = 3196
		fix0541   = 4433
		fix0765   = 6270
		fix0899   = 7373
		fix1175   = 9633
		fix1501   = 12299
		fix1847   = 15137
		fix1961   = 16069
		fix2053   = 16819
		fix2562   = 20995
		fix3072   = 25172
	)
	descale := func(x int64, n uint) int64 { return (x + 1<<(n-1)) >> n }
	var ws [64]int64
	for c := 0; c < 8; c++ {
		in := func(r int) int64 { return int64(coef[r*8+c]) * int64(q[r*8+c]) }
		if coef[8+c] == 0 && coef[16+c] == 0 && coef[24+c] == 0 && coef[32+c] == 0 && coef[40+c] == 0 && coef[48+c] == 0 && coef[56+c] == 0 {
			dc := in(0) << pass1Bits
			for r := 0; r < 8; r++ {
				ws[r*8+c] = dc
			}
			continue
		}
		z2, z3 := in(2), in(6)
		z1 := (z2 + z3) * fix0541
		tmp2 := z1 + z3*(-fix1847)
		tmp3 := z1 + z2*fix0765
		z2, z3 = in(0), in(4)
		tmp0 := (z2 + z3) << constBits
		tmp1 := (z2 - z3) << constBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		o0, o1, o2, o3 := in(7), in(5), in(3), in(1)
		y1, y2, y3, y4 := o0+o3, o1+o2, o0+o2, o1+o3
		z5 := (y3 + y4) * fix1175
		o0 *= fix0298
		o1 *= fix2053
		o2 *= fix3072
		o3 *= fix1501
		y1 *= -fix0899
		y2 *= -fix2562
		y3 *= -fix1961
		y4 *= -fix0390
		y3 += z5
		y4 += z5
		o0 += y1 + y3
		o1 += y2 + y4
		o2 += y2 + y3
		o3 += y1 + y4
		n := uint(constBits - pass1Bits)
		ws[0*8+c] = descale(tmp10+o3, n)
		ws[7*8+c] = descale(tmp10-o3, n)
		ws[1*8+c] = descale(tmp11+o2, n)
		ws[6*8+c] = descale(tmp11-o2, n)
		ws[2*8+c] = descale(tmp12+o1, n)
		ws[5*8+c] = descale(tmp12-o1, n)
		ws[3*8+c] = descale(tmp13+o0, n)
		ws[4*8+c] = descale(tmp13-o0, n)
	}
	n := uint(constBits + pass1Bits + 3)
	lim := func(x int64) uint8 { return idctRange[int(descale(x, n))&1023] }
	for r := 0; r < 8; r++ {
		w := ws[r*8 : r*8+8]
		o := out[r*stride : r*stride+8]
		z2, z3 := w[2], w[6]
		z1 := (z2 + z3) * fix0541
		tmp2 := z1 + z3*(-fix1847)
		tmp3 := z1 + z2*fix0765
		tmp0 := (w[0] + w[4]) << constBits
		tmp1 := (w[0] - w[4]) << constBits
		tmp10, tmp13 := tmp0+tmp3, tmp0-tmp3
		tmp11, tmp12 := tmp1+tmp2, tmp1-tmp2
		o0, o1, o2, o3 := w[7], w[5], w[3], w[1]
		y1, y2, y3, y4 := o0+o3, o1+o2, o0+o2, o1+o3
		z5 := (y3 + y4) * fix1175
		o0 *= fix0298
		o1 *= fix2053
		o2 *= fix3072
		o3 *= fix1501
		y1 *= -fix0899
		y2 *= -fix2562
		y3 *= -fix1961
		y4 *= -fix0390
		y3 += z5
		y4 += z5
		o0 += y1 + y3
		o1 += y2 + y4
		o2 += y2 + y3
		o3 += y1 + y4
		o[0], o[7] = lim(tmp10+o3), lim(tmp10-o3)
		o[1], o[6] = lim(tmp11+o2), lim(tmp11-o2)
		o[2], o[5] = lim(tmp12+o1), lim(tmp12-o1)
		o[3], o[4] = lim(tmp13+o0), lim(tmp13-o0)
	}
}

func (d *jpegDec) output() (*volume.Volume, error) {
	for _, c := range d.comps {
		stride := c.bw * 8
		c.plane = make([]uint8, stride*c.bh*8)
		q := &d.q[c.tq]
		for by := 0; by < c.bh; by++ {
			for bx := 0; bx < c.bw; bx++ {
				idctIslow(c.coef[(by*c.bw+bx)*64:][:64], q, c.plane[by*8*stride+bx*8:], stride)
			}
		}
	}
	w, h := d.w, d.h
	if len(d.comps) == 1 {
		c := d.comps[0]
		v := &volume.Volume{Grid: volume.NewGrid(w, h), DType: volume.Uint8, Channels: 1, Data: make([]float64, w*h)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v.Data[y*w+x] = float64(c.plane[y*c.bw*8+x])
			}
		}
		return v, nil
	}
	yc, cb, cr := d.comps[0], d.comps[1], d.comps[2]
	if yc.h != d.hmax || yc.v != d.vmax || cb.h != 1 || cb.v != 1 || cr.h != 1 || cr.v != 1 {
		return nil, errJPEGUnsupported
	}
	hs, vs := d.hmax, d.vmax
	if hs == 1 && vs == 2 {
		return nil, errJPEGUnsupported // 4:4:0: libjpeg-turbo's h1v2 fancy upsampling is not reproduced
	}
	cw, ch := (w+hs-1)/hs, (h+vs-1)/vs
	ucb, ok1 := upsampleFancy(cb.plane, cb.bw*8, cw, ch, w, h, hs, vs)
	ucr, ok2 := upsampleFancy(cr.plane, cr.bw*8, cw, ch, w, h, hs, vs)
	if !ok1 || !ok2 {
		return nil, errJPEGUnsupported
	}
	v := &volume.Volume{Grid: volume.NewGrid(w, h), DType: volume.Uint8, Channels: 3, Data: make([]float64, w*h*3)}
	ys := yc.bw * 8
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			yy := int32(yc.plane[y*ys+x])
			cbv, crv := ucb[i], ucr[i]
			dd := v.Data[3*i:]
			dd[0] = clamp255(yy + jpegCrR[crv])
			dd[1] = clamp255(yy + ((jpegCbG[cbv] + jpegCrG[crv]) >> 16))
			dd[2] = clamp255(yy + jpegCbB[cbv])
		}
	}
	return v, nil
}
