package fetch

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/rexmle/rexmle/pipeline/workpool"
)

// ErrUnsafeEntry marks an archive entry that would land outside the target
// folder (absolute path, "..", or a link pointing out).
var ErrUnsafeEntry = errors.New("unsafe archive entry")

// ErrExtractLimit marks an archive that unpacks to more than the allowed
// size or whose entry compresses suspiciously well (an archive bomb).
var ErrExtractLimit = errors.New("archive exceeds the extraction limit")

// ExtractError reports a failure while unpacking one archive entry.
type ExtractError struct {
	Archive string // archive file name
	Entry   string // entry name inside the archive ("" = the archive itself)
	Err     error
}

// Error names the archive and, if known, the entry.
func (e *ExtractError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("extract %s: %v", e.Archive, e.Err)
	}
	return fmt.Sprintf("extract %s: entry %q: %v", e.Archive, e.Entry, e.Err)
}

// Unwrap returns the cause (ErrUnsafeEntry, ErrExtractLimit, an I/O error, ...).
func (e *ExtractError) Unwrap() error { return e.Err }

// archiveSuffixes lists the recognised archive name endings, longest first.
var archiveSuffixes = []string{".tar.gz", ".tgz", ".tar", ".zip"}

// isArchive reports whether name ends in a recognised archive suffix.
func isArchive(name string) bool {
	l := strings.ToLower(name)
	for _, s := range archiveSuffixes {
		if strings.HasSuffix(l, s) {
			return true
		}
	}
	return false
}

// archiveStem strips the archive suffix from name ("Dongyang.zip" → "Dongyang").
func archiveStem(name string) string {
	l := strings.ToLower(name)
	for _, s := range archiveSuffixes {
		if strings.HasSuffix(l, s) && len(name) > len(s) {
			return name[:len(name)-len(s)]
		}
	}
	return name
}

// extractLimits bound one extraction.
type extractLimits struct {
	maxBytes int64   // total bytes written
	maxRatio float64 // per zip entry above 1 MiB: uncompressed/compressed
	// freeSpace, when set, is asked whether the sizes a zip declares fit.
	freeSpace func(dir string) (uint64, error)
}

// extractor unpacks one archive into root, confining every entry to it.
type extractor struct {
	ctx     context.Context
	archive string
	root    string // symlink-free absolute path of the target folder
	lim     extractLimits
	written atomic.Int64
	files   atomic.Int64
	protect map[string]bool // paths no entry may replace
}

// extractArchive unpacks archive (.zip, .tar, .tar.gz, .tgz) into dest and
// returns the number of files and bytes written. Entries with absolute
// paths or ".." components, and links pointing outside dest, are refused;
// writing stops when the total would exceed lim.maxBytes or a zip entry's
// expansion ratio exceeds lim.maxRatio.
func extractArchive(ctx context.Context, archive, dest string, lim extractLimits) (int, int64, error) {
	name := filepath.Base(archive)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return 0, 0, &ExtractError{Archive: name, Err: err}
	}
	root, err := filepath.EvalSymlinks(dest)
	if err != nil {
		return 0, 0, &ExtractError{Archive: name, Err: err}
	}
	if root, err = filepath.Abs(root); err != nil {
		return 0, 0, &ExtractError{Archive: name, Err: err}
	}
	x := &extractor{ctx: ctx, archive: name, root: root, lim: lim, protect: map[string]bool{}}
	// Entries must not overwrite the archive being read or the lock file.
	if abs, err := filepath.Abs(archive); err == nil {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			x.protect[real] = true
			x.protect[filepath.Join(filepath.Dir(real), LockFileName)] = true
			x.protect[real+".part"] = true
		}
	}
	switch archiveFormat(archive) {
	case "zip":
		err = x.zip(archive)
	case "tar":
		err = x.tarFile(archive, false)
	case "tar.gz":
		err = x.tarFile(archive, true)
	default:
		err = &ExtractError{Archive: name, Err: fmt.Errorf("unsupported archive type")}
	}
	return int(x.files.Load()), x.written.Load(), err
}

