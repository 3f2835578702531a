package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/fetch/fetchtest"
)

// fetchArchive serves one archive as a Zenodo record, fetches it with
// Extract set, and returns the result for it.
func fetchArchive(t *testing.T, name string, data []byte, tune func(*fetch.Options)) (fetch.FileResult, fetch.Options) {
	t.Helper()
	srv := fetchtest.New()
	t.Cleanup(srv.Close)
	srv.AddZenodo("42", fetchtest.File{Name: name, Data: data})
	opts, _ := testOptions(t, srv)
	if tune != nil {
		tune(&opts)
	}
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "42", Extract: true}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return resultOf(t, sum, "c", name), opts
}

// listTree returns every path under root (relative, slash-separated).
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func TestExtractZipAndTarGzOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"data.zip", fetchtest.Zip(fetchtest.Entry{Name: "d/", Dir: true}, fetchtest.Entry{Name: "d/case1.nii.gz", Data: []byte("one")}, fetchtest.Entry{Name: "top.txt", Data: []byte("two")}, fetchtest.Entry{Name: "d/alias", Symlink: "case1.nii.gz"})},
		{"data.tar.gz", fetchtest.TarGz(fetchtest.Entry{Name: "d/", Dir: true}, fetchtest.Entry{Name: "d/case1.nii.gz", Data: []byte("one")}, fetchtest.Entry{Name: "top.txt", Data: []byte("two")}, fetchtest.Entry{Name: "d/alias", Symlink: "case1.nii.gz"}, fetchtest.Entry{Name: "d/hard", Hardlink: "d/case1.nii.gz"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, opts := fetchArchive(t, tc.name, tc.data, nil)
			if r.Status != fetch.StatusFetched || !r.Extracted {
				t.Fatalf("result %+v", r)
			}
			raw := opts.RawDir("c")
			if got := string(readFile(t, filepath.Join(raw, "d", "case1.nii.gz"))); got != "one" {
				t.Errorf("case1 = %q", got)
			}
			if got := string(readFile(t, filepath.Join(raw, "d", "alias"))); got != "one" {
				t.Errorf("internal symlink reads %q", got)
			}
			e := lockOf(t, opts, "c").Entry(tc.name)
			if e == nil || e.ExtractedTo != "." || e.ExtractedAt == nil {
				t.Fatalf("extraction not recorded: %+v", e)
			}
			// Remove an extracted file: a second run must not unpack again.
			os.Remove(filepath.Join(raw, "top.txt"))
			sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "42", Extract: true}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r := resultOf(t, sum, "c", tc.name); r.Status != fetch.StatusSkipped || r.Extracted || sum.BytesTransferred != 0 {
				t.Errorf("second run: %+v, %d bytes", r, sum.BytesTransferred)
			}
			if exists(filepath.Join(raw, "top.txt")) {
				t.Error("extraction was redone")
			}
		})
	}
}

func TestExtractToStem(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddFigshare("14806362",
		fetchtest.File{Name: "Dongyang.zip", Data: fetchtest.Zip(fetchtest.Entry{Name: "Dongyang/D1/D1.nrrd", Data: []byte("img")})},
		fetchtest.File{Name: "README.txt", Data: []byte("readme")})
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "seg_a", Kind: fetch.KindFigshare, Record: "14806362", Extract: true, ExtractToStem: true}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if got := string(readFile(t, filepath.Join(opts.RawDir("seg_a"), "Dongyang", "Dongyang", "D1", "D1.nrrd"))); got != "img" {
		t.Errorf("stem layout: %q", got)
	}
	if e := lockOf(t, opts, "seg_a").Entry("Dongyang.zip"); e == nil || e.ExtractedTo != "Dongyang" {
		t.Errorf("lock entry %+v", e)
	}
	if r := resultOf(t, sum, "seg_a", "README.txt"); r.Extracted {
		t.Error("a non-archive was 'extracted'")
	}
}

