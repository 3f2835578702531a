// Package bundle writes and reads a results bundle: a text-only export
// (JSON Lines, CSV and one TOML manifest) of everything the rank stage and
// the results site take as inputs from the store, committed under
// results/bundle/<profile>/ so that a checkout without the store (a fresh
// clone, a Pages runner) builds the same site. It holds the runs, their
// grades, metric values and per-case values (the bootstrap's inputs), GPU
// telemetry, the judge's scores and profiles, the prepared datasets' hashes
// as the provenance page shows them and the judge's CSV exports; never the
// SQLite file, data, private answers or their hashes, agent logs, the
// judge's raw answers, or paths of the machine. Ranks are not in it: the
// rank stage computes them again from these inputs and the committed
// results/paper.
package bundle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/report"
	"github.com/rexmle/rexmle/pipeline/store"
)

// Schema is the bundle schema this program writes and reads. It changes
// when a bundled file's fields change; a bundle of another schema is
// refused with the manifest's field named.
const Schema = 1

// Folder is where bundles live under the results folder.
const Folder = "bundle"

// ManifestFile names the manifest inside a bundle folder.
const ManifestFile = "manifest.toml"

// datasetsFile holds the provenance page's prepared-dataset facts.
const datasetsFile = "datasets.jsonl"

// exportsDir holds CSV exports that no stage recomputes from the bundle
// (the judge's capabilities.csv and judge-agreement.csv, human labels).
const exportsDir = "exports"

// Manifest describes a bundle: its schema, what wrote it, the rank stage's
// settings to rank it again with, and every file with its sha256.
type Manifest struct {
	Schema     int    `toml:"schema"`
	Profile    string `toml:"profile"`     // the profile the site is built for
	ToolCommit string `toml:"tool_commit"` // git HEAD of the rexmle checkout that wrote it ("unknown" outside git)
	ToolDirty  bool   `toml:"tool_dirty"`  // that checkout had uncommitted changes to tracked files
	// The rank stage's bootstrap settings (REXMLE_BOOT, REXMLE_BOOT_SEED)
	// the store was ranked with.
	Boot     int      `toml:"boot"`
	BootSeed int64    `toml:"boot_seed"`
	Sources  []string `toml:"sources"` // the run groups it holds
	Files    []File   `toml:"file"`
}

// File is one file of a bundle.
type File struct {
	Name   string `toml:"name"` // slash-separated, relative to the bundle folder
	SHA256 string `toml:"sha256"`
	Rows   int    `toml:"rows"` // lines of a .jsonl file; 0 for an export
}

// Dir is the bundle folder of profile under the results folder.
func Dir(resultsDir, profile string) string {
	return filepath.Join(resultsDir, Folder, profile)
}

// Find reports whether resultsDir holds a bundle for profile (its
// manifest exists), and its folder.
func Find(resultsDir, profile string) (dir string, ok bool) {
	dir = Dir(resultsDir, profile)
	st, err := os.Stat(filepath.Join(dir, ManifestFile))
	return dir, err == nil && st.Mode().IsRegular()
}

// WriteOptions says what Write puts in a bundle besides the store's rows.
type WriteOptions struct {
	Profile    string
	ToolCommit string
	ToolDirty  bool
	Boot       int
	BootSeed   uint64
	Datasets   []report.Dataset
	Exports    []string // paths of CSV files copied under exports/ by base name
}