// archiveFormat tells "zip", "tar.gz" or "tar" from the file's first bytes
// (a Drive download saved as .zip may well be a tarball), falling back to
// the name's suffix; "" when neither says.
func archiveFormat(p string) string {
	head := make([]byte, 512)
	if fh, err := os.Open(p); err == nil {
		n, _ := io.ReadFull(fh, head)
		fh.Close()
		head = head[:n]
		switch {
		case len(head) >= 4 && string(head[:4]) == "PK\x03\x04", len(head) >= 4 && string(head[:4]) == "PK\x05\x06":
			return "zip"
		case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
			return "tar.gz"
		case len(head) >= 262 && string(head[257:262]) == "ustar":
			return "tar"
		}
	}
	l := strings.ToLower(p)
	switch {
	case strings.HasSuffix(l, ".zip"):
		return "zip"
	case strings.HasSuffix(l, ".tar"):
		return "tar"
	case strings.HasSuffix(l, ".tar.gz"), strings.HasSuffix(l, ".tgz"):
		return "tar.gz"
	}
	return ""
}

func (x *extractor) fail(entry string, err error) error {
	return &ExtractError{Archive: x.archive, Entry: entry, Err: err}
}

// target maps an entry name to a path inside root, or fails.
func (x *extractor) target(entry string) (string, error) {
	n := strings.ReplaceAll(entry, "\\", "/")
	if strings.ContainsRune(n, 0) {
		return "", fmt.Errorf("%w: NUL in name", ErrUnsafeEntry)
	}
	if strings.HasPrefix(n, "/") || filepath.IsAbs(n) || (len(n) >= 2 && n[1] == ':') {
		return "", fmt.Errorf("%w: absolute path", ErrUnsafeEntry)
	}
	c := path.Clean(n)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: path escapes the target folder", ErrUnsafeEntry)
	}
	if c == "." {
		return x.root, nil
	}
	p := filepath.Join(x.root, filepath.FromSlash(c))
	if x.protect[p] {
		return "", fmt.Errorf("%w: would overwrite the archive or the lock file", ErrUnsafeEntry)
	}
	return p, nil
}

// inside reports whether p (absolute, cleaned) is root or below it.
func (x *extractor) inside(p string) bool {
	rel, err := filepath.Rel(x.root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// mkdirInside creates dir and checks that, with symlinks resolved, it is
// still inside root (a link planted earlier must not lead writes outside).
func (x *extractor) mkdirInside(entry, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return x.fail(entry, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return x.fail(entry, err)
	}
	if !x.inside(real) {
		return x.fail(entry, fmt.Errorf("%w: folder leads outside the target folder through a link", ErrUnsafeEntry))
	}
	return nil
}

// writeFile writes one regular entry of at most budget bytes (ctx may be
// narrower than x.ctx). compressed is the entry's compressed size (0 =
// unknown, no ratio check); declared says the budget is the entry's own
// declared size rather than what is left of the archive's limit.
func (x *extractor) writeFile(ctx context.Context, entry, dst string, r io.Reader, mode fs.FileMode, compressed, budget int64, declared bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	allowed, ratioBound := budget, false
	if compressed > 0 && x.lim.maxRatio > 0 {
		byRatio := int64(float64(compressed) * x.lim.maxRatio)
		if byRatio < 1<<20 {
			byRatio = 1 << 20
		}
		if byRatio < allowed {
			allowed, ratioBound = byRatio, true
		}
	}
	if err := x.mkdirInside(entry, filepath.Dir(dst)); err != nil {
		return err
	}
	if st, err := os.Lstat(dst); err == nil && !st.Mode().IsRegular() {
		if st.IsDir() {
			return x.fail(entry, fmt.Errorf("a folder of that name exists"))
		}
		if err := os.Remove(dst); err != nil { // never write through a link
			return x.fail(entry, err)
		}
	}
	perm := mode.Perm()&0o755 | 0o600
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return x.fail(entry, err)
	}
	n, cerr := io.Copy(out, &ctxReader{ctx: ctx, r: io.LimitReader(r, allowed+1)})
	clerr := out.Close()
	if n > allowed {
		os.Remove(dst)
		switch {
		case ratioBound:
			return x.fail(entry, fmt.Errorf("%w: expands more than %.0f× its compressed size of %d bytes", ErrExtractLimit, x.lim.maxRatio, compressed))
		case declared:
			return x.fail(entry, fmt.Errorf("%w: holds more than the %d bytes it declares", ErrExtractLimit, budget))
		}
		return x.fail(entry, fmt.Errorf("%w: more than %d bytes in all", ErrExtractLimit, x.lim.maxBytes))
	}
	if err := errors.Join(cerr, clerr); err != nil {
		os.Remove(dst)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) {
			err = fmt.Errorf("archive truncated or corrupt: %w", err)
		}
		return x.fail(entry, err)
	}
	x.written.Add(n)
	x.files.Add(1)
	return nil
}

