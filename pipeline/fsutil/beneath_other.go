//go:build !linux

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// openIn checks every component of rel with Lstat (no link), then opens
// the file and checks it again. Without openat2 a swap between the checks
// and the open is possible; the pipeline's hosts are Linux.
func openIn(root, rel string) (*os.File, error) {
	cur := root
	for _, p := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, p)
		st, err := os.Lstat(cur)
		if err != nil {
			return nil, err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return nil, ErrLink
		}
	}
	st, err := os.Lstat(cur)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(st.Mode())
	}
	f, err := os.Open(cur)
	if err != nil {
		return nil, err
	}
	if st2, err := f.Stat(); err != nil || !os.SameFile(st, st2) {
		f.Close()
		return nil, errors.New("the file changed while it was opened")
	}
	return f, nil
}
