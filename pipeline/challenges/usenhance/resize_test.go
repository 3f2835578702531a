package usenhance

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rexmle/rexmle/metrics/quality"
)

// resizeLinearGeneric is cv2.resize(…, INTER_LINEAR) of a float32 image as
// OpenCV's own code computes it, where no IPP takes the call (Debian's
// OpenCV 4.6; 4.10's resizeGeneric_ float path is the same code): per
// destination column fx = float32((dx+0.5)·scale − 0.5) with scale =
// 1/(w/W), sx = ⌊fx⌋, fx −= sx in float32, clamped at the borders (sx < 0
// → 0 with weight 1; sx ≥ W−1 → W−1 with weight 1); the weights are 1−fx
// and fx in float32. Rows take the same position and weights but no clamp
// of the weights: only the two rows read are clamped to the image. Each row
// is first resized horizontally (S[sx]·a0 + S[sx+1]·a1), then rows are
// blended (R0·b0 + R1·b1), every product and sum rounded to float32 (the
// baseline SSE2 build has no fused multiply-add there). OpenCV switches an
// exact 2× downscale to INTER_AREA's 2×2 mean, which this does not: the two
// agree on integer samples (every sum is exact). It is the test's model of
// the non-IPP builds, checked bit for bit against Debian's cv2 below.
func resizeLinearGeneric(src quality.Image, w, h int) quality.Image {
	type tap struct {
		i0, i1 int
		a0, a1 float32
	}
	taps := func(srcN, dstN int, vertical bool) []tap {
		scale := 1 / (float64(dstN) / float64(srcN))
		out := make([]tap, dstN)
		for d := range out {
			f := float32((float64(d)+0.5)*scale - 0.5)
			i := int(math.Floor(float64(f)))
			f -= float32(i)
			if vertical {
				out[d] = tap{min(max(i, 0), srcN-1), min(max(i+1, 0), srcN-1), 1 - f, f}
				continue
			}
			if i < 0 {
				i, f = 0, 0
			}
			if i >= srcN-1 {
				i, f = srcN-1, 0
			}
			out[d] = tap{i, min(i+1, srcN-1), 1 - f, f}
		}
		return out
	}
	xs, ys := taps(src.W, w, false), taps(src.H, h, true)
	rows := make(map[int][]float32)
	hrow := func(y int) []float32 {
		if r, ok := rows[y]; ok {
			return r
		}
		r := make([]float32, w)
		line := src.Pix[y*src.W : (y+1)*src.W]
		for x, t := range xs {
			if t.a1 == 0 {
				r[x] = float32(float32(line[t.i0]) * t.a0)
				continue
			}
			r[x] = float32(float32(float32(line[t.i0])*t.a0) + float32(float32(line[t.i1])*t.a1))
		}
		rows[y] = r
		return r
	}
	out := quality.Image{W: w, H: h, Pix: make([]float64, w*h)}
	for y, t := range ys {
		r0, r1 := hrow(t.i0), hrow(t.i1)
		for x := 0; x < w; x++ {
			out.Pix[y*w+x] = float64(float32(float32(r0[x]*t.a0) + float32(r1[x]*t.a1)))
		}
	}
	return out
}

// countDiffering is the number of pixels where a and b differ as float32.
func countDiffering(a, b quality.Image) int {
	n := 0
	for i := range a.Pix {
		if float32(a.Pix[i]) != float32(b.Pix[i]) {
			n++
		}
	}
	return n
}

