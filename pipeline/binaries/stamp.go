package binaries

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// The build stamp makes the up-to-date check cheap: bin/.build-stamp.json
// records, at the end of a build, the toolchain's settings (`go env`), the
// folders of every package of the module the binaries are built from (from
// `go list -deps`) with the size and modification time of each of their
// files, go.mod, go.sum, and the binaries themselves. The binaries are up
// to date while all of these are as recorded: checking stats a few hundred
// files and runs `go env` once, instead of running `go build` twice
// (about 2 s even when nothing changed). A new import or a new file changes
// a recorded folder, so it is noticed; anything the stamp cannot vouch for
// falls back to the toolchain.
const stampName = ".build-stamp.json"

func stampPath(root string) string { return filepath.Join(root, "bin", stampName) }

type stamp struct {
	GoEnv  string   `json:"go_env"`           // the toolchain's version and build settings
	Dirs   []string `json:"dirs"`             // package folders, relative to root
	Digest string   `json:"digest"`           // of every recorded file's path, size and time
	Embeds []string `json:"embeds,omitempty"` // embedded files, relative to root
}

// goEnv is what of the toolchain's settings changes a build.
func goEnv(ctx context.Context, root string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "CC", "GOEXPERIMENT", "GOAMD64")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// packageDirs lists the folders of the module's packages the binaries are
// built from, relative to root, and the files they embed (relative to root).
func packageDirs(ctx context.Context, root string) (dirs, embeds []string, err error) {
	pkgs := make([]string, len(all))
	for i, b := range all {
		pkgs[i] = b.pkg
	}
	args := append([]string{"list", "-deps", "-f", `{{if not .Standard}}{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .EmbedFiles}}|{{.}}{{end}}{{end}}{{end}}{{end}}`}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if line == "" {
			continue
		}
		parts := strings.Split(line, "|")
		d, err := filepath.Rel(absRoot, parts[0])
		if err != nil || strings.HasPrefix(d, "..") {
			return nil, nil, fmt.Errorf("package folder %s is outside the checkout", parts[0])
		}
		dirs = append(dirs, d)
		for _, e := range parts[1:] {
			embeds = append(embeds, filepath.Join(d, e))
		}
	}
	sort.Strings(dirs)
	sort.Strings(embeds)
	return dirs, embeds, nil
}

// digest hashes the path, size and modification time of go.mod, go.sum,
// the binaries, every file directly in dirs (tests aside) and the embedded
// files. A missing file is recorded as missing.
func digest(root string, dirs, embeds []string) (string, error) {
	h := sha256.New()
	add := func(rel string) error {
		st, err := os.Stat(filepath.Join(root, rel))
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(h, "%s\x00missing\n", rel)
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%o\n", rel, st.Size(), st.ModTime().UnixNano(), st.Mode())
		return nil
	}
	files := []string{"go.mod", "go.sum"}
	for _, b := range all {
		files = append(files, relTo(root, b.out(root)))
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(filepath.Join(root, d))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "dir %s\n", d)
		for _, e := range ents {
			if n := e.Name(); !e.IsDir() && !strings.HasSuffix(n, "_test.go") {
				files = append(files, filepath.Join(d, n))
			}
		}
	}
	files = append(files, embeds...)
	for _, f := range files {
		if err := add(f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeStamp records the state the binaries were just built from.
func writeStamp(ctx context.Context, root string) error {
	env, err := goEnv(ctx, root)
	if err != nil {
		return err
	}
	dirs, embeds, err := packageDirs(ctx, root)
	if err != nil {
		return err
	}
	d, err := digest(root, dirs, embeds)
	if err != nil {
		return err
	}
	b, err := json.Marshal(stamp{GoEnv: env, Dirs: dirs, Digest: d, Embeds: embeds})
	if err != nil {
		return err
	}
	return fsutil.WriteFile(stampPath(root), b, 0o644)
}

// fresh reports whether the stamp says the binaries are built from what is
// in the checkout now, with the same toolchain settings.
func fresh(ctx context.Context, root string) bool {
	b, err := os.ReadFile(stampPath(root))
	if err != nil {
		return false
	}
	var s stamp
	if err := json.Unmarshal(b, &s); err != nil || len(s.Dirs) == 0 {
		return false
	}
	env, err := goEnv(ctx, root)
	if err != nil || env != s.GoEnv {
		return false
	}
	d, err := digest(root, s.Dirs, s.Embeds)
	return err == nil && d == s.Digest
}
