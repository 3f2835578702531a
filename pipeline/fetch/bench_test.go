package fetch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/fetch/fetchtest"
)

// BenchmarkFetch64MiB measures download + MD5/SHA-256 + fsync + rename of a
// 64 MiB file from the loopback fake server.
func BenchmarkFetch64MiB(b *testing.B) {
	const size = 64 << 20
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("1", fetchtest.File{Name: "big.bin", Data: fetchtest.RandomBytes(size, 1)})
	b.SetBytes(size)
	for i := 0; b.Loop(); i++ {
		opts, _ := testOptions(&testing.T{}, srv)
		opts.RawRoot = filepath.Join(b.TempDir(), fmt.Sprint(i))
		opts.SyncEvery = 32 << 20
		sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "1"}}, opts)
		if err != nil || sum.Err() != nil {
			b.Fatalf("%v / %v", err, sum.Err())
		}
		os.RemoveAll(opts.RawRoot)
	}
}

// BenchmarkExtractZip64MiB measures unpacking a zip of 64 × 1 MiB
// incompressible entries (verification is skipped: the lock says verified).
func BenchmarkExtractZip64MiB(b *testing.B) {
	var entries []fetchtest.Entry
	for i := 0; i < 64; i++ {
		entries = append(entries, fetchtest.Entry{Name: fmt.Sprintf("case%02d/img.nii.gz", i), Data: fetchtest.RandomBytes(1<<20, uint64(i))})
	}
	zipData := fetchtest.Zip(entries...)
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("1", fetchtest.File{Name: "d.zip", Data: zipData})
	opts, _ := testOptions(&testing.T{}, srv)
	opts.RawRoot = b.TempDir()
	src := []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "1"}}
	if sum, err := fetch.Fetch(context.Background(), src, opts); err != nil || sum.Err() != nil {
		b.Fatalf("%v / %v", err, sum.Err())
	}
	src[0].Extract = true
	lockPath := filepath.Join(opts.RawDir("c"), fetch.LockFileName)
	lock, _ := os.ReadFile(lockPath)
	b.SetBytes(64 << 20)
	b.ResetTimer()
	for b.Loop() {
		os.WriteFile(lockPath, lock, 0o644) // forget the extraction
		sum, err := fetch.Fetch(context.Background(), src, opts)
		if err != nil || sum.Err() != nil || !sum.Files[0].Extracted {
			b.Fatalf("%v / %v", err, sum.Err())
		}
	}
}
