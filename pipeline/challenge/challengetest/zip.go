package challengetest

import (
	"archive/zip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ZipDir writes a zip archive at zipPath holding every regular file under
// dir, named by its slash path relative to dir (tests build raw downloads
// with it).
func ZipDir(dir, zipPath string) error {
	f, err := os.Create(zipPath)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	_, err = AddTree(zw, dir, dir, "", false)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("zip %s: %w", dir, err)
	}
	return nil
}

// AddTree adds the regular files under root to zw, each named by its slash
// path relative to base, behind prefix + "/" when prefix is set; with
// folders, every folder (root included) is an entry too, its name ending
// in "/". Other files (links, devices) are left out. It returns the number
// of entries walked, those left out included.
func AddTree(zw *zip.Writer, base, root, prefix string, folders bool) (int, error) {
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		if d.IsDir() && !folders || !d.IsDir() && !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		if prefix != "" {
			name = prefix + "/" + name
		}
		if d.IsDir() {
			_, err := zw.Create(name + "/")
			return err
		}
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		_, err = io.Copy(w, in)
		return err
	})
	return n, err
}
