package grade

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The memo hashes a folder once while its files keep their sizes and
// times, across stage runs (saved and loaded again), and hashes it again
// when a file changes or is added.
func TestHashMemoHashesOnlyChangedFolders(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "sub", "submission.csv")
	os.MkdirAll(filepath.Dir(f), 0o755)
	if err := os.WriteFile(f, []byte("id,value\n1,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	counted := func(d string) (string, error) { calls++; return submissionHash(d) }
	memoPath := filepath.Join(dir, ".stamps", "memo.json")
	m := loadMemo(memoPath)
	h1, err := m.hash("submission", filepath.Dir(f), counted)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := submissionHash(filepath.Dir(f))
	if h1 != want || calls != 1 {
		t.Fatalf("first hash %s (%d calls), want %s after 1 call", h1, calls, want)
	}
	if h, _ := m.hash("submission", filepath.Dir(f), counted); h != h1 || calls != 1 {
		t.Fatalf("unchanged folder hashed again (%d calls)", calls)
	}
	if err := m.save(); err != nil {
		t.Fatal(err)
	}
	m = loadMemo(memoPath) // the next stage run
	if h, _ := m.hash("submission", filepath.Dir(f), counted); h != h1 || calls != 1 {
		t.Fatalf("unchanged folder hashed again after a reload (%d calls)", calls)
	}
	if h, _ := m.hash("answers", filepath.Dir(f), counted); h != h1 || calls != 2 {
		t.Fatalf("another kind of hash shared the entry (%d calls)", calls)
	}
	later := time.Now().Add(time.Hour)
	if err := os.WriteFile(f, []byte("id,value\n1,0.7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(f, later, later)
	h2, _ := m.hash("submission", filepath.Dir(f), counted)
	if want, _ := submissionHash(filepath.Dir(f)); h2 != want || h2 == h1 || calls != 3 {
		t.Fatalf("changed file: hash %s (%d calls), want %s", h2, calls, want)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(f), "extra.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if h3, _ := m.hash("submission", filepath.Dir(f), counted); h3 == h2 || calls != 4 {
		t.Fatalf("added file: not hashed again (%d calls)", calls)
	}
	var nilMemo *hashMemo
	if h, _ := nilMemo.hash("submission", filepath.Dir(f), counted); h == "" || calls != 5 {
		t.Fatal("a nil memo must hash")
	}
}