// TestResizeLinearHand checks cases worked through by hand from the
// arithmetic in resizeLinear's comment.
func TestResizeLinearHand(t *testing.T) {
	// 2 → 5 along one axis: p = (d+0.5)·2/5 − 0.5 = −0.3, 0.1, 0.5, 0.9, 1.3.
	// d=0: taps (−1, 0) both clamp to 0 → 3 exactly. d=1: t = float32(0.1)
	// = 0.100000001490116…; 3 + 4·t = 3.400000005960464… (exact product,
	// one rounding) → the float32 nearest, 3.400000095367431640625
	// (float32(3.4)); OpenCV's own 3·float32(0.9) + 7·float32(0.1) gives
	// 3.3999998569488525 instead. d=2: 3 + 4·0.5 = 5. d=3: t = float32(0.9)
	// = 0.89999997615814208984375, 4·t = 3.599999904632568359375, + 3 =
	// 6.599999904632568359375 = float32(6.6) exactly. d=4: taps (1, 2) clamp
	// to 1 → 7.
	want := []float32{3, 3.4, 5, 6.6, 7}
	for _, c := range []struct {
		name       string
		src        quality.Image
		w, h       int
		horizontal bool
	}{
		{"column", quality.Image{W: 1, H: 2, Pix: []float64{3, 7}}, 1, 5, false},
		{"row", quality.Image{W: 2, H: 1, Pix: []float64{3, 7}}, 5, 1, true},
	} {
		got := resizeLinear(c.src, c.w, c.h)
		for i, w := range want {
			if float32(got.Pix[i]) != w {
				t.Errorf("%s: pixel %d = %v, want %v", c.name, i, float32(got.Pix[i]), w)
			}
		}
		if g := resizeLinearGeneric(c.src, c.w, c.h); float32(g.Pix[1]) != 3.3999998569488525 {
			t.Errorf("%s: OpenCV's own arithmetic gives %v at pixel 1, want 3.3999998569488525", c.name, float32(g.Pix[1]))
		}
	}
	// 2×2 → 3×3 of [[0, 10], [20, 30]]: p = −1/6, 0.5, 7/6 on both axes,
	// so the corners are the corner pixels, the edge midpoints the means of
	// their two pixels (5, 15, 25, 25 − 10 = 15) and the centre 15.
	got := resizeLinear(quality.Image{W: 2, H: 2, Pix: []float64{0, 10, 20, 30}}, 3, 3)
	for i, w := range []float64{0, 5, 10, 10, 15, 20, 20, 25, 30} {
		if got.Pix[i] != w {
			t.Errorf("2×2 → 3×3 pixel %d = %v, want %v", i, got.Pix[i], w)
		}
	}
}

// TestResizeLinearProperties: an unchanged size returns the image, a
// constant image stays constant, integer samples stay inside their range,
// and a byte image resizes as its float64 copy does.
func TestResizeLinearProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 60; n++ {
		w, h := 1+r.IntN(40), 1+r.IntN(40)
		W, H := 1+r.IntN(60), 1+r.IntN(60)
		src := quality.Image{W: w, H: h, Pix: make([]float64, w*h)}
		b := make([]uint8, w*h)
		lo, hi := 255.0, 0.0
		for i := range src.Pix {
			b[i] = uint8(r.IntN(256))
			src.Pix[i] = float64(b[i])
			lo, hi = min(lo, src.Pix[i]), max(hi, src.Pix[i])
		}
		same := resizeLinear(src, w, h)
		for i := range same.Pix {
			if same.Pix[i] != src.Pix[i] {
				t.Fatalf("%d×%d to its own size: pixel %d = %v, want %v", w, h, i, same.Pix[i], src.Pix[i])
			}
		}
		got := resizeLinear(src, W, H)
		fromBytes := resizeLinearPix(b, w, h, W, H)
		for i, v := range got.Pix {
			if v < lo || v > hi {
				t.Fatalf("%d×%d → %d×%d: pixel %d = %v outside [%v, %v]", w, h, W, H, i, v, lo, hi)
			}
			if fromBytes.Pix[i] != v {
				t.Fatalf("%d×%d → %d×%d: pixel %d from bytes %v, from float64 %v", w, h, W, H, i, fromBytes.Pix[i], v)
			}
		}
		c := quality.Image{W: w, H: h, Pix: make([]float64, w*h)}
		for i := range c.Pix {
			c.Pix[i] = 173.25
		}
		for i, v := range resizeLinear(c, W, H).Pix {
			if v != 173.25 {
				t.Fatalf("constant %d×%d → %d×%d: pixel %d = %v", w, h, W, H, i, v)
			}
		}
	}
}

type resizeCase struct {
	W                 int       `json:"w"`
	H                 int       `json:"h"`
	DstW              int       `json:"dst_w"`
	DstH              int       `json:"dst_h"`
	Src               []float64 `json:"src"`
	Want              []float64 `json:"want"`
	DifferFromGeneric int       `json:"differ_from_generic"`
	Pixels            []struct {
		Index int     `json:"index"`
		Value float64 `json:"value"`
	} `json:"pixels"`
}

func readResizeCases(t *testing.T, name string) []resizeCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []resizeCase }
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(doc.Cases) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	for _, c := range doc.Cases {
		if len(c.Src) != c.W*c.H || (c.Want != nil && len(c.Want) != c.DstW*c.DstH) {
			t.Fatalf("%s: %d×%d → %d×%d with %d source and %d result pixels", name, c.W, c.H, c.DstW, c.DstH, len(c.Src), len(c.Want))
		}
	}
	return doc.Cases
}

