package fetch

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

func md5hex(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

// Files placed by hand in a raw folder without a FETCHED.lock record are
// checked, offline, against the checksums and sizes the challenge file
// records: a matching archive is verified, a changed one is bad, one with
// nothing recorded and a tree unpacked by hand are listed unverified with
// the reason; what prepare unpacked from an archive is left out. The
// record fetchVerify leaves gives the site's provenance line.
func TestVerifyChecksHandPlacedFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ch")
	good, changed := []byte("the published archive"), []byte("a re-packed copy")
	write := func(rel string, b []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Good.zip", good)
	write("Changed.zip", changed)
	write("Unlisted.zip", []byte("x"))
	write("NoSum.zip", []byte("y"))
	write("ByHand/a.tif", []byte("a"))
	write("ByHand/b.tif", []byte("b"))
	// Prepare unpacked Good.zip into Good/: derived from the archive, not checked again.
	write("Good/inner.txt", []byte("inner"))
	write(".rexmle-extracted/Good.zip", []byte("complete\nGood/inner.txt\n"))
	sources := []Source{{Challenge: "ch", Kind: KindZenodo, Record: "1", Files: []string{"Good.zip", "Changed.zip", "NoSum.zip"},
		Published: []FileSum{{Name: "Good.zip", MD5: md5hex(good), Size: int64(len(good))}, {Name: "Changed.zip", MD5: md5hex(good)}}}}
	ctx := context.Background()
	rep, err := Verify(ctx, sources, Options{RawRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]HandFile{}
	for _, h := range rep.Hand {
		got[h.Name] = h
	}
	want := map[string]string{"Good.zip": HandVerified, "Changed.zip": HandBad, "NoSum.zip": HandUnverified, "Unlisted.zip": HandUnverified, "ByHand/": HandUnverified}
	if len(got) != len(want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	for n, st := range want {
		if got[n].Status != st {
			t.Errorf("%s: %s (%s), want %s", n, got[n].Status, got[n].Why, st)
		}
	}
	if !strings.Contains(got["Changed.zip"].Why, "md5") || !strings.Contains(got["NoSum.zip"].Why, "records no checksum") ||
		!strings.Contains(got["ByHand/"].Why, "unpacked by hand") || got["ByHand/"].Files != 2 || !strings.Contains(got["Unlisted.zip"].Why, "not a file") {
		t.Errorf("reasons: %+v", got)
	}
	if len(rep.Unrecorded) != 1 || rep.Unrecorded[0].Files != 4 {
		t.Errorf("unrecorded %+v, want the folder with 4 unchecked files", rep.Unrecorded)
	}
	var out strings.Builder
	if err := rep.Print(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"ok   ch/Good.zip: placed by hand, verified (md5 and size as published)", "BAD  ch/Changed.zip: placed by hand:",
		"UNVERIFIED ch/ByHand/ (2 files): unpacked by hand", "2 files checked, 1 bad, 1 folders unverified"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q:\n%s", line, out.String())
		}
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "Changed.zip (placed by hand)") {
		t.Errorf("Err = %v", err)
	}

	// Provenance for the site, before and after fetchVerify's record.
	if p := Provenance(dir); p != "placed by hand, not checked (run mage fetchVerify)" {
		t.Errorf("before the check: %q", p)
	}
	now := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	if err := WriteHandRecord(dir, rep.Hand, now); err != nil {
		t.Fatal(err)
	}
	if p := Provenance(dir); !strings.HasPrefix(p, "placed by hand, FAILED verification on 2026-11-28T01:00:00Z: Changed.zip") {
		t.Errorf("after a failed check: %q", p)
	}
	// Only the verified archive (and what prepare unpacked from it) left.
	for _, n := range []string{"Changed.zip", "Unlisted.zip", "NoSum.zip", "ByHand"} {
		os.RemoveAll(filepath.Join(dir, n))
	}
	rep, err = Verify(ctx, sources, Options{RawRoot: root})
	if err != nil || rep.Err() != nil || len(rep.Hand) != 1 {
		t.Fatalf("verified folder: %+v %v", rep, err)
	}
	if err := WriteHandRecord(dir, rep.Hand, now); err != nil {
		t.Fatal(err)
	}
	if p := Provenance(dir); p != "placed by hand, verified on 2026-11-28T01:00:00Z against the published checksums: Good.zip" {
		t.Errorf("verified: %q", p)
	}
	// The record is rexmle's own bookkeeping: prepare's fingerprint leaves it out.
	if !challenge.IsExtractionEntry(challenge.HandCheckName) {
		t.Error("the hand-check record is not a bookkeeping entry")
	}
	// A fetched folder says so.
	if err := os.WriteFile(filepath.Join(dir, LockFileName), []byte(`{"files":[{"name":"Good.zip","size":21}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := Provenance(dir); !strings.HasPrefix(p, "downloaded by mage fetch") {
		t.Errorf("fetched: %q", p)
	}
}
