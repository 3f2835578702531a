package all_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// sharedFamily is a group of tasks that read one raw folder holding only
// the archives a user downloads by hand.
type sharedFamily struct {
	tasks    []string          // task ids, in the order their synthetic data is written
	archives map[string]string // archive name -> the tasks whose synthetic raw data it holds
}

var sharedFamilies = []sharedFamily{
	{ // one archive per task
		tasks:    []string{"panther-task1", "panther-task2"},
		archives: map[string]string{"PANTHER_Task1.zip": "panther-task1", "PANTHER_Task2.zip": "panther-task2"},
	},
	{ // one archive for all six tasks
		tasks: []string{"topcow-track1-task1", "topcow-track1-task2", "topcow-track1-task3",
			"topcow-track2-task1", "topcow-track2-task2", "topcow-track2-task3"},
		archives: map[string]string{"TopCoW2024_Data_Release.zip": "*"},
	},
	{
		tasks:    []string{"topbrain-track1", "topbrain-track2"},
		archives: map[string]string{"TopBrain_Data_Release_Batches1n2_081425.zip": "*"},
	},
}

// buildArchives synthesizes each family's raw data and zips it into the
// archives a download would hold; it returns the folder of archives.
func buildArchives(t *testing.T, f sharedFamily) string {
	t.Helper()
	ctx := context.Background()
	zips := t.TempDir()
	names := make([]string, 0, len(f.archives))
	for n := range f.archives {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		synth := t.TempDir()
		for _, id := range f.tasks {
			if who := f.archives[name]; who != "*" && who != id {
				continue
			}
			c, ok := challenge.Lookup(id)
			if !ok {
				t.Fatalf("no challenge %s", id)
			}
			if err := c.Synthesize(ctx, synth, 7, challenge.SynthSize{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := challengetest.ZipDir(synth, filepath.Join(zips, name)); err != nil {
			t.Fatal(err)
		}
	}
	return zips
}

// archiveOnlyRaw makes a fresh raw folder holding copies of the archives.
func archiveOnlyRaw(t *testing.T, zips string) string {
	t.Helper()
	raw := t.TempDir()
	entries, err := os.ReadDir(zips)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := fsutil.CopyFile(filepath.Join(zips, e.Name()), filepath.Join(raw, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// treeHash hashes every file's relative path and content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(h, "%s %x\n", filepath.ToSlash(rel), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// prepare runs Prepare of task id from raw into a fresh folder and returns
// the tree hash of what it wrote.
func prepare(t *testing.T, id, raw string) (string, error) {
	c, _ := challenge.Lookup(id)
	out := t.TempDir()
	if err := c.Prepare(context.Background(), raw, out); err != nil {
		return "", fmt.Errorf("%s: %w", id, err)
	}
	return treeHash(t, out), nil
}

// Tasks that share a raw folder holding only archives prepare the same
// public and private folders whether each is prepared alone or all of them
// together, concurrently, in any order: each archive is unpacked once, under
// the folder's lock, and no task reads a half-unpacked tree.
func TestSharedRawFoldersPrepareInAnyOrder(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	}
	for _, f := range sharedFamilies {
		f := f
		t.Run(strings.SplitN(f.tasks[0], "-", 2)[0], func(t *testing.T) {
			zips := buildArchives(t, f)
			want := map[string]string{}
			for _, id := range f.tasks {
				h, err := prepare(t, id, archiveOnlyRaw(t, zips))
				if err != nil {
					t.Fatalf("alone: %v", err)
				}
				want[id] = h
			}
			rng := rand.New(rand.NewSource(1))
			for run := 0; run < runs; run++ {
				raw := archiveOnlyRaw(t, zips)
				order := append([]string(nil), f.tasks...)
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				got := make([]string, len(order))
				errs := make([]error, len(order))
				var wg sync.WaitGroup
				for i, id := range order {
					wg.Add(1)
					go func(i int, id string) {
						defer wg.Done()
						got[i], errs[i] = prepare(t, id, raw)
					}(i, id)
				}
				wg.Wait()
				for i, id := range order {
					if errs[i] != nil {
						t.Fatalf("run %d (order %v): %v", run, order, errs[i])
					}
					if got[i] != want[id] {
						t.Fatalf("run %d (order %v): %s prepared differently from preparing it alone", run, order, id)
					}
				}
				// A second pass over the now-unpacked folder changes nothing either.
				for _, id := range order {
					if h, err := prepare(t, id, raw); err != nil || h != want[id] {
						t.Fatalf("run %d: %s again from the unpacked folder: %v", run, id, err)
					}
				}
			}
		})
	}
}