// TestResizeLinearTranscription compares resizeLinear with an independent
// float32 transcription of the same arithmetic (Python, numpy float32 and
// exact rationals for the fused multiply-add; outputs recorded in
// testdata/resize-transcription.json with the count of pixels where
// OpenCV's own arithmetic differs): bit for bit.
func TestResizeLinearTranscription(t *testing.T) {
	for _, c := range readResizeCases(t, "resize-transcription.json") {
		src := quality.Image{W: c.W, H: c.H, Pix: c.Src}
		got := resizeLinear(src, c.DstW, c.DstH)
		for i, w := range c.Want {
			if float32(got.Pix[i]) != float32(w) {
				t.Errorf("%d×%d → %d×%d pixel %d = %v, transcription %v", c.W, c.H, c.DstW, c.DstH, i, float32(got.Pix[i]), float32(w))
			}
		}
		if n := countDiffering(got, resizeLinearGeneric(src, c.DstW, c.DstH)); n != c.DifferFromGeneric {
			t.Errorf("%d×%d → %d×%d: %d pixels differ from OpenCV's own arithmetic, transcription %d", c.W, c.H, c.DstW, c.DstH, n, c.DifferFromGeneric)
		}
	}
}

// TestResizeLinearIPPObserved checks what cv2.resize of opencv-python 5.0.0
// (an IPP build, numpy 2.5, x86-64) returned for three of
// TestResizeLinearOpenCV's cases (numpy RandomState(2) images, kept in
// testdata/opencv-ipp-resize.json): the pixels recorded and the number of
// pixels where it differed from OpenCV's own arithmetic (Debian's 4.6,
// which resizeLinearGeneric matches bit for bit). The counts also pin the
// order of the passes: columns first (resizing the transposed image) gives
// other counts on two of the three cases.
func TestResizeLinearIPPObserved(t *testing.T) {
	transpose := func(im quality.Image) quality.Image {
		out := quality.Image{W: im.H, H: im.W, Pix: make([]float64, len(im.Pix))}
		for y := 0; y < im.H; y++ {
			for x := 0; x < im.W; x++ {
				out.Pix[x*im.H+y] = im.Pix[y*im.W+x]
			}
		}
		return out
	}
	otherOrder := 0
	for _, c := range readResizeCases(t, "opencv-ipp-resize.json") {
		src := quality.Image{W: c.W, H: c.H, Pix: c.Src}
		got := resizeLinear(src, c.DstW, c.DstH)
		generic := resizeLinearGeneric(src, c.DstW, c.DstH)
		if countDiffering(transpose(resizeLinear(transpose(src), c.DstH, c.DstW)), generic) != c.DifferFromGeneric {
			otherOrder++
		}
		for _, p := range c.Pixels {
			if float32(got.Pix[p.Index]) != float32(p.Value) {
				t.Errorf("%d×%d → %d×%d pixel %d = %v, opencv-python 5.0.0 %v", c.W, c.H, c.DstW, c.DstH, p.Index, float32(got.Pix[p.Index]), float32(p.Value))
			}
		}
		if n := countDiffering(got, generic); n != c.DifferFromGeneric {
			t.Errorf("%d×%d → %d×%d: %d pixels differ from OpenCV's own arithmetic, opencv-python 5.0.0 differed on %d", c.W, c.H, c.DstW, c.DstH, n, c.DifferFromGeneric)
		}
	}
	if otherOrder != 2 {
		t.Errorf("columns first misses the observed counts on %d cases, want 2", otherOrder)
	}
}

