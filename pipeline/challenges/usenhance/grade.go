package usenhance

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/metrics/quality"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// maxImageBytes bounds a decoded image (samples × channels × 8 bytes).
const maxImageBytes = 512 << 20

// loadGray reads an image as the reference does (Pillow's Image.open, which
// identifies the format by content, then mode "L"): PNG, TIFF (first page),
// BMP, JPEG or GIF whatever the file is called, with the samples
// numpy.array(Image.open(f)) has (imageio.ReadPictureFile: 16-bit colour
// already reduced to 8 bits, WhiteIsZero TIFFs inverted, TIFF layouts
// Pillow cannot open refused). 8-bit grey as is; grey+alpha → the grey
// channel; RGB/RGBA → (19595R + 38470G + 7471B + 32768) >> 16; 16- and
// 32-bit grey and float clipped to 0..255; palette images via their
// colours; mode "1" (1-bit PNG or TIFF) as 0/255.
//
// Where Pillow refuses a grey PNG, the reference falls back to
// cv2.imread(IMREAD_GRAYSCALE), and so does loadGray
// (png.ReadGrayLibpngFile: libpng drops an ancillary chunk with a
// bad CRC or bad contents where Pillow raises). Other pictures Pillow
// refuses stay refused (stated in the lncc card).
func loadGray(path string) (quality.Image, error) { return loadGrayMax(path, maxImageBytes) }

// loadGrayMax is loadGray with the decoded-size cap maxBytes.
func loadGrayMax(path string, maxBytes int64) (quality.Image, error) {
	opts := imageio.Options{MaxBytes: maxBytes, ExpandPalette: true, FirstPage: true}
	v, format, err := imageio.ReadPictureFile(path, opts)
	if err != nil && format == imageio.FormatPNG {
		if g, cvErr := png.ReadGrayLibpngFile(path, opts); cvErr == nil {
			return quality.Image{W: g.Shape[0], H: g.Shape[1], Pix: g.Data}, nil
		}
	}
	if err != nil {
		return quality.Image{}, err
	}
	scale := 1.0
	if (format == imageio.FormatPNG || format == imageio.FormatTIFF || format == imageio.FormatPNM) && imageio.OneBitPictureFile(path) {
		scale = 255 // Pillow mode "1" converts to L as 0/255
	}
	if v.Grid.Shape[2] != 1 {
		return quality.Image{}, fmt.Errorf("%d-D image, want a 2-D picture", v.Grid.Dims())
	}
	w, h, c := v.Grid.Shape[0], v.Grid.Shape[1], v.NumChannels()
	if c == 1 && v.DType == "uint8" && scale == 1 && len(v.Data) == w*h {
		// 8-bit grey (the usual case) is already mode "L": use the samples.
		return quality.Image{W: w, H: h, Pix: v.Data}, nil
	}
	im := quality.Image{W: w, H: h, Pix: make([]float64, w*h)}
	for i := 0; i < w*h; i++ {
		s := v.Data[i*c : i*c+c]
		switch c {
		case 1, 2:
			g := s[0]
			if g > 255 {
				g = 255
			}
			if g < 0 {
				g = 0
			}
			im.Pix[i] = math.Trunc(g) * scale
		default:
			r, gr, b := s[0], s[1], s[2]
			im.Pix[i] = float64((19595*int64(r) + 38470*int64(gr) + 7471*int64(b) + 32768) >> 16)
		}
	}
	return im, nil
}

