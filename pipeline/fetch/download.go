package fetch

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// digest is the size and checksums of a whole file.
type digest struct {
	size   int64
	md5    string
	sha256 string
}

// ChecksumError reports a file whose size or checksum differs from what its
// source promised.
type ChecksumError struct {
	File       string
	What       string // "size", "md5" or "sha256"
	Want, Got  string
	PartRemove bool // the partial download was deleted
	// Hint, when set, tells the user what the mismatch means and what to do.
	Hint string
}

// Error names the file, the property that differs and both values.
func (e *ChecksumError) Error() string {
	s := fmt.Sprintf("%s: %s mismatch: want %s, got %s", e.File, e.What, e.Want, e.Got)
	if e.PartRemove {
		s += " (partial download deleted)"
	}
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	return s
}

// hashers computes MD5 and SHA-256 of one stream.
type hashers struct {
	md5, sha hash.Hash
	n        int64
}

func newHashers() *hashers { return &hashers{md5: md5.New(), sha: sha256.New()} }

// Write feeds p to both hashes at once, one of them on another goroutine
// (SHA-256 and MD5 each run at a few hundred MB/s; in parallel the pair
// costs the slower one, not the sum).
func (h *hashers) Write(p []byte) (int, error) {
	if len(p) < 64<<10 {
		h.md5.Write(p)
		h.sha.Write(p)
	} else {
		done := make(chan struct{})
		go func() {
			h.sha.Write(p)
			close(done)
		}()
		h.md5.Write(p)
		<-done
	}
	h.n += int64(len(p))
	return len(p), nil
}

func (h *hashers) digest() digest {
	return digest{size: h.n, md5: hex.EncodeToString(h.md5.Sum(nil)), sha256: hex.EncodeToString(h.sha.Sum(nil))}
}

// asyncHasher hashes copies of the written chunks on its own goroutine, so
// that receiving and writing the next chunk overlaps with hashing.
type asyncHasher struct {
	h    *hashers
	in   chan []byte
	free chan []byte
	done chan struct{}
}

// newAsyncHasher starts hashing into h with depth buffers of size bytes.
func newAsyncHasher(h *hashers, size, depth int) *asyncHasher {
	a := &asyncHasher{h: h, in: make(chan []byte, depth), free: make(chan []byte, depth), done: make(chan struct{})}
	for i := 0; i < depth; i++ {
		a.free <- make([]byte, size)
	}
	go func() {
		defer close(a.done)
		for b := range a.in {
			a.h.Write(b)
			a.free <- b[:cap(b)]
		}
	}()
	return a
}

// Write queues a copy of p (len(p) must not exceed the buffer size).
func (a *asyncHasher) Write(p []byte) {
	b := <-a.free
	b = b[:len(p)]
	copy(b, p)
	a.in <- b
}

// finish waits for the queued chunks and returns the hashers.
func (a *asyncHasher) finish() *hashers {
	close(a.in)
	<-a.done
	return a.h
}

// hashPrefix hashes the first n bytes of path (all of it when n < 0).
func hashPrefix(ctx context.Context, path string, n int64) (*hashers, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", path, err)
	}
	defer fh.Close()
	var r io.Reader = fh
	if n >= 0 {
		r = io.LimitReader(fh, n)
	}
	const bufSize = 1 << 20
	a := newAsyncHasher(newHashers(), bufSize, 3)
	buf := make([]byte, bufSize)
	for {
		if err := ctx.Err(); err != nil {
			a.finish()
			return nil, err
		}
		k, rerr := io.ReadFull(r, buf)
		if k > 0 {
			a.Write(buf[:k])
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			a.finish()
			return nil, fmt.Errorf("hash %s: %w", path, rerr)
		}
	}
	h := a.finish()
	if n >= 0 && h.n != n {
		return nil, fmt.Errorf("hash %s: file shorter than %d bytes", path, n)
	}
	return h, nil
}

// hashFile returns the digest of a whole file.
func hashFile(ctx context.Context, path string) (digest, error) {
	h, err := hashPrefix(ctx, path, -1)
	if err != nil {
		return digest{}, err
	}
	return h.digest(), nil
}

// checkDigest compares d with the expectations of pf.
func checkDigest(pf *PlannedFile, d digest) *ChecksumError {
	id := pf.Challenge + "/" + pf.Name
	switch {
	case pf.Size > 0 && d.size != pf.Size:
		return &ChecksumError{File: id, What: "size", Want: strconv.FormatInt(pf.Size, 10), Got: strconv.FormatInt(d.size, 10)}
	case pf.MD5 != "" && !strings.EqualFold(d.md5, pf.MD5):
		return &ChecksumError{File: id, What: "md5", Want: pf.MD5, Got: d.md5}
	case pf.SHA256 != "" && !strings.EqualFold(d.sha256, pf.SHA256):
		return &ChecksumError{File: id, What: "sha256", Want: pf.SHA256, Got: d.sha256}
	}
	return nil
}

