// Package floor measures a grader's input-decoding floor: reading and
// decoding every file of a submission folder and of an answers folder with
// the fastest reader the project has for it, and nothing else (no metric).
// bench/graders.sh prints it beside the grader's own time on the same
// files (bench/gradefolder -floor): a grader within a small factor of its
// floor has little left to gain but from faster decoders.
//
// Readers, by content and name:
//   - CSV (.csv): challenge.ParseCSV, the graders' own parser;
//   - JSON (.json): one pass of the graders' JSON lexer over the whole
//     document (pipeline/jsonscan), which DENTEX's and PUMA's readers use;
//   - 8-bit grey, 16-bit grey, grey+alpha, RGB and RGBA PNGs:
//     png.ReadMode8FileInto into a recycled buffer (the file
//     read once, decoded whole, one byte a pixel kept), as the USenhance
//     grader reads them; other pictures (PNG, TIFF, JPEG, BMP, GIF, PNM, WebP, by
//     content): imageio.ReadPicture8File (8-bit TIFF pages as bytes);
//   - volumes (.nii, .nii.gz, .mha, .mhd, .nrrd): imageio.ReadBytes (8-bit
//     label maps as bytes, other sample types as float64).
//
// Other files are read whole (their bytes are what a grader would read).
package floor

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/jsonscan"
	"github.com/rexmle/rexmle/pipeline/workpool"
)

// Kind is the reader a file was decoded with.
type Kind string

// The readers.
const (
	CSV     Kind = "csv"
	JSON    Kind = "json"
	Gray8   Kind = "png-gray8"
	Luma8   Kind = "png-luma8"
	Picture Kind = "picture"
	Volume  Kind = "volume"
	Raw     Kind = "raw"
)

// Stats counts what one pass decoded.
type Stats struct {
	Files   map[Kind]int // files per reader
	Bytes   int64        // bytes on disk
	Samples int64        // decoded samples (pictures and volumes: pixels × channels)
}

// Files lists the regular files under the folders, sorted, each once
// (a folder given twice, or inside another, is walked once).
func Files(dirs ...string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.Type().IsRegular() && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("floor: list %s: %w", d, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Decode reads and decodes every file of paths once, on workers goroutines
// (0: GOMAXPROCS), as a grader's worker pool would. A file that does not
// decode is an error naming it: the floor of a grade that fails is not a
// floor.
func Decode(ctx context.Context, paths []string, workers int) (Stats, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	kinds := make([]Kind, len(paths))
	samples := make([]int64, len(paths))
	errs := make([]error, len(paths))
	var size atomic.Int64
	workpool.Each(ctx, len(paths), workers, func(i int) {
		k, n, b, err := decodeFile(paths[i])
		kinds[i], samples[i], errs[i] = k, n, err
		size.Add(b)
	})
	if err := ctx.Err(); err != nil {
		return Stats{}, err
	}
	st := Stats{Files: map[Kind]int{}, Bytes: size.Load()}
	for i := range paths {
		if errs[i] != nil {
			return Stats{}, errs[i]
		}
		st.Files[kinds[i]]++
		st.Samples += samples[i]
	}
	return st, nil
}

// bufs recycles 8-bit sample buffers, as the graders do.
var bufs = sync.Pool{New: func() any { return new([]byte) }}

// decodeFile decodes one file with the reader its name and content pick:
// the reader, the decoded samples and the file's size.
func decodeFile(path string) (Kind, int64, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, 0, fmt.Errorf("floor: %w", err)
	}
	size := st.Size()
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(name, ".csv"):
		f, err := challenge.OpenRegular(path)
		if err != nil {
			return CSV, 0, size, fmt.Errorf("floor: %w", err)
		}
		defer f.Close()
		if _, err := challenge.ParseCSV(f, name); err != nil {
			return CSV, 0, size, fmt.Errorf("floor: %s: %w", path, err)
		}
		return CSV, 0, size, nil
	case strings.HasSuffix(name, ".json"):
		b, err := os.ReadFile(path)
		if err != nil {
			return JSON, 0, size, fmt.Errorf("floor: %w", err)
		}
		l := jsonscan.Lexer{B: b}
		l.WS()
		if !l.Skip(0) {
			return JSON, 0, size, fmt.Errorf("floor: %s: not one JSON value the lexer reads", path)
		}
		return JSON, 0, size, nil
	}
	if _, err := imageio.FormatOf(path); err == nil && !isPictureName(name) {
		v, err := imageio.ReadBytes(path)
		if err != nil {
			return Volume, 0, size, fmt.Errorf("floor: %w", err)
		}
		if v.Bytes != nil {
			return Volume, int64(len(v.Bytes)), size, nil
		}
		return Volume, int64(len(v.Data)), size, nil
	}
	// A file named .png goes straight to the PNG reader (as a grader
	// reads it); another is sniffed first. What is no picture is read whole.
	isPNG := strings.HasSuffix(name, ".png")
	if !isPNG && !looksLikePicture(path) {
		return readRaw(path, size)
	}
	bp := bufs.Get().(*[]byte)
	defer bufs.Put(bp)
	// 8-bit grey, and 16-bit grey, grey+alpha, RGB and RGBA PNGs (the
	// whole stream inflated and unfiltered, each pixel reduced to one byte
	// as it goes), the file read once, as the USenhance grader reads them.
	if pix, _, _, gray, ok := png.ReadMode8FileInto(*bp, path, 0); ok {
		if cap(pix) > cap(*bp) {
			*bp = pix
		}
		if gray {
			return Gray8, int64(len(pix)), size, nil
		}
		return Luma8, int64(len(pix)), size, nil
	}
	p8, v, _, err := imageio.ReadPicture8File(path, *bp, imageio.Options{FirstPage: true, ExpandPalette: true})
	if err != nil && isPNG && !looksLikePicture(path) {
		return readRaw(path, size)
	}
	if err != nil {
		return Picture, 0, size, fmt.Errorf("floor: %w", err)
	}
	if p8 != nil {
		if cap(p8.Pix) > cap(*bp) {
			*bp = p8.Pix
		}
		return Picture, int64(len(p8.Pix)), size, nil
	}
	return Picture, int64(len(v.Data)), size, nil
}

// isPictureName reports whether the name's extension is a 2-D picture
// format (read by content, as the graders read pictures).
func isPictureName(name string) bool {
	for _, ext := range []string{".png", ".tif", ".tiff"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// looksLikePicture reports whether the file's first bytes are those of a
// picture format imageio reads.
func looksLikePicture(path string) bool {
	head := make([]byte, 16)
	if f, err := os.Open(path); err == nil {
		n, _ := f.Read(head)
		head = head[:n]
		f.Close()
	}
	return imageio.SniffPicture(head) != ""
}

// readRaw reads a file that is no picture whole.
func readRaw(path string, size int64) (Kind, int64, int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Raw, 0, size, fmt.Errorf("floor: %w", err)
	}
	return Raw, 0, int64(len(b)), nil
}