func TestExtractFaults(t *testing.T) {
	good := fetchtest.Zip(fetchtest.Entry{Name: "a.txt", Data: fetchtest.RandomBytes(40_000, 1)}, fetchtest.Entry{Name: "b.txt", Data: fetchtest.RandomBytes(40_000, 2)})
	goodTgz := fetchtest.TarGz(fetchtest.Entry{Name: "a.txt", Data: fetchtest.RandomBytes(40_000, 1)}, fetchtest.Entry{Name: "b.txt", Data: fetchtest.RandomBytes(40_000, 2)})
	zeros := make([]byte, 8<<20)
	for _, tc := range []struct {
		name      string
		archive   string
		data      []byte
		tune      func(*fetch.Options)
		wantIs    error  // sentinel the error must wrap (nil: any)
		wantEntry string // entry the error must name ("" = none required)
		wantText  string
		absent    []string // paths relative to the raw folder that must not exist
	}{
		{name: "truncated zip", archive: "t.zip", data: good[:len(good)/2], wantText: "truncated or corrupt"},
		{name: "truncated tar.gz", archive: "t.tar.gz", data: goodTgz[:len(goodTgz)/2], wantText: "truncated or corrupt"},
		{name: "zip slip", archive: "s.zip", data: fetchtest.Zip(fetchtest.Entry{Name: "ok.txt", Data: []byte("ok")}, fetchtest.Entry{Name: "../../evil.txt", Data: []byte("pwned")}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "../../evil.txt", absent: []string{"../evil.txt", "../../evil.txt", "ok.txt"}}, // zip: checked before any write
		{name: "absolute path", archive: "abs.tar.gz", data: fetchtest.TarGz(fetchtest.Entry{Name: "/tmp/rexmle-evil.txt", Data: []byte("x")}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "/tmp/rexmle-evil.txt"},
		{name: "zip symlink out", archive: "l.zip", data: fetchtest.Zip(fetchtest.Entry{Name: "link", Symlink: "../../outside"}, fetchtest.Entry{Name: "link/x.txt", Data: []byte("x")}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "link", absent: []string{"link"}},
		{name: "tar symlink then write through it", archive: "l.tar.gz", data: fetchtest.TarGz(fetchtest.Entry{Name: "up", Symlink: ".."}, fetchtest.Entry{Name: "up/escaped.txt", Data: []byte("x")}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "up", absent: []string{"../escaped.txt", "up"}},
		{name: "absolute symlink", archive: "a.tar.gz", data: fetchtest.TarGz(fetchtest.Entry{Name: "pw", Symlink: "/etc/passwd"}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "pw", absent: []string{"pw"}},
		{name: "hard link out", archive: "h.tar.gz", data: fetchtest.TarGz(fetchtest.Entry{Name: "pw", Hardlink: "../../../etc/passwd"}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "pw", absent: []string{"pw"}},
		{name: "entry overwrites lock file", archive: "lk.zip", data: fetchtest.Zip(fetchtest.Entry{Name: "FETCHED.lock", Data: []byte("{}")}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "FETCHED.lock"},
		{name: "entry overwrites the archive", archive: "self.tar.gz", data: fetchtest.TarGz(fetchtest.Entry{Name: "./self.tar.gz", Data: []byte("x")}),
			wantIs: fetch.ErrUnsafeEntry, wantEntry: "./self.tar.gz"},
		{name: "zip bomb total limit", archive: "bomb.zip", data: fetchtest.Zip(fetchtest.Entry{Name: "small.txt", Data: []byte("fine")}, fetchtest.Entry{Name: "bomb.bin", Data: zeros}),
			tune: func(o *fetch.Options) { o.MaxExtractBytes = 1 << 20 }, wantIs: fetch.ErrExtractLimit, wantEntry: "bomb.bin", absent: []string{"bomb.bin", "small.txt"}},
		{name: "zip bomb ratio", archive: "ratio.zip", data: fetchtest.Zip(fetchtest.Entry{Name: "zeros.bin", Data: zeros}),
			tune: func(o *fetch.Options) { o.MaxEntryRatio = 100 }, wantIs: fetch.ErrExtractLimit, wantEntry: "zeros.bin", wantText: "expands more than 100×", absent: []string{"zeros.bin"}},
		{name: "zip bomb lying header", archive: "liar.zip", data: fetchtest.Zip(fetchtest.Entry{Name: "liar.bin", Data: zeros, LieSize: 1000}),
			tune: func(o *fetch.Options) { o.MaxExtractBytes = 1 << 20 }, wantEntry: "liar.bin", absent: []string{"liar.bin"}},
		{name: "tar.gz bomb", archive: "bomb.tgz", data: fetchtest.TarGz(fetchtest.Entry{Name: "zeros.bin", Data: zeros}),
			tune: func(o *fetch.Options) { o.MaxExtractBytes = 1 << 20 }, wantIs: fetch.ErrExtractLimit, wantEntry: "zeros.bin", absent: []string{"zeros.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, opts := fetchArchive(t, tc.archive, tc.data, tc.tune)
			if r.Status != fetch.StatusFailed || r.Err == nil {
				t.Fatalf("result %+v, want failure", r)
			}
			t.Logf("reported: %v", r.Err)
			var xe *fetch.ExtractError
			if !errors.As(r.Err, &xe) || xe.Archive != tc.archive {
				t.Fatalf("err %v is not an ExtractError for %s", r.Err, tc.archive)
			}
			if tc.wantIs != nil && !errors.Is(r.Err, tc.wantIs) {
				t.Errorf("err %v does not wrap %v", r.Err, tc.wantIs)
			}
			if tc.wantEntry != "" && (xe.Entry != tc.wantEntry || !strings.Contains(r.Err.Error(), `"`+tc.wantEntry+`"`)) {
				t.Errorf("err %v names entry %q, want %q", r.Err, xe.Entry, tc.wantEntry)
			}
			if tc.wantText != "" && !strings.Contains(r.Err.Error(), tc.wantText) {
				t.Errorf("err %v lacks %q", r.Err, tc.wantText)
			}
			raw := opts.RawDir("c")
			for _, a := range tc.absent {
				if exists(filepath.Join(raw, a)) {
					t.Errorf("%s exists after a refused extraction", a)
				}
			}
			// Nothing may appear outside the raw folder: RawRoot holds only "c".
			if got := listTree(t, opts.RawRoot); len(got) == 0 || strings.Contains(strings.Join(got, "\n"), "evil") || strings.Contains(strings.Join(got, "\n"), "escaped") {
				t.Errorf("tree under RawRoot: %v", got)
			}
			for _, p := range listTree(t, opts.RawRoot) {
				if !strings.HasPrefix(p, "c") {
					t.Errorf("%s written outside the challenge folder", p)
				}
			}
			// The archive itself is verified and kept; only unpacking failed.
			e := lockOf(t, opts, "c").Entry(tc.archive)
			if e == nil || e.ExtractedTo != "" {
				t.Errorf("lock entry %+v, want verified but not extracted", e)
			}
		})
	}
}

func TestExtractDefaultLimitAndFreeSpace(t *testing.T) {
	zeros := make([]byte, 3<<20)
	// Default cap: 20 × archive size + 1 GiB — far above 3 MiB, so this unpacks.
	r, _ := fetchArchive(t, "ok.zip", fetchtest.Zip(fetchtest.Entry{Name: "z.bin", Data: zeros}), nil)
	if r.Status != fetch.StatusFetched || !r.Extracted {
		t.Fatalf("default limit refused a 3 MiB entry: %+v", r)
	}
	// Enough room for the download but not for what the zip declares.
	data := fetchtest.Zip(fetchtest.Entry{Name: "z.bin", Data: zeros})
	r, opts := fetchArchive(t, "big.zip", data, func(o *fetch.Options) {
		o.FreeSpace = func(string) (uint64, error) { return uint64(2*len(data)) + 100, nil }
	})
	if r.Status != fetch.StatusFailed || !errors.Is(r.Err, fetch.ErrNoSpace) || !strings.Contains(r.Err.Error(), "unpacking needs 3.0 MiB") {
		t.Fatalf("result %+v, want ErrNoSpace before unpacking", r)
	}
	if exists(filepath.Join(opts.RawDir("c"), "z.bin")) {
		t.Error("entry written despite the space check")
	}
}

func TestExtractManyEntriesInParallel(t *testing.T) {
	var entries []fetchtest.Entry
	for i := 0; i < 50; i++ {
		entries = append(entries, fetchtest.Entry{Name: fmt.Sprintf("case%02d/img.nii.gz", i), Data: fetchtest.RandomBytes(10_000+i, uint64(i))})
	}
	r, opts := fetchArchive(t, "many.zip", fetchtest.Zip(entries...), nil)
	if r.Status != fetch.StatusFetched || !r.Extracted {
		t.Fatalf("result %+v", r)
	}
	for _, e := range entries {
		if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("c"), filepath.FromSlash(e.Name))), e.Data) {
			t.Errorf("%s differs", e.Name)
		}
	}
}

func TestExtractCorruptEntryNamed(t *testing.T) {
	a := fetchtest.RandomBytes(50_000, 1)
	data := fetchtest.Zip(fetchtest.Entry{Name: "a.bin", Data: a}, fetchtest.Entry{Name: "b.bin", Data: fetchtest.RandomBytes(50_000, 2)})
	// Flip a byte inside a.bin's stored data (after its 30+5-byte local header).
	bad := append([]byte(nil), data...)
	bad[30+len("a.bin")+1000] ^= 0xff
	r, opts := fetchArchive(t, "crc.zip", bad, nil)
	var xe *fetch.ExtractError
	if r.Status != fetch.StatusFailed || !errors.As(r.Err, &xe) || xe.Entry != "a.bin" || !strings.Contains(r.Err.Error(), "truncated or corrupt") {
		t.Fatalf("result %+v, want a corrupt-entry error naming a.bin", r)
	}
	if exists(filepath.Join(opts.RawDir("c"), "a.bin")) {
		t.Error("corrupt entry left on disk")
	}
}
