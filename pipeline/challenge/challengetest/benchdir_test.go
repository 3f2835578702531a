package challengetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBenchDirTemporary(t *testing.T) {
	t.Setenv(BenchKeepEnv, "")
	d := BenchDir(t, "private")
	if filepath.Base(d) == "private" {
		t.Errorf("BenchDir without %s = %s, want a temporary folder", BenchKeepEnv, d)
	}
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		t.Errorf("BenchDir: %v", err)
	}
}

func TestBenchDirKept(t *testing.T) {
	keep := t.TempDir()
	t.Setenv(BenchKeepEnv, keep)
	priv, sub := BenchDirs(t)
	if priv != filepath.Join(keep, "private") || sub != filepath.Join(keep, "submission") {
		t.Fatalf("BenchDirs = %s, %s; want folders under %s", priv, sub, keep)
	}
	if err := os.WriteFile(filepath.Join(priv, "old.csv"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := BenchDir(t, "private"); again != priv {
		t.Fatalf("BenchDir again = %s", again)
	}
	if _, err := os.Stat(filepath.Join(priv, "old.csv")); !os.IsNotExist(err) {
		t.Errorf("BenchDir left an earlier run's file: %v", err)
	}
}

func TestKeepCopy(t *testing.T) {
	src := t.TempDir()
	priv, sub := filepath.Join(src, "p"), filepath.Join(src, "s")
	for path, body := range map[string]string{
		filepath.Join(priv, "test_labels.csv"):     "id\n1\n",
		filepath.Join(sub, "submission.csv"):       "id\n1\n",
		filepath.Join(sub, "predictions", "1.txt"): "one",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(BenchKeepEnv, "")
	KeepCopy(t, priv, sub) // no-op
	keep := t.TempDir()
	t.Setenv(BenchKeepEnv, keep)
	KeepCopy(t, priv, sub)
	got, err := os.ReadFile(filepath.Join(keep, "submission", "predictions", "1.txt"))
	if err != nil || string(got) != "one" {
		t.Errorf("kept prediction = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(keep, "private", "test_labels.csv")); err != nil {
		t.Errorf("kept answers: %v", err)
	}
}