// TestResizeLinearOpenCV compares with cv2.resize(INTER_LINEAR) on float32
// images where python3 has OpenCV, up- and down-scaling, on hand-picked
// and 40 random sizes (the last three resize one axis only, so a failure
// there names the pass), bit for bit: resizeLinear where that cv2 hands the
// call to IPP (cv2.ipp.useIPP(), as the opencv-python wheels do on x86-64),
// resizeLinearGeneric where it does not (Debian's build). The other model's
// differing-pixel count is logged.
func TestResizeLinearOpenCV(t *testing.T) {
	py := findPython(t, "cv2, numpy")
	const script = `
import sys, json, numpy as np, cv2
rs = np.random.RandomState(2)
out = []
sizes = [(7, 9, 16, 20), (50, 40, 33, 27), (31, 64, 64, 31), (100, 90, 101, 89), (13, 13, 5, 40), (1, 5, 3, 7), (5, 1, 9, 2)]
sizes += [tuple(int(x) for x in rs.randint(1, 121, size=4)) for _ in range(40)]
sizes += [(64, 50, 32, 25), (40, 38, 80, 76), (33, 47, 71, 29), (3, 50, 3, 37), (50, 3, 37, 3), (4, 29, 4, 61)]
for (h, w, H, W) in sizes:
    a = rs.randint(0, 256, size=(h, w)).astype(np.float32)
    b = cv2.resize(a, (W, H), interpolation=cv2.INTER_LINEAR)
    out.append(dict(w=w, h=h, W=W, H=H, a=a.ravel().tolist(), b=b.ravel().tolist()))
ipp = hasattr(cv2, 'ipp') and bool(cv2.ipp.useIPP())
json.dump(dict(version=cv2.__version__, ipp=ipp, ippversion=cv2.ipp.getIppVersion() if ipp else '', cases=out), sys.stdout)
`
	raw, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatalf("opencv script: %v", err)
	}
	var doc struct {
		Version string
		IPP     bool
		Cases   []struct {
			W, H, BW, BH int
			A, B         []float64
		}
	}
	// The keys w/W and h/H differ only in case: decode them by hand.
	var rawDoc struct {
		Version    string
		IPP        bool
		IPPVersion string
		Cases      []map[string]json.RawMessage
	}
	if err := json.Unmarshal(raw, &rawDoc); err != nil {
		t.Fatal(err)
	}
	doc.Version, doc.IPP = rawDoc.Version, rawDoc.IPP
	for _, rc := range rawDoc.Cases {
		var c struct {
			W, H, BW, BH int
			A, B         []float64
		}
		for k, dst := range map[string]any{"w": &c.W, "h": &c.H, "W": &c.BW, "H": &c.BH, "a": &c.A, "b": &c.B} {
			if err := json.Unmarshal(rc[k], dst); err != nil {
				t.Fatalf("opencv script output %q: %v", k, err)
			}
		}
		doc.Cases = append(doc.Cases, c)
	}
	model, other := resizeLinearGeneric, resizeLinear
	modelName := "OpenCV's own arithmetic (resizeLinearGeneric)"
	if doc.IPP {
		model, other = resizeLinear, resizeLinearGeneric
		modelName = "IPP's arithmetic (resizeLinear)"
	}
	t.Logf("cv2 %s, IPP %v %s: checking %s", doc.Version, doc.IPP, rawDoc.IPPVersion, modelName)
	otherDiff, total := 0, 0
	for _, c := range doc.Cases {
		src := quality.Image{W: c.W, H: c.H, Pix: c.A}
		got := model(src, c.BW, c.BH)
		diff := 0
		for i, v := range got.Pix {
			if g, w := float32(v), float32(c.B[i]); g != w {
				if diff == 0 {
					t.Errorf("%d×%d → %d×%d pixel %d (row %d): %v, OpenCV %v", c.W, c.H, c.BW, c.BH, i, i/c.BW, g, w)
				}
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%d×%d → %d×%d: %d of %d pixels differ from OpenCV", c.W, c.H, c.BW, c.BH, diff, len(got.Pix))
		}
		otherDiff += countDiffering(other(src, c.BW, c.BH), got)
		total += len(got.Pix)
	}
	t.Logf("the other model differs from cv2 %s on %d of %d pixels", doc.Version, otherDiff, total)
}

// resizePairs is the number of pairs TestResizeArithmeticMetrics scores
// (REXMLE_RESIZE_PAIRS overrides it).
func resizePairs(t *testing.T) int {
	if s := os.Getenv("REXMLE_RESIZE_PAIRS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("REXMLE_RESIZE_PAIRS=%q: want a positive count", s)
		}
		return n
	}
	if testing.Short() {
		return 4
	}
	return 16
}

