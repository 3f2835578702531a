package validate

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Upload caps.
const (
	maxUploadBytes   = 2 << 30 // the whole request body
	maxUnzippedBytes = 4 << 30 // everything a predictions zip expands to
	maxZipEntries    = 100000
)

// receiveUpload assembles a multipart upload into a scratch submission
// folder: the part "file" is saved as submission.csv whatever its
// filename, as the reference harness's server saves it
// (grading_server_standalone.py: submission_path = temp_dir /
// "submission.csv"; ML-Master posts its node's submission_<id>.csv,
// utils/server_utils.py call_validate); the part "predictions_zip" is
// extracted into the folder (regular files only, no absolute or parent
// paths, within the caps). Other parts are ignored. zipped says whether a
// predictions_zip came (without one, the caller completes the folder from a
// snapshot of the run's submission folder). cleanup removes the scratch
// folder.
func receiveUpload(r *http.Request, scratch string) (dir string, zipped bool, cleanup func(), err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", false, nil, fmt.Errorf("multipart body: %v", err)
	}
	tmp, err := os.MkdirTemp(scratch, "upload-")
	if err != nil {
		return "", false, nil, errors.New("the endpoint could not store the upload")
	}
	cleanup = func() { os.RemoveAll(tmp) }
	dir = filepath.Join(tmp, "submission")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", false, cleanup, errors.New("the endpoint could not store the upload")
	}
	left := int64(maxUploadBytes)
	gotFile := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false, cleanup, fmt.Errorf("multipart body: %v", err)
		}
		switch part.FormName() {
		case "file":
			n, err := save(filepath.Join(dir, "submission.csv"), part, left)
			if err != nil {
				return "", false, cleanup, err
			}
			left -= n
			gotFile = true
		case "predictions_zip":
			zipped = true
			zp := filepath.Join(tmp, "predictions.zip")
			n, err := save(zp, part, left)
			if err != nil {
				return "", false, cleanup, err
			}
			left -= n
			if err := unzip(zp, dir); err != nil {
				return "", false, cleanup, err
			}
		}
		part.Close()
	}
	if !gotFile {
		return "", false, cleanup, errors.New(`want a multipart part "file" (the submission file) or a JSON body {"dir": "<submission folder>"}`)
	}
	return dir, zipped, cleanup, nil
}

func save(dst string, src io.Reader, left int64) (int64, error) {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("upload %s: %v", filepath.Base(dst), err)
	}
	n, err := io.Copy(f, io.LimitReader(src, left+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("upload %s: %v", filepath.Base(dst), err)
	}
	if n > left {
		return n, fmt.Errorf("upload %s: over the size cap", filepath.Base(dst))
	}
	return n, nil
}

// unzip extracts the regular files of zp under dir, refusing names that
// leave dir and stopping at the caps.
func unzip(zp, dir string) error {
	zr, err := zip.OpenReader(zp)
	if err != nil {
		return fmt.Errorf("predictions_zip: %v", err)
	}
	defer zr.Close()
	if len(zr.File) > maxZipEntries {
		return fmt.Errorf("predictions_zip: more than %d entries", maxZipEntries)
	}
	var total int64
	for _, f := range zr.File {
		name := path.Clean(strings.ReplaceAll(f.Name, "\\", "/"))
		if strings.HasSuffix(f.Name, "/") || f.FileInfo().IsDir() {
			continue
		}
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("predictions_zip: entry %q leaves the submission folder", truncate(f.Name))
		}
		if !f.Mode().IsRegular() {
			return fmt.Errorf("predictions_zip: entry %q is not a regular file", truncate(f.Name))
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return fmt.Errorf("predictions_zip: %v", err)
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("predictions_zip: entry %q: %v", truncate(f.Name), err)
		}
		n, err := save(dst, rc, maxUnzippedBytes-total)
		rc.Close()
		if err != nil {
			return fmt.Errorf("predictions_zip: %v", err)
		}
		total += n
	}
	return nil
}