// downloadPart makes pf.Dest+".part" hold the complete file from rawURL,
// resuming what is there, retrying transient failures, and returns the
// digest of the whole file and the bytes transferred.
func (f *fetcher) downloadPart(ctx context.Context, pf *PlannedFile, rawURL string) (digest, int64, error) {
	part := pf.Dest + ".part"
	var d digest
	var total, best int64
	tries := 0
	if st, err := os.Stat(part); err == nil {
		best = st.Size()
	}
	err := f.withRetry(ctx, "download "+pf.Challenge+"/"+pf.Name, func() (bool, error) {
		tries++
		n, dg, err := f.attempt(ctx, pf, rawURL, part)
		total += n
		if err == nil {
			d = dg
			return false, nil
		}
		// Progress means the partial file grew past its best size so far: a
		// server that drops every response at the same place (and cannot
		// resume) must not keep the retries going for ever.
		progress := false
		if st, serr := os.Stat(part); serr == nil && st.Size() > best {
			best, progress = st.Size(), true
		}
		if tries >= 10*f.opts.Retry.MaxAttempts {
			return false, permanent(fmt.Errorf("giving up after %d attempts: %w", tries, err))
		}
		return progress, err
	})
	return d, total, err
}

// parseContentRange reads "bytes START-END/TOTAL" (TOTAL may be "*", → -1).
func parseContentRange(v string) (start, end, total int64, ok bool) {
	v = strings.TrimSpace(v)
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	var err error
	if start, err = strconv.ParseInt(a, 10, 64); err != nil {
		return 0, 0, 0, false
	}
	if end, err = strconv.ParseInt(b, 10, 64); err != nil || end < start {
		return 0, 0, 0, false
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return 0, 0, 0, false
		}
	}
	return start, end, total, true
}

// attempt makes one request for the rest of part and appends it. It returns
// the bytes received in this attempt.
func (f *fetcher) attempt(ctx context.Context, pf *PlannedFile, rawURL, part string) (int64, digest, error) {
	offset, h, complete, err := f.resumePoint(ctx, pf, part)
	if err != nil {
		return 0, digest{}, err
	}
	if complete {
		return 0, h.digest(), nil // complete already; only verification was missing
	}

	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := f.newRequest(rctx, rawURL)
	if err != nil {
		return 0, digest{}, err
	}
	req.Header.Set("Accept-Encoding", "identity") // byte ranges and checksums refer to the stored bytes
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	resp, err := f.opts.HTTPClient.Do(req)
	if err != nil {
		return 0, digest{}, err
	}
	defer resp.Body.Close()

	if offset, h, complete, err = f.checkResponse(resp, pf, part, offset, h); err != nil {
		return 0, digest{}, err
	}
	if complete {
		return 0, h.digest(), nil
	}
	if h == nil {
		h = newHashers()
	}
	if pf.Kind == KindGDrive && strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/html") {
		return 0, digest{}, permanent(fmt.Errorf("file %s: Google Drive sent a web page instead of the file (quota exceeded or access denied); "+
			"download it by hand from https://drive.google.com/file/d/%s/view and save it as %s", pf.Name, gdriveID(pf.URL), pf.Dest))
	}
	return f.receive(rctx, cancel, resp, pf, part, offset, h)
}

// resumePoint is where a download continues: the size of the partial file
// (restarted when it is larger than the file) and the hashes of what it
// holds; complete when it holds the whole file already.
func (f *fetcher) resumePoint(ctx context.Context, pf *PlannedFile, part string) (offset int64, h *hashers, complete bool, err error) {
	if st, err := os.Stat(part); err == nil {
		offset = st.Size()
	}
	if pf.Size > 0 && offset > pf.Size {
		f.log.Warn("partial download larger than the file; restarting", "file", pf.Challenge+"/"+pf.Name)
		if err := os.Truncate(part, 0); err != nil {
			return 0, nil, false, permanent(fmt.Errorf("truncate %s: %w", part, err))
		}
		offset = 0
	}
	if offset > 0 {
		if offset > 1<<30 {
			f.log.Info("re-reading the partial download to continue its checksums", "file", pf.Challenge+"/"+pf.Name, "bytes", FormatBytes(offset))
		}
		if h, err = hashPrefix(ctx, part, offset); err != nil {
			return 0, nil, false, err
		}
		if pf.Size > 0 && offset == pf.Size {
			return offset, h, true, nil
		}
	}
	return offset, h, false, nil
}