// checkSymlink refuses a link whose target leaves root.
func (x *extractor) checkSymlink(entry, dst, linkTarget string) error {
	lt := filepath.FromSlash(strings.ReplaceAll(linkTarget, "\\", "/"))
	if lt == "" || filepath.IsAbs(lt) || strings.HasPrefix(linkTarget, "/") {
		return x.fail(entry, fmt.Errorf("%w: symlink to absolute path %q", ErrUnsafeEntry, linkTarget))
	}
	if !x.inside(filepath.Join(filepath.Dir(dst), lt)) {
		return x.fail(entry, fmt.Errorf("%w: symlink points outside the target folder (%q)", ErrUnsafeEntry, linkTarget))
	}
	return nil
}

// symlink creates a link entry whose target must stay inside root.
func (x *extractor) symlink(entry, dst, linkTarget string) error {
	if err := x.checkSymlink(entry, dst, linkTarget); err != nil {
		return err
	}
	lt := filepath.FromSlash(strings.ReplaceAll(linkTarget, "\\", "/"))
	if err := x.mkdirInside(entry, filepath.Dir(dst)); err != nil {
		return err
	}
	if st, err := os.Lstat(dst); err == nil {
		if st.IsDir() {
			return x.fail(entry, fmt.Errorf("a folder of that name exists"))
		}
		os.Remove(dst)
	}
	if err := os.Symlink(lt, dst); err != nil {
		return x.fail(entry, err)
	}
	return nil
}

// zipJob is one checked zip entry.
type zipJob struct {
	zf   *zip.File
	dst  string
	link string // symlink target
}

// zip unpacks a zip archive. Every entry is checked (names, links, declared
// sizes against the limit and the free space) before anything is written;
// regular files are then inflated in parallel.
func (x *extractor) zip(archive string) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return x.fail("", fmt.Errorf("archive truncated or corrupt: %w", err))
	}
	defer zr.Close()

	var dirs, files, links []zipJob
	var total int64
	for _, zf := range zr.File {
		dst, err := x.target(zf.Name)
		if err != nil {
			return x.fail(zf.Name, err)
		}
		mode := zf.Mode()
		switch {
		case mode.IsDir() || strings.HasSuffix(zf.Name, "/"):
			dirs = append(dirs, zipJob{zf: zf, dst: dst})
		case mode&fs.ModeSymlink != 0:
			rc, err := zf.Open()
			if err != nil {
				return x.fail(zf.Name, err)
			}
			b, err := io.ReadAll(io.LimitReader(rc, 4096))
			rc.Close()
			if err != nil {
				return x.fail(zf.Name, err)
			}
			if err := x.checkSymlink(zf.Name, dst, string(b)); err != nil {
				return err
			}
			links = append(links, zipJob{zf: zf, dst: dst, link: string(b)})
		case mode.IsRegular():
			size := zf.UncompressedSize64
			if size > uint64(x.lim.maxBytes-total) {
				return x.fail(zf.Name, fmt.Errorf("%w: declares %d bytes, only %d of the %d-byte limit left", ErrExtractLimit, size, x.lim.maxBytes-total, x.lim.maxBytes))
			}
			total += int64(size)
			files = append(files, zipJob{zf: zf, dst: dst})
		default:
			return x.fail(zf.Name, fmt.Errorf("%w: unsupported entry type %v", ErrUnsafeEntry, mode.Type()))
		}
	}
	if x.lim.freeSpace != nil {
		if free, err := x.lim.freeSpace(x.root); err == nil && uint64(total) > free {
			return x.fail("", fmt.Errorf("%w: unpacking needs %s, %s free in %s", ErrNoSpace, FormatBytes(total), FormatBytes(int64(min(free, 1<<62))), x.root))
		}
	}

	for _, j := range dirs {
		if err := x.mkdirInside(j.zf.Name, j.dst); err != nil {
			return err
		}
	}
	if err := x.zipFiles(files); err != nil {
		return err
	}
	for _, j := range links {
		if err := x.symlink(j.zf.Name, j.dst, j.link); err != nil {
			return err
		}
	}
	return nil
}

