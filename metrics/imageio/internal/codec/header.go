package codec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxHeaderBytes caps the text header of MetaImage and NRRD files.
const MaxHeaderBytes = 1 << 20

// HeaderReader reads text header lines with a total size cap.
type HeaderReader struct {
	R    *bufio.Reader
	read int
}

// Line returns the next line without its line ending ("\n" or "\r\n").
// It fails at EOF before any byte, or when the header grows past the cap.
func (h *HeaderReader) Line() (string, error) {
	var sb strings.Builder
	for {
		frag, err := h.R.ReadSlice('\n')
		h.read += len(frag)
		if h.read > MaxHeaderBytes {
			return "", fmt.Errorf("header longer than %d bytes (no end found)", MaxHeaderBytes)
		}
		sb.Write(frag)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if sb.Len() == 0 {
				return "", io.EOF
			}
			break
		}
		return "", err
	}
	s := strings.TrimSuffix(sb.String(), "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

// ParseFloats parses whitespace-separated numbers, also accepting "nan"
// and "inf" in any case.
func ParseFloats(field, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", field, f)
		}
		out = append(out, x)
	}
	return out, nil
}

// ParseInts parses whitespace-separated integers.
func ParseInts(field, s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Fields(s) {
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an integer", field, f)
		}
		out = append(out, x)
	}
	return out, nil
}

// SpacingOrOne returns |x| when it is a finite positive number, else 1.
func SpacingOrOne(x float64) float64 {
	x = math.Abs(x)
	if x > 0 && !math.IsInf(x, 0) {
		return x
	}
	return 1
}

// confinedPath resolves the data file name found in a header against the
// header's folder and checks that it stays inside that folder: an absolute
// name, a ".." component, or a symbolic link leading outside is an error.
func confinedPath(headerPath, name string) (string, error) {
	if name == "" {
		return "", errors.New("empty data file name")
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("data file %q is an absolute path; only names inside the header's folder are allowed", name)
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("data file %q leaves the header's folder", name)
		}
	}
	dir := filepath.Dir(headerPath)
	p := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(name, `\`, "/")))
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	realP, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("data file %q: %w", name, err)
	}
	rel, err := filepath.Rel(realDir, realP)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("data file %q resolves outside the header's folder", name)
	}
	return p, nil
}

// OpenConfined opens the confined data file.
func OpenConfined(headerPath, name string) (*os.File, error) {
	p, err := confinedPath(headerPath, name)
	if err != nil {
		return nil, err
	}
	return OpenRegular(p)
}
