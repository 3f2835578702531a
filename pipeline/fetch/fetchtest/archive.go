package fetchtest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"hash/crc32"
	"io/fs"
	"time"
)

// Entry is one member of a generated archive.
type Entry struct {
	Name string
	Data []byte
	// Symlink, when set, makes the entry a symbolic link to this target.
	Symlink string
	// Hardlink, when set (tar only), makes the entry a hard link to this archive path.
	Hardlink string
	// Dir makes the entry a folder.
	Dir bool
	// LieSize, when > 0 (zip only), writes this as the entry's uncompressed
	// size in the headers while storing all of Data (a header-lying bomb).
	LieSize uint64
}

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Zip builds a deflate-compressed zip archive of entries. Names are written
// verbatim, so hostile names ("../x", "/abs") are possible.
func Zip(entries ...Entry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.LieSize > 0 {
			writeLyingZipEntry(zw, e)
			continue
		}
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: epoch}
		switch {
		case e.Dir:
			h.SetMode(fs.ModeDir | 0o755)
			h.Method = zip.Store
		case e.Symlink != "":
			h.SetMode(fs.ModeSymlink | 0o777)
		default:
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(err) // generated test input; cannot fail for these headers
		}
		if e.Symlink != "" {
			w.Write([]byte(e.Symlink))
		} else {
			w.Write(e.Data)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// TarGz builds a gzip-compressed tar archive of entries.
func TarGz(entries ...Entry) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, ModTime: epoch, Mode: 0o644, Format: tar.FormatPAX}
		switch {
		case e.Dir:
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case e.Symlink != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.Symlink
		case e.Hardlink != "":
			h.Typeflag, h.Linkname = tar.TypeLink, e.Hardlink
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(e.Data)
		}
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	if err := gz.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// writeLyingZipEntry stores e.Data deflated under a header that claims
// e.LieSize uncompressed bytes.
func writeLyingZipEntry(zw *zip.Writer, e Entry) {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(e.Data)
	fw.Close()
	h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: epoch,
		CRC32: crc32.ChecksumIEEE(e.Data), CompressedSize64: uint64(comp.Len()), UncompressedSize64: e.LieSize}
	h.SetMode(0o644)
	w, err := zw.CreateRaw(h)
	if err != nil {
		panic(err)
	}
	w.Write(comp.Bytes())
}
