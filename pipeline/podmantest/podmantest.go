// Package podmantest gives tests a private podman: its own configuration
// and an empty image store under a fresh short folder, shared with no
// other podman user, reset when the test ends.
package podmantest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Private skips the test where podman is not installed; otherwise it
// points podman (CONTAINERS_CONF, CONTAINERS_STORAGE_CONF, for the test's
// duration) at a configuration these machines need — runc with cgroupfs,
// no default ulimits, file events and locks, vfs storage — and an empty
// store, and returns the folder holding them (searchable by others, so a
// root pipeline's sandbox can reach what the test puts there).
func Private(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (Debian packages podman, runc, catatonit)")
	}
	dir, err := os.MkdirTemp("", "rxp") // short: podman's run root holds sockets
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	conf := "[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n" +
		"tmp_dir = \"" + filepath.Join(dir, "tmp") + "\"\nlock_type = \"file\"\n"
	storage := "[storage]\ndriver = \"vfs\"\ngraphroot = \"" + filepath.Join(dir, "root") + "\"\nrunroot = \"" + filepath.Join(dir, "run") + "\"\n"
	for name, text := range map[string]string{"containers.conf": conf, "storage.conf": storage} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CONTAINERS_CONF", filepath.Join(dir, "containers.conf"))
	t.Setenv("CONTAINERS_STORAGE_CONF", filepath.Join(dir, "storage.conf"))
	t.Cleanup(func() {
		exec.Command("podman", "system", "reset", "--force").Run()
		os.RemoveAll(dir)
	})
	return dir
}