// TestResizeArithmeticMetrics measures how far the choice between IPP's
// and OpenCV's own resize arithmetic moves USenhance's scores on synthetic
// B-mode pairs of two kinds, alternately: a 512² truth with a prediction of
// another size, and a truth of another size with a 512² prediction (the
// prediction is a degraded copy of the truth's scene, sampled to its size
// and rounded to bytes), resized both ways and scored. Scale factors n/512
// give positions that float32 holds exactly, so the first kind differs by
// an ulp where it differs at all; other factors round OpenCV's float32
// positions (up to 0.006 grey levels on 98% of the pixels). 240 pairs
// moved LNCC, SSIM and PSNR by at most 1.3e-7, 3.1e-8 and 6.5e-7 dB in the
// first kind (no 5-decimal value changed) and 4.5e-7, 2.9e-6 and 9.0e-5 dB
// in the second (5-decimal PSNR changed on 101 of 120 pairs, SSIM on 6,
// LNCC on 1). It fails if a shift grows past 5e-6 (LNCC), 2e-5 (SSIM) or
// 5e-4 dB (PSNR), or if the second kind shows none (the two arithmetics
// would then be one); the largest shifts, the 5-decimal values that differ
// and the shift of the means are logged (REXMLE_RESIZE_PAIRS=N: N pairs).
func TestResizeArithmeticMetrics(t *testing.T) {
	sizes := [][2]int{{256, 256}, {384, 384}, {500, 500}, {511, 513}, {640, 480}, {300, 257}, {1024, 1024}, {720, 560}}
	truths := [][2]int{{600, 450}, {463, 601}, {1000, 700}, {333, 777}, {800, 600}, {575, 430}}
	r := rand.New(rand.NewPCG(11, 29))
	var maxD, sumA, sumB [2][3]float64
	var fiveDec [2][3]int
	var count [2]int
	toBytes := func(pix []float64, w, h int) quality.Image {
		im := quality.Image{W: w, H: h, Pix: make([]float64, w*h)}
		for i, v := range pix {
			im.Pix[i] = math.Round(math.Max(0, math.Min(255, v)))
		}
		return im
	}
	n := resizePairs(t)
	for p := 0; p < n; p++ {
		kind := p % 2
		tw, th, ew, eh := 512, 512, 512, 512
		if kind == 0 {
			ew, eh = sizes[p/2%len(sizes)][0], sizes[p/2%len(sizes)][1]
		} else {
			tw, th = truths[p/2%len(truths)][0], truths[p/2%len(truths)][1]
		}
		f := frame{tw, th, float64(tw) / synthW}
		truth := scene(r, p%len(organs), f)
		low := degrade(r, truth, f)
		tr := toBytes(truth, tw, th)
		sampled := make([]float64, ew*eh)
		for y := 0; y < eh; y++ {
			for x := 0; x < ew; x++ {
				sampled[y*ew+x] = low[(y*th/eh)*tw+x*tw/ew]
			}
		}
		e := toBytes(sampled, ew, eh)
		a := scoreImages(resizeLinear(e, tw, th), tr, true, "e.png", "enhanced")
		b := scoreImages(resizeLinearGeneric(e, tw, th), tr, true, "e.png", "enhanced")
		if a.err != nil || b.err != nil {
			t.Fatalf("pair %d: %v / %v", p, a.err, b.err)
		}
		count[kind]++
		for k, d := range [3][2]float64{{a.lncc, b.lncc}, {a.ssim, b.ssim}, {a.psnr, b.psnr}} {
			maxD[kind][k] = max(maxD[kind][k], math.Abs(d[0]-d[1]))
			sumA[kind][k] += d[0]
			sumB[kind][k] += d[1]
			if fmt.Sprintf("%.5f", d[0]) != fmt.Sprintf("%.5f", d[1]) {
				fiveDec[kind][k]++
			}
		}
	}
	for kind, name := range []string{"512² truth, other prediction sizes", "other truth sizes, 512² prediction"} {
		c := float64(count[kind])
		if c == 0 {
			continue
		}
		t.Logf("%s, %d pairs: largest |Δ| LNCC %.3g, SSIM %.3g, PSNR %.3g dB; 5-decimal values differing (LNCC, SSIM, PSNR): %v; Δ of the means %.3g, %.3g, %.3g dB",
			name, count[kind], maxD[kind][0], maxD[kind][1], maxD[kind][2], fiveDec[kind],
			(sumA[kind][0]-sumB[kind][0])/c, (sumA[kind][1]-sumB[kind][1])/c, (sumA[kind][2]-sumB[kind][2])/c)
		for k, metric := range []string{"LNCC", "SSIM", "PSNR"} {
			if limit := []float64{5e-6, 2e-5, 5e-4}[k]; maxD[kind][k] >= limit {
				t.Errorf("%s: %s moves by %.3g between the two resize arithmetics", name, metric, maxD[kind][k])
			}
		}
	}
	if count[1] > 0 && maxD[1][2] == 0 {
		t.Errorf("other truth sizes: PSNR identical under both resize arithmetics on %d pairs", count[1])
	}
}