// checkResponse reads the server's answer to a request from offset: a
// whole file restarts from zero (offset 0, no hashes), a partial one must
// start at offset, a refused range is complete when the part holds the
// whole file; any other status is an error, permanent unless retryable.
func (f *fetcher) checkResponse(resp *http.Response, pf *PlannedFile, part string, offset int64, h *hashers) (int64, *hashers, bool, error) {
	switch resp.StatusCode {
	case http.StatusOK:
		if offset > 0 {
			f.log.Info("server does not support resuming; restarting from zero", "file", pf.Challenge+"/"+pf.Name, "discarded", offset)
		}
		return 0, nil, false, nil
	case http.StatusPartialContent:
		start, _, tot, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset {
			os.Truncate(part, 0)
			return 0, nil, false, fmt.Errorf("server answered Content-Range %q to bytes=%d-; restarting from zero", resp.Header.Get("Content-Range"), offset)
		}
		if pf.Size > 0 && tot >= 0 && tot != pf.Size {
			return 0, nil, false, permanent(fmt.Errorf("server reports %d bytes, the record says %d", tot, pf.Size))
		}
		return offset, h, false, nil
	case http.StatusRequestedRangeNotSatisfiable:
		// "bytes */N" with N == offset: the part is already complete.
		if v, ok := strings.CutPrefix(resp.Header.Get("Content-Range"), "bytes */"); ok && offset > 0 {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n == offset {
				return offset, h, true, nil
			}
		}
		os.Truncate(part, 0)
		return 0, nil, false, fmt.Errorf("server refused range bytes=%d-; restarting from zero", offset)
	default:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		se := statusError(resp, f.opts.Now())
		if !retryable(se) {
			return 0, nil, false, permanent(se)
		}
		return 0, nil, false, se
	}
}

// receive appends the response body to the part file from offset, hashing
// it on the way, and returns the bytes written and the digest of the whole
// part. No data for StallTimeout cancels rctx (through cancel) and fails
// the attempt.
func (f *fetcher) receive(rctx context.Context, cancel context.CancelCauseFunc, resp *http.Response, pf *PlannedFile, part string, offset int64, h *hashers) (int64, digest, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if offset == 0 {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	out, err := os.OpenFile(part, flag, 0o644)
	if err != nil {
		return 0, digest{}, permanent(fmt.Errorf("open %s: %w", part, err))
	}

	expected := pf.Size
	if resp.ContentLength >= 0 {
		expected = offset + resp.ContentLength
	}
	id := pf.Challenge + "/" + pf.Name
	f.prog.start(id, expected, offset)

	stall := time.AfterFunc(f.opts.StallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()
	const bufSize = 256 << 10
	ah := newAsyncHasher(h, bufSize, 4)
	written, rerr, werr := f.copyBody(resp.Body, out, ah, stall, id, bufSize)
	if werr != nil {
		out.Close()
		ah.finish()
		f.prog.finish(id, werr)
		return written, digest{}, permanent(fmt.Errorf("write %s: %w", part, werr))
	}
	serr := out.Sync()
	cerr := out.Close()
	h = ah.finish()
	if rerr != nil {
		if errors.Is(context.Cause(rctx), errStalled) {
			rerr = fmt.Errorf("%w: no data for %s", errStalled, f.opts.StallTimeout)
		}
		err := fmt.Errorf("read %s after %d bytes: %w", id, offset+written, rerr)
		f.prog.finish(id, err)
		return written, digest{}, err
	}
	if err := errors.Join(serr, cerr); err != nil {
		f.prog.finish(id, err)
		return written, digest{}, permanent(fmt.Errorf("write %s: %w", part, err))
	}
	f.prog.finish(id, nil)
	return written, h.digest(), nil
}

// copyBody copies body to out and the hasher in chunks of up to bufSize,
// resetting the stall timer on every read and syncing every SyncEvery
// bytes, until the end of the body (rerr nil), a read error (rerr) or a
// write error (werr, which stops the copy at once).
func (f *fetcher) copyBody(body io.Reader, out *os.File, ah *asyncHasher, stall *time.Timer, id string, bufSize int) (written int64, rerr, werr error) {
	buf := make([]byte, bufSize)
	var sinceSync int64
	for {
		// Gather reads (often 4–32 KiB each) into one larger chunk so that
		// the file write and the hand-off to the hasher are amortised.
		n := 0
		var err error
		for n < bufSize/2 && err == nil {
			var k int
			k, err = body.Read(buf[n:])
			if k > 0 {
				stall.Reset(f.opts.StallTimeout)
				n += k
			}
		}
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				return written, nil, werr
			}
			ah.Write(buf[:n])
			written += int64(n)
			sinceSync += int64(n)
			f.transferred.Add(int64(n))
			f.prog.add(id, int64(n))
			if sinceSync >= f.opts.SyncEvery {
				out.Sync()
				sinceSync = 0
			}
		}
		if err == io.EOF {
			return written, nil, nil
		}
		if err != nil {
			return written, err, nil
		}
	}
}