// Write writes the bundle of st into dir, replacing what was there only
// once every file is written (a sibling temporary folder renamed into
// place). The same store and options write byte-identical files.
func Write(ctx context.Context, st *store.Store, dir string, o WriteOptions) (*Manifest, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	// What a killed Write left: its temporary folder, or the old bundle
	// moved aside (put back where the new one never arrived).
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".writing-*"))
	for _, p := range stale {
		os.RemoveAll(p)
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		os.Rename(dir+".old", dir)
	}
	os.RemoveAll(dir + ".old")
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".writing-")
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	defer os.RemoveAll(tmp)
	if o.BootSeed > math.MaxInt64 {
		return nil, fmt.Errorf("bundle: boot seed %d out of range", o.BootSeed)
	}
	m := &Manifest{Schema: Schema, Profile: o.Profile, ToolCommit: o.ToolCommit, ToolDirty: o.ToolDirty, Boot: o.Boot, BootSeed: int64(o.BootSeed), Sources: []string{}}
	sources := map[string]bool{}
	put := func(name string, data []byte, rows int) error {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := fsutil.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		m.Files = append(m.Files, File{Name: name, SHA256: hex.EncodeToString(sum[:]), Rows: rows})
		return nil
	}
	for _, tb := range store.BundleTables {
		var buf bytes.Buffer
		n := 0
		err := st.BundleRows(ctx, tb, func(vals []any) error {
			n++
			if tb.Name == "runs" {
				sources[vals[1].(string)] = true
			}
			return encodeRow(&buf, tb, vals)
		})
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		if err := put(tb.Name+".jsonl", buf.Bytes(), n); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
	}
	var ds bytes.Buffer
	sets := append([]report.Dataset(nil), o.Datasets...)
	sort.Slice(sets, func(i, j int) bool { return sets[i].Challenge < sets[j].Challenge })
	for _, d := range sets {
		line, err := json.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		ds.Write(line)
		ds.WriteByte('\n')
	}
	if err := put(datasetsFile, ds.Bytes(), len(sets)); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	exports := append([]string(nil), o.Exports...)
	sort.Slice(exports, func(i, j int) bool { return filepath.Base(exports[i]) < filepath.Base(exports[j]) })
	for _, p := range exports {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("bundle: export: %w", err)
		}
		if err := put(exportsDir+"/"+filepath.Base(p), b, 0); err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
	}
	for s := range sources {
		m.Sources = append(m.Sources, s)
	}
	sort.Strings(m.Sources)
	var mb bytes.Buffer
	mb.WriteString("# A rexmle results bundle (see README.md, \"Publishing your results\"): the inputs of the rank\n" +
		"# stage and the site. `go run mage.go report` on a checkout without the store builds the site from it.\n")
	if err := toml.NewEncoder(&mb).Encode(m); err != nil {
		return nil, fmt.Errorf("bundle: manifest: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(tmp, ManifestFile), mb.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp's 0700 would make the committed folder private
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if err := fsutil.SwapDir(tmp, dir); err != nil {
		return nil, fmt.Errorf("bundle: put %s in place: %w", dir, err)
	}
	return m, nil
}

// encodeRow writes one row as a JSON object, its fields in column order:
// text as a string, integers and numbers as JSON numbers (a number in its
// shortest exact form; ±Inf as the strings "Infinity" and "-Infinity"),
// blobs as base64 strings, NULL as null.
func encodeRow(buf *bytes.Buffer, tb store.BundleTable, vals []any) error {
	buf.WriteByte('{')
	for i, c := range tb.Columns {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, c.Name)
		buf.WriteByte(':')
		switch v := vals[i].(type) {
		case nil:
			buf.WriteString("null")
		case string:
			writeString(buf, v)
		case int64:
			buf.WriteString(strconv.FormatInt(v, 10))
		case float64:
			switch {
			case math.IsInf(v, 1):
				buf.WriteString(`"Infinity"`)
			case math.IsInf(v, -1):
				buf.WriteString(`"-Infinity"`)
			case math.IsNaN(v):
				buf.WriteString("null")
			default:
				buf.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			}
		case []byte:
			writeString(buf, base64.StdEncoding.EncodeToString(v))
		default:
			return fmt.Errorf("%s.%s: cannot encode a %T", tb.Name, c.Name, v)
		}
	}
	buf.WriteString("}\n")
	return nil
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

// Bundle is a bundle read and verified.
type Bundle struct {
	Dir      string
	Manifest Manifest
	Datasets []report.Dataset
}

// Open reads dir's manifest and verifies the bundle: the schema, every
// file listed present with its sha256, no file that is not listed. Errors
// name the file, and the field or line, and what was expected.
func Open(dir string) (*Bundle, error) {
	mp := filepath.Join(dir, ManifestFile)
	var m Manifest
	md, err := toml.DecodeFile(mp, &m)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", mp, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("bundle %s: unknown field %s (schema %d has schema, profile, tool_commit, tool_dirty, boot, boot_seed, sources, [[file]] name, sha256, rows)", mp, und[0], Schema)
	}
	if !md.IsDefined("schema") {
		return nil, fmt.Errorf("bundle %s: field schema missing: want %d", mp, Schema)
	}
	switch {
	case m.Schema > Schema:
		return nil, fmt.Errorf("bundle %s: field schema: bundle schema %d is newer than this rexmle reads (%d); update rexmle", mp, m.Schema, Schema)
	case m.Schema < Schema:
		return nil, fmt.Errorf("bundle %s: field schema: bundle schema %d is older than this rexmle reads (%d); write it again with `go run mage.go publish` from its store", mp, m.Schema, Schema)
	}
	if m.Profile == "" {
		return nil, fmt.Errorf("bundle %s: field profile missing", mp)
	}
	if m.Boot < 0 || m.BootSeed < 0 {
		return nil, fmt.Errorf("bundle %s: field boot/boot_seed: want numbers ≥ 0, got %d and %d", mp, m.Boot, m.BootSeed)
	}
	listed := map[string]bool{}
	for i, f := range m.Files {
		if !validName(f.Name) {
			return nil, fmt.Errorf("bundle %s: file %d: field name %q: want a file name of the bundle (exports/<name>.csv or a name without a folder)", mp, i+1, f.Name)
		}
		if listed[f.Name] {
			return nil, fmt.Errorf("bundle %s: file %q listed twice", mp, f.Name)
		}
		listed[f.Name] = true
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		if err != nil {
			return nil, fmt.Errorf("bundle %s: file %q: %w", mp, f.Name, err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
			return nil, fmt.Errorf("bundle %s: field sha256 of %q: the file's sha256 is %s, the manifest says %s (changed after it was written?)", mp, f.Name, got, f.SHA256)
		}
	}
	for _, tb := range store.BundleTables {
		if !listed[tb.Name+".jsonl"] {
			return nil, fmt.Errorf("bundle %s: no file %s.jsonl listed (schema %d bundles %s)", mp, tb.Name, Schema, tableNames())
		}
	}
	if !listed[datasetsFile] {
		return nil, fmt.Errorf("bundle %s: no file %s listed", mp, datasetsFile)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == ManifestFile {
			return nil
		}
		if !listed[rel] {
			return fmt.Errorf("bundle %s: file %s is not listed in %s", dir, rel, ManifestFile)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	bd := &Bundle{Dir: dir, Manifest: m, Datasets: []report.Dataset{}}
	if err := bd.readLines(datasetsFile, []string{"challenge", "input_hash", "files", "also_saw", "manifest_sha256", "raw"}, func(line int, raw []byte) error {
		var d report.Dataset
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			return err
		}
		bd.Datasets = append(bd.Datasets, d)
		return nil
	}); err != nil {
		return nil, err
	}
	return bd, nil
}

func tableNames() string {
	var n []string
	for _, tb := range store.BundleTables {
		n = append(n, tb.Name)
	}
	return strings.Join(n, ", ")
}

// validName accepts a plain file name or exports/<name>.csv.
func validName(n string) bool {
	base := strings.TrimPrefix(n, exportsDir+"/")
	if base == "" || strings.ContainsAny(base, `/\`) || base == "." || base == ".." || strings.HasPrefix(base, ".") || base == ManifestFile {
		return false
	}
	if base != n {
		return strings.HasSuffix(base, ".csv")
	}
	return strings.HasSuffix(n, ".jsonl")
}

// Exports are the paths of the bundle's CSV exports.
func (bd *Bundle) Exports() []string {
	var out []string
	for _, f := range bd.Manifest.Files {
		if strings.HasPrefix(f.Name, exportsDir+"/") {
			out = append(out, filepath.Join(bd.Dir, filepath.FromSlash(f.Name)))
		}
	}
	return out
}

// readLines calls fn with each line of a JSON Lines file of the bundle,
// after checking that it is an object with exactly the fields want.
func (bd *Bundle) readLines(name string, want []string, fn func(line int, raw []byte) error) error {
	path := filepath.Join(bd.Dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w] = true
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for i, raw := range lines {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return fmt.Errorf("bundle %s line %d: want one JSON object per line: %w", path, i+1, err)
		}
		for _, w := range want {
			if _, ok := obj[w]; !ok {
				return fmt.Errorf("bundle %s line %d: field %q missing", path, i+1, w)
			}
		}
		for k := range obj {
			if !wantSet[k] {
				return fmt.Errorf("bundle %s line %d: unknown field %q (schema %d has %s)", path, i+1, k, Schema, strings.Join(want, ", "))
			}
		}
		if err := fn(i+1, raw); err != nil {
			return fmt.Errorf("bundle %s line %d: %w", path, i+1, err)
		}
	}
	return nil
}

// Restore writes the bundle's rows into st, which must hold no runs but
// the paper's recorded ones, in one transaction after bringing in the
// benchmark's challenges. A run of a challenge benchmark.toml does not
// define is an error naming the file, line and field.
func (bd *Bundle) Restore(ctx context.Context, st *store.Store, b *config.Benchmark) error {
	holds, err := st.HoldsRuns(ctx)
	if err != nil {
		return err
	}
	if holds {
		return fmt.Errorf("bundle %s: the store %s already holds runs; a bundle is restored only into an empty store", bd.Dir, st.Path)
	}
	tables := make([][][]any, len(store.BundleTables))
	for ti, tb := range store.BundleTables {
		names := make([]string, len(tb.Columns))
		for i, c := range tb.Columns {
			names[i] = c.Name
		}
		err := bd.readLines(tb.Name+".jsonl", names, func(line int, raw []byte) error {
			vals, err := decodeRow(tb, raw)
			if err != nil {
				return err
			}
			if tb.Name == "runs" {
				if _, ok := b.Challenge(vals[4].(string)); !ok {
					return fmt.Errorf("field \"challenge_id\": challenge %q is not in %s", vals[4], filepath.Base(b.File))
				}
			}
			tables[ti] = append(tables[ti], vals)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		for ti, tb := range store.BundleTables {
			if err := tx.PutBundleRows(ctx, tb, tables[ti]); err != nil {
				return fmt.Errorf("bundle %s: %w", filepath.Join(bd.Dir, tb.Name+".jsonl"), err)
			}
		}
		return nil
	})
}

// decodeRow reads one line of a table's file into values of the column
// kinds.
func decodeRow(tb store.BundleTable, raw []byte) ([]any, error) {
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	vals := make([]any, len(tb.Columns))
	for i, c := range tb.Columns {
		v, err := decodeValue(c, obj[c.Name])
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", c.Name, err)
		}
		vals[i] = v
	}
	return vals, nil
}

func decodeValue(c store.BundleColumn, raw json.RawMessage) (any, error) {
	if string(raw) == "null" {
		if !c.Nullable {
			return nil, fmt.Errorf("null where a %s is required", c.Kind)
		}
		return nil, nil
	}
	quote := func() string {
		if len(raw) > 40 {
			return string(raw[:40]) + "…"
		}
		return string(raw)
	}
	var s string
	isString := json.Unmarshal(raw, &s) == nil
	switch c.Kind {
	case store.Text:
		if isString {
			return s, nil
		}
	case store.Blob:
		if isString {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("want base64 text: %w", err)
			}
			return b, nil
		}
	case store.Int:
		if !isString {
			if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
				return n, nil
			}
		}
	case store.Real:
		if isString {
			switch s {
			case "Infinity":
				return math.Inf(1), nil
			case "-Infinity":
				return math.Inf(-1), nil
			}
			break
		}
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && !math.IsInf(f, 0) {
			return f, nil
		}
	}
	want := map[store.ColumnKind]string{store.Text: "a string", store.Blob: "a base64 string", store.Int: "an integer",
		store.Real: `a number, "Infinity" or "-Infinity"`}[c.Kind]
	if c.Nullable {
		want += " or null"
	}
	return nil, fmt.Errorf("want %s, got %s", want, quote())
}
