package imageio

import (
	"io"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/pnm"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
)

// OneBitPictureFile reports whether Pillow opens the picture at path in
// mode "1" — a 1-bit grey PNG, a PBM (P4), or a TIFF whose first page is
// 1-bit BlackIsZero or WhiteIsZero — whose conversion to mode "L" gives 0
// and 255 where ReadPicture gives 0 and 1.
func OneBitPictureFile(path string) bool {
	f, err := codec.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 26)
	n, _ := io.ReadFull(f, head)
	if n >= 2 && SniffPicture(head[:n]) == FormatPNM {
		return string(head[:2]) == "P4" && (n == 2 || pnm.IsSpace(head[2]))
	}
	if n < len(head) {
		return false
	}
	switch SniffPicture(head) {
	case FormatPNG:
		return string(head[12:16]) == "IHDR" && head[24] == 1 && head[25] == 0
	case FormatTIFF:
	default:
		return false
	}
	b, err := io.ReadAll(io.LimitReader(io.MultiReader(strings.NewReader(string(head)), f), 64<<20))
	if err != nil {
		return false
	}
	mode, err := tiff.PillowMode(b)
	return err == nil && mode == "1"
}