// errSiblingFailed stops the other workers once one entry failed.
var errSiblingFailed = errors.New("another entry failed")

// zipFiles inflates regular entries on up to GOMAXPROCS workers and returns
// the error of the first failing entry in archive order.
func (x *extractor) zipFiles(files []zipJob) error {
	ctx, cancel := context.WithCancelCause(x.ctx)
	defer cancel(nil)
	errs := make([]error, len(files))
	workpool.Each(ctx, len(files), min(runtime.GOMAXPROCS(0), 8), func(i int) {
		j := files[i]
		rc, err := j.zf.Open()
		if err == nil {
			compressed := int64(0)
			if j.zf.Method != zip.Store {
				compressed = int64(min(j.zf.CompressedSize64, 1<<62))
			}
			err = x.writeFile(ctx, j.zf.Name, j.dst, rc, j.zf.Mode(), compressed, int64(j.zf.UncompressedSize64), true)
			rc.Close()
		} else {
			err = x.fail(j.zf.Name, err)
		}
		if err != nil {
			errs[i] = err
			cancel(errSiblingFailed)
		}
	})
	if err := x.ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return nil
}

// tarFile unpacks a tar archive, gunzipping first if gz.
func (x *extractor) tarFile(archive string, gz bool) error {
	fh, err := os.Open(archive)
	if err != nil {
		return x.fail("", err)
	}
	defer fh.Close()
	var r io.Reader = fh
	if gz {
		zr, err := gzip.NewReader(fh)
		if err != nil {
			return x.fail("", fmt.Errorf("archive truncated or corrupt: %w", err))
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return x.fail("", fmt.Errorf("archive truncated or corrupt: %w", err))
		}
		switch hdr.Typeflag {
		case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
			continue
		}
		dst, err := x.target(hdr.Name)
		if err != nil {
			return x.fail(hdr.Name, err)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := x.mkdirInside(hdr.Name, dst); err != nil {
				return err
			}
		case tar.TypeReg: // the reader reports the old TypeRegA as TypeReg
			remaining := x.lim.maxBytes - x.written.Load()
			if hdr.Size > remaining {
				return x.fail(hdr.Name, fmt.Errorf("%w: declares %d bytes, only %d of the %d-byte limit left", ErrExtractLimit, hdr.Size, remaining, x.lim.maxBytes))
			}
			if err := x.writeFile(x.ctx, hdr.Name, dst, tr, hdr.FileInfo().Mode(), 0, remaining, false); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := x.symlink(hdr.Name, dst, hdr.Linkname); err != nil {
				return err
			}
		case tar.TypeLink:
			src, err := x.target(hdr.Linkname)
			if err != nil {
				return x.fail(hdr.Name, fmt.Errorf("hard link target %q: %w", hdr.Linkname, err))
			}
			real, err := filepath.EvalSymlinks(src)
			if err != nil || !x.inside(real) {
				return x.fail(hdr.Name, fmt.Errorf("%w: hard link target %q is not a file inside the target folder", ErrUnsafeEntry, hdr.Linkname))
			}
			if st, err := os.Lstat(real); err != nil || !st.Mode().IsRegular() {
				return x.fail(hdr.Name, fmt.Errorf("%w: hard link target %q is not a regular file", ErrUnsafeEntry, hdr.Linkname))
			}
			if err := x.mkdirInside(hdr.Name, filepath.Dir(dst)); err != nil {
				return err
			}
			os.Remove(dst)
			if err := os.Link(real, dst); err != nil {
				return x.fail(hdr.Name, err)
			}
			x.files.Add(1)
		default:
			// Devices, FIFOs and the like have no place in a data set: skip.
		}
	}
}

// ctxReader stops a long copy when its context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read fails with the context's error once it is done.
func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
