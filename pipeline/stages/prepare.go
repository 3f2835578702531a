package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
)

// SynthSeed is the seed of the demo profile's synthetic datasets.
const SynthSeed = 1

// prepareVersion changes when preparation output changes for the same input,
// so prepared folders made by an older rexmle are redone.
const prepareVersion = "1"

// rawFingerprint summarises a raw folder: every file's path, size and
// modification time (hashing tens of GB of raw data on each run would be slow).
func rawFingerprint(dir string) (string, error) {
	type ent struct {
		p    string
		size int64
		mod  int64
	}
	var ents []ent
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			r, _ := filepath.Rel(dir, p)
			ents = append(ents, ent{filepath.ToSlash(r), info.Size(), info.ModTime().UnixNano()})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].p < ents[j].p })
	h := sha256.New()
	fmt.Fprintf(h, "prepare-v%s\n", prepareVersion)
	for _, e := range ents {
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", e.p, e.size, e.mod)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// upToDate reports whether dataDir holds a preparation of the same input
// whose files are all still as the manifest lists them.
func upToDate(dataDir, inputHash string) bool {
	m, err := challenge.ReadManifest(dataDir)
	if err != nil || m.InputHash != inputHash {
		return false
	}
	files, err := challenge.HashTree(dataDir)
	if err != nil || len(files) != len(m.Files) {
		return false
	}
	for k, v := range m.Files {
		if files[k] != v {
			return false
		}
	}
	return true
}

// prepareOne synthesizes (demo) and prepares one challenge; it returns
// whether work was done.
func prepareOne(ctx context.Context, e *env, c challenge.Challenge, cc *config.Challenge) (bool, error) {
	dataRoot := e.b.Path(e.b.Paths.Data)
	raw := filepath.Join(dataRoot, "raw", c.ID())
	if e.profile.Data != "synthetic" {
		raw = filepath.Join(dataRoot, "raw", cc.RawFolder())
	}
	dataDir := filepath.Join(dataRoot, c.ID())
	if e.profile.Data == "synthetic" {
		marker := filepath.Join(raw, ".rexmle-synthetic")
		want := fmt.Sprintf("seed %d version %s\n", SynthSeed, prepareVersion)
		if b, err := os.ReadFile(marker); err != nil || string(b) != want || e.opt.Force {
			if err := os.RemoveAll(raw); err != nil {
				return false, err
			}
			if err := c.Synthesize(ctx, raw, SynthSeed); err != nil {
				os.RemoveAll(raw)
				return false, fmt.Errorf("synthesize: %w", err)
			}
			if err := challenge.WriteFileAtomic(marker, []byte(want)); err != nil {
				return false, err
			}
		}
	} else if _, err := os.Stat(raw); err != nil {
		return false, fmt.Errorf("no raw data at %s: run `go run mage.go fetch` first", rel(raw))
	}
	fp, err := rawFingerprint(raw)
	if err != nil {
		return false, fmt.Errorf("read raw data: %w", err)
	}
	inputHash := c.ID() + ":" + fp
	if !e.opt.Force && upToDate(dataDir, inputHash) {
		return false, nil
	}
	// Prepare into a fresh folder beside the target and swap it in, so an
	// interrupted preparation never leaves a half-written data folder.
	tmp, err := os.MkdirTemp(dataRoot, "."+c.ID()+".preparing-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	if err := c.Prepare(ctx, raw, tmp); err != nil {
		return false, err
	}
	if _, err := challenge.WriteManifest(tmp, c.ID(), inputHash); err != nil {
		return false, err
	}
	old := dataDir + ".old"
	os.RemoveAll(old)
	if err := os.Rename(dataDir, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := os.Rename(tmp, dataDir); err != nil {
		return false, err
	}
	os.RemoveAll(old)
	return true, nil
}

// Prepare synthesizes (demo profile) and prepares every selected challenge
// in parallel, skipping those whose prepared manifest matches their input.
func Prepare(ctx context.Context, o Options) error {
	e, err := load(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.b.Path(e.b.Paths.Data), 0o755); err != nil {
		return err
	}
	type result struct {
		id      string
		did     bool
		err     error
		elapsed time.Duration
	}
	var todo []challenge.Challenge
	var cfgs []*config.Challenge
	var missing []string
	for _, cc := range e.challenges {
		c, ok := challenge.Lookup(cc.ID)
		if !ok {
			missing = append(missing, cc.ID)
			continue
		}
		todo = append(todo, c)
		cfgs = append(cfgs, cc)
	}
	bar := newProgress("prepare", len(todo))
	results := make([]result, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, c := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, c challenge.Challenge) {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			did, err := prepareOne(ctx, e, c, cfgs[i])
			results[i] = result{c.ID(), did, err, time.Since(start)}
			bar.step(c.ID(), err == nil)
		}(i, c)
	}
	wg.Wait()
	bar.finish()
	var failed int
	for _, r := range results {
		switch {
		case r.err != nil:
			failed++
			fmt.Printf("  %-22s FAILED: %v\n", r.id, r.err)
		case r.did:
			fmt.Printf("  %-22s prepared in %s\n", r.id, r.elapsed.Round(time.Millisecond))
		default:
			fmt.Printf("  %-22s up to date\n", r.id)
		}
	}
	for _, id := range missing {
		fmt.Printf("  %-22s skipped: no grader is built into this version of rexmle\n", id)
	}
	if failed > 0 {
		return fmt.Errorf("prepare: %d of %d challenges failed", failed, len(todo))
	}
	return ctx.Err()
}
