package imageio

import (
	"bufio"
	"fmt"
	"io"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

// ReadPicture8File reads the picture at path as ReadPictureFile does, the
// same files accepted and the same samples and errors, but hands back a
// TIFF whose (first) page holds 8-bit unsigned samples as bytes instead of
// float64: exactly one of p8 and v is non-nil. Every other picture (other
// formats, other sample types, a paletted page with Options.ExpandPalette,
// several pages without Options.FirstPage) comes back as the volume
// ReadPictureFile gives. p8.Pix reuses buf when it is large enough (its
// contents are overwritten), so that a caller can recycle buffers.
func ReadPicture8File(path string, buf []byte, opts ...Options) (p8 *Picture8, v *volume.Volume, format Format, err error) {
	f, err := codec.OpenRegular(path)
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(8)
	if SniffPicture(head) != FormatTIFF {
		v, format, err := ReadPicture(br, opts...)
		if err != nil {
			return nil, nil, format, fmt.Errorf("%s: %w", path, err)
		}
		return nil, v, format, nil
	}
	o := codec.PickOptions(opts)
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	fileBuf, _ := codec.FileBufs.Get().(*[]byte)
	if fileBuf == nil {
		fileBuf = new([]byte)
	}
	defer codec.FileBufs.Put(fileBuf)
	if want := int(min(max(size, 0), o.MaxBytes) + 1); cap(*fileBuf) < want {
		*fileBuf = make([]byte, 0, want)
	}
	b, err := codec.ReadAllInto((*fileBuf)[:0], io.LimitReader(br, o.MaxBytes+1))
	*fileBuf = b
	if err == nil && int64(len(b)) > o.MaxBytes {
		err = fmt.Errorf("tiff: file larger than the %d-byte limit (Options.MaxBytes)", o.MaxBytes)
	} else if err != nil {
		err = fmt.Errorf("tiff: %w", err)
	}
	if err != nil {
		return nil, nil, FormatTIFF, fmt.Errorf("%s: %w", path, err)
	}
	p8, v, err = tiff.DecodePillow8(b, o, buf)
	if err != nil {
		return nil, nil, FormatTIFF, fmt.Errorf("%s: %w", path, err)
	}
	return p8, v, FormatTIFF, nil
}