// resolveEnhanced is the reference's lookup: submissionDir/rel, else (for a
// path with a separator and more than one part) the path without its first
// part. Both stay inside the submission folder.
func resolveEnhanced(submissionDir, rel, field string) (string, error) {
	if _, err := challenge.ResolveInside(submissionDir, rel, field); err != nil {
		return "", err
	}
	if _, err := challenge.StatInside(submissionDir, rel, field); err == nil {
		return rel, nil
	}
	if strings.ContainsAny(rel, `/\`) {
		// pathlib on POSIX: only "/" separates parts; empty and "." parts vanish.
		var parts []string
		for _, p := range strings.Split(rel, "/") {
			if p != "" && p != "." {
				parts = append(parts, p)
			}
		}
		if len(parts) > 1 {
			alt := strings.Join(parts[1:], "/")
			if _, err := challenge.StatInside(submissionDir, alt, field); err == nil {
				return alt, nil
			}
		}
	}
	return "", challenge.Invalidf(rel, field, "enhanced image not found in the submission folder")
}

type row struct {
	id, gt, enh string
}

type scores struct {
	lncc, ssim, psnr float64
	resized          bool
	err              error
}

// Grade matches submission rows to the answers by image_id and scores every
// pair; both modes score alike (official mode also refuses ids that are not test cases: quirk "id-rule").
// readRows reads the answers and the submission's CSV and pairs them as
// the reference's merge does, with every enhanced image's path resolved
// inside the submission (problems surface before any scoring); repeated
// lists the ids paired more than once.
func readRows(submissionDir, privateDir string, mode challenge.Mode) (rows []row, repeated []string, err error) {
	ans, err := challenge.ReadCSV(filepath.Join(privateDir, "test_labels.csv"))
	if err != nil {
		return nil, nil, fmt.Errorf("read answers: %w", err)
	}
	ansIDsRaw, err := ans.Column(colID)
	if err != nil {
		return nil, nil, err
	}
	gtPaths, err := ans.Column(colGT)
	if err != nil {
		return nil, nil, err
	}
	f, err := challenge.OpenInside(submissionDir, submissionFile, "")
	if err != nil {
		return nil, nil, err
	}
	sub, err := challenge.ParseCSV(f, submissionFile)
	f.Close()
	if err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, "", "cannot parse CSV: %v", err)
	}
	subIDsRaw, err := sub.Column(colID)
	if err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, colID, "missing required column %q", colID)
	}
	enh, err := sub.Column(colEnhanced)
	if err != nil {
		return nil, nil, challenge.Invalidf(submissionFile, colEnhanced, "missing required column %q", colEnhanced)
	}
	// A submission column named like the answers' path column is renamed
	// by the reference's merge (ground_truth_path_x, _y), and its lookup of
	// ground_truth_path then fails.
	for _, h := range sub.Header {
		if h == colGT {
			return nil, nil, challenge.Invalidf(submissionFile, h, "column %q clashes with the answers' column of that name in the reference's merge; remove it", h)
		}
	}
	ansIDs := challenge.PandasIDs(ansIDsRaw)
	subIDs := challenge.PandasIDs(subIDsRaw)
	if mode == challenge.Official {
		// The common id rule: every test case exactly once, nothing else.
		if err := challenge.CheckIDs(submissionFile, colID, subIDs, subIDsRaw, ansIDs, challenge.StrictIDs); err != nil {
			return nil, nil, err
		}
	}
	// pandas' inner merge of the test rows with the submission on the id:
	// each test row (in order) pairs with every submission row of its id
	// (in their order); the reference only asks that there be as many
	// pairs as test rows, so a repeated id can make up for a missing one.
	pairs, repeated, err := challenge.InnerMerge(submissionFile, colID, ansIDs, ansIDsRaw, subIDs)
	if err != nil {
		return nil, nil, err
	}
	rows = make([]row, len(pairs))
	for n, pr := range pairs {
		rows[n] = row{ansIDsRaw[pr.Test], gtPaths[pr.Test], enh[pr.Row]}
	}
	// Resolve every path first: problems surface before any scoring.
	for i := range rows {
		rel, err := resolveEnhanced(submissionDir, rows[i].enh, fmt.Sprintf("image_id %s, %s", rows[i].id, colEnhanced))
		if err != nil {
			return nil, nil, err
		}
		rows[i].enh = rel
	}
	return rows, repeated, nil
}

func (Challenge) Grade(ctx context.Context, submissionDir, privateDir string, mode challenge.Mode) (*challenge.Result, error) {
	rows, repeated, err := readRows(submissionDir, privateDir, mode)
	if err != nil {
		return nil, err
	}
	out := make([]scores, len(rows))
	if err := challenge.ForEach(ctx, len(rows), func(i int) error {
		out[i] = scorePair(submissionDir, privateDir, rows[i])
		return out[i].err
	}); err != nil {
		return nil, err
	}
	res := &challenge.Result{Mode: mode}
	l, s, p := make([]float64, len(rows)), make([]float64, len(rows)), make([]float64, len(rows))
	resized := 0
	for i, sc := range out {
		if sc.err != nil {
			return nil, sc.err
		}
		l[i], s[i], p[i] = sc.lncc, sc.ssim, sc.psnr
		if sc.resized {
			resized++
		}
		res.Cases = append(res.Cases, challenge.Case{ID: rows[i].id, Values: map[string]float64{"lncc": sc.lncc, "ssim": sc.ssim, "psnr": sc.psnr}})
	}
	if len(repeated) > 0 {
		ids := make([]string, len(res.Cases))
		for i, c := range res.Cases {
			ids[i] = c.ID
		}
		for i, id := range challenge.DistinctCaseIDs(ids) {
			res.Cases[i].ID = id
		}
		res.Notes = append(res.Notes, fmt.Sprintf("duplicate image_id paired with its test image once per row, as the reference's merge does (a missing image made up the count): %s", strings.Join(repeated, ", ")))
	}
	res.Set("lncc", num.Mean(l))
	res.Set("ssim", num.Mean(s))
	res.Set("psnr", num.Mean(p))
	if resized > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d enhanced images had the wrong size and were resized bilinearly to the truth's size before scoring (cv2.resize INTER_LINEAR on float32 as the reference's opencv-python wheels compute it on x86-64, through Intel IPP; OpenCV builds without IPP differ by up to 0.006 grey levels)", resized))
	}
	if math.IsInf(res.Values["psnr"], 1) {
		res.Notes = append(res.Notes, "at least one enhanced image equals its truth exactly, so its PSNR and the mean PSNR are +Inf (as in the reference)")
	}
	return res, nil
}

func scorePair(submissionDir, privateDir string, r row) scores {
	field := "image_id " + r.id
	ePath := filepath.Join(submissionDir, filepath.FromSlash(r.enh))
	tPath := filepath.Join(privateDir, filepath.FromSlash(r.gt))
	// 8-bit grey PNGs (the usual case) are read as bytes and scored with
	// the 8-bit metrics, which return the float path's values bit for bit.
	// The sample buffers are recycled: nothing keeps them past the scores.
	eb, tb := pixPool.Get().(*[]byte), pixPool.Get().(*[]byte)
	defer pixPool.Put(eb)
	defer pixPool.Put(tb)
	var e, t quality.Image
	var err error
	t8, tok := loadMode8(tPath, tb, maxImageBytes, maxImageBytes)
	if !tok {
		if t, err = loadGray(tPath); err != nil {
			return scores{err: fmt.Errorf("read ground truth %s: %w", r.gt, err)}
		}
	}
	// The prediction's size is checked from its header against the
	// answer's before it is decoded (predictionCap).
	// An 8-bit grey PNG stays bytes, one per pixel, and is resized from
	// them: the same memory bound lets it hold 8 times the samples
	// (Options.MaxBytes counts 8 bytes a sample).
	limit := predictionCap(t8, t, tok)
	e8, eok := loadMode8(ePath, eb, 8*limit, limit)
	if !eok {
		if e, err = loadGrayMax(ePath, limit); err != nil {
			return scores{err: challenge.Invalidf(r.enh, field, "cannot read the enhanced image: %v (a prediction may hold at most %d times the answer's pixels, in up to 4 channels; an 8-bit grey PNG 8 times that)", err, predictionScale)}
		}
	}
	// Any other picture is mode "L" once loadGray has read it (whole
	// numbers 0…255: 16-bit clipped, colour weighted and shifted, palette
	// expanded): as bytes it takes the 8-bit path too, with the float
	// path's values bit for bit. Only a resize leaves fractions.
	if !tok {
		t8, tok = asGray8(t, tb)
	}
	if !eok && e.W == t8.W && e.H == t8.H {
		e8, eok = asGray8(e, eb)
	}
	if eok && tok && e8.W == t8.W && e8.H == t8.H {
		return scoreGray8(e8, t8, r.enh, field)
	}
	if tok && t.Pix == nil {
		t = t8.Image()
	}
	if eok {
		if e8.W*e8.H > maxPillowPixels && (e8.W > maxCVSide || e8.H > maxCVSide) {
			return scores{err: challenge.Invalidf(r.enh, field, "cannot read the enhanced image: %d×%d is over Pillow's decompression-bomb limit and a side is over OpenCV's %d", e8.W, e8.H, maxCVSide)}
		}
		if e8.W != t.W || e8.H != t.H {
			// Resized from the bytes: a large picture never exists as float64.
			return scoreImages(resizeLinearPix(e8.Pix, e8.W, e8.H, t.W, t.H), t, true, r.enh, field)
		}
		e = e8.Image()
	}
	return scoreImages(e, t, false, r.enh, field)
}

// Past Pillow's decompression-bomb limit (2 × 89,478,485 pixels) the
// reference falls back to cv2.imread, which refuses a side over 2²⁰.
const (
	maxPillowPixels = 2 * 89478485
	maxCVSide       = 1 << 20
)

// predictionScale is how many times the answer's pixel count a
// prediction may have (the reference resizes a prediction of another size
// to the answer's; a few times larger is a real submission, a 6000×6000
// image for a 500×500 answer is a decompression bomb).
const predictionScale = 4

// predictionCap is the decoded-size cap (imageio.Options.MaxBytes: samples
// × channels × 8 bytes) of a prediction for the answer read as t8 (ok) or
// t: predictionScale times its pixels in up to 4 channels, at least 1 MiB,
// at most maxImageBytes. The decoders check it from the header, before
// they allocate.
func predictionCap(t8 quality.Gray8, t quality.Image, ok bool) int64 {
	w, h := t.W, t.H
	if ok {
		w, h = t8.W, t8.H
	}
	return min(max(int64(w)*int64(h)*predictionScale*4*8, 1<<20), maxImageBytes)
}

// asGray8 is im as bytes, in *buf when it is large enough (*buf is then
// the larger buffer), when every sample is a whole number in 0…255 (ok
// false otherwise, or for an empty image).
func asGray8(im quality.Image, buf *[]byte) (quality.Gray8, bool) {
	if im.W <= 0 || im.H <= 0 || len(im.Pix) != im.W*im.H {
		return quality.Gray8{}, false
	}
	pix := *buf
	if cap(pix) < len(im.Pix) {
		pix = make([]byte, len(im.Pix))
	}
	pix = pix[:len(im.Pix)]
	for i, v := range im.Pix {
		if !(v >= 0 && v <= 255) || v != math.Trunc(v) {
			return quality.Gray8{}, false
		}
		pix[i] = uint8(v)
	}
	if cap(pix) > cap(*buf) {
		*buf = pix
	}
	return quality.Gray8{W: im.W, H: im.H, Pix: pix}, true
}

// loadMode8 reads a PNG that the 8-bit path takes as mode "L" bytes, into
// *buf when it is large enough (*buf is then the larger buffer the samples
// went to), with the file read once: an 8-bit grey PNG
// (png.ReadGray8FileInto's samples) within the decoded-size cap
// gray8MaxBytes, and a 16-bit grey, grey+alpha, RGB or RGBA PNG
// (png.ReadLuma8FileInto: the samples loadGray computes,
// without a float64 copy) within maxBytes, loadGrayMax's cap counted as
// it counts it. ok is false for any other picture (loadGray reads those).
func loadMode8(path string, buf *[]byte, gray8MaxBytes, maxBytes int64) (quality.Gray8, bool) {
	pix, w, h, _, ok := png.ReadMode8FileInto(*buf, path, gray8MaxBytes, png.Options{MaxBytes: maxBytes})
	if ok && cap(pix) > cap(*buf) {
		*buf = pix
	}
	return quality.Gray8{W: w, H: h, Pix: pix}, ok
}

// pixPool recycles loadMode8's sample buffers: they are nearly all a grade
// allocates, and the garbage collections they caused (one every few pairs)
// each stopped both workers until the running kernels returned.
var pixPool = sync.Pool{New: func() any { return new([]byte) }}

// scoreGray8 scores a pair of same-sized 8-bit images (enh names the
// enhanced image in errors, field the row).
func scoreGray8(e, t quality.Gray8, enh, field string) scores {
	var sc scores
	var err error
	rng := quality.JointRange8(e, t)
	if sc.lncc, sc.ssim, err = quality.LNCCSSIM8(e, t, lnccWindow, quality.SSIMOptions{DataRange: rng, Float32: true}); err != nil {
		return scores{err: challenge.Invalidf(enh, field, "%v", err)}
	}
	if bytes.Equal(e.Pix, t.Pix) {
		sc.psnr = math.Inf(1)
	} else if sc.psnr, err = quality.PSNR8(e, t, rng); err != nil {
		return scores{err: challenge.Invalidf(enh, field, "PSNR: %v", err)}
	}
	return sc
}

// scoreImages scores a pair of images of any depth, resizing e to t's size
// first when they differ (resized: e already was).
func scoreImages(e, t quality.Image, resized bool, enh, field string) scores {
	sc := scores{resized: resized}
	var err error
	if e.W != t.W || e.H != t.H {
		e = resizeLinear(e, t.W, t.H)
		sc.resized = true
	}
	if sc.lncc, err = quality.LNCC(e, t, lnccWindow); err != nil {
		return scores{err: challenge.Invalidf(enh, field, "LNCC: %v", err)}
	}
	rng := quality.JointRange(e, t, true)
	if sc.ssim, err = quality.SSIM(e, t, quality.SSIMOptions{DataRange: rng, Float32: true}); err != nil {
		return scores{err: challenge.Invalidf(enh, field, "SSIM: %v", err)}
	}
	identical := true
	for i := range e.Pix {
		if float32(e.Pix[i]) != float32(t.Pix[i]) {
			identical = false
			break
		}
	}
	if identical {
		sc.psnr = math.Inf(1)
	} else if sc.psnr, err = quality.PSNR(e, t, rng, true); err != nil {
		return scores{err: challenge.Invalidf(enh, field, "PSNR: %v", err)}
	}
	return sc
}
