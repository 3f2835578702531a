package report

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var linkRE = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// checkLinks reports every relative href/src in the site's HTML files that
// names a file which does not exist, and every absolute http(s) src (the
// site loads nothing from elsewhere).
func checkLinks(dir string) error {
	var errs []error
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(b), -1) {
			u, err := url.Parse(m[1])
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: bad link %q", p, m[1]))
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				if strings.HasPrefix(m[0], "src") {
					errs = append(errs, fmt.Errorf("%s: external resource %q", p, m[1]))
				}
				continue
			}
			if u.Path == "" {
				continue // same-page anchor
			}
			if strings.HasPrefix(u.Path, "/") {
				errs = append(errs, fmt.Errorf("%s: absolute link %q", p, m[1]))
				continue
			}
			target := filepath.Join(filepath.Dir(p), filepath.FromSlash(u.Path))
			if _, err := os.Stat(target); err != nil {
				errs = append(errs, fmt.Errorf("%s: broken link %q", p, m[1]))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return errors.Join(errs...)
}

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }
