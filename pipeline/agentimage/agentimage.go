// Package agentimage builds the agents' container images: every
// agents/<id>/Containerfile, with agents/ as the build context (so that the
// recipes share agents/adaptkit.py instead of each keeping a copy), by
// docker or podman, tagged rexmle-<id>:<hash> and rexmle-<id>:latest where
// <hash> is a digest of the recipe folder's files and of the files directly
// in agents/ that every recipe may copy. A folder whose hash tag already
// exists in the engine's store is up to date and is not rebuilt. Each build
// is appended to results/agent-images.jsonl (agent, engine, tag, image id,
// hash, time) with what the image resolved to: its base images (the FROM
// references, ARG defaults applied, with their image ids and registry
// digests) and the Python distributions installed in it with their
// versions (read by running the image once, without network, as
// `pip list` would list them). An image that is up to date but has no
// record yet (built before, or by hand) is recorded too. Each agent is
// built with the engine the runner will use for it: its `engine` in
// benchmark.toml, else $REXMLE_ENGINE, else docker.
package agentimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// Containerfile is the recipe's file name in agents/<id>/.
const Containerfile = "Containerfile"

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Options says what to build.
type Options struct {
	AgentsDir string   // the folder holding one folder per agent
	Engine    string   // "docker" or "podman"; empty: $REXMLE_ENGINE, else docker
	IDs       []string // only these agents; empty: every folder with a Containerfile
	// Engines overrides Engine per agent id (benchmark.toml's engine).
	Engines map[string]string
	Force   bool   // rebuild even when up to date
	Record  string // JSON-lines file the builds are appended to; empty: none
	Log     *slog.Logger
}

// Result is one agent's image.
type Result struct {
	Agent   string    `json:"agent"`
	Engine  string    `json:"engine"`
	Tag     string    `json:"tag"` // rexmle-<id>:<hash>
	ImageID string    `json:"image_id"`
	Hash    string    `json:"hash"`
	Built   bool      `json:"built"` // false: it was up to date
	Seconds float64   `json:"seconds"`
	At      time.Time `json:"at"`
	// What the image resolved to (recorded images only).
	Bases    []BaseImage `json:"base_images,omitempty"`
	Versions *Versions   `json:"versions,omitempty"`
}

// BaseImage is one FROM of a recipe as the build resolved it.
type BaseImage struct {
	Ref     string   `json:"ref"`               // as FROM names it, ARG defaults applied
	ID      string   `json:"id,omitempty"`      // the engine's image id
	Digests []string `json:"digests,omitempty"` // repository@sha256:… of the registry manifest (none for a local image)
	Error   string   `json:"error,omitempty"`   // why it could not be inspected
}

// Versions is what a built image holds, read by running it.
type Versions struct {
	Python   string    `json:"python,omitempty"`
	Packages []Package `json:"packages"`        // every installed distribution, sorted by name
	Error    string    `json:"error,omitempty"` // why they could not be read
}

// Package is one installed Python distribution.
type Package struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// FromSettings builds the images of the checkout holding s.Config: its
// agents/ folder, the engine s.Engine (REXMLE_ENGINE), the agents s.Agents
// (else those of the profile that have a recipe, when REXMLE_PROFILE is
// set; else all), a rebuild with s.Force; the record goes to
// results/agent-images.jsonl. This is `mage agents`.
func FromSettings(ctx context.Context, s settings.Settings) error {
	cfg := s.Config
	root := filepath.Dir(cfg)
	o := Options{AgentsDir: filepath.Join(root, "agents"), Record: filepath.Join(root, "results", "agent-images.jsonl"),
		Force: s.Force, Engine: s.Engine, IDs: s.Agents}
	if engines, err := AgentEngines(cfg); err != nil {
		return err
	} else {
		o.Engines = engines
	}
	if prof := s.Profile; len(o.IDs) == 0 && s.ProfileSet {
		ids, err := ProfileRecipes(cfg, prof, o.AgentsDir)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			fmt.Printf("agents: profile %s runs no agent from a container recipe; nothing to build\n", prof)
			return nil
		}
		o.IDs = ids
	}
	res, err := Build(ctx, o)
	Print(os.Stdout, res)
	return err
}

// Print writes one line per image (built, with the engine and the time it
// took, or up to date) and a totals line.
func Print(w io.Writer, res []Result) {
	built := 0
	for _, r := range res {
		if r.Built {
			built++
			fmt.Fprintf(w, "  %-14s built %s with %s in %.1fs\n", r.Agent, r.Tag, r.Engine, r.Seconds)
		} else {
			fmt.Fprintf(w, "  %-14s up to date: %s (%s)\n", r.Agent, r.Tag, r.Engine)
		}
	}
	fmt.Fprintf(w, "agents: %d images built, %d up to date\n", built, len(res)-built)
}

// Engine checks an engine name: "" is docker.
func Engine(e string) (string, error) {
	return settings.ResolveEngine(e, "engine", "")
}

// Agents lists the agent ids with a Containerfile under dir, sorted.
func Agents(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("agent recipes: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), Containerfile)); err == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// Tag is the image tag of the recipe folder dir of agent id:
// rexmle-<id>:<first 16 hex digits of the recipe's hash> (see RecipeHash).
func Tag(id, dir string) (tag, hash string, err error) {
	hash, err = RecipeHash(dir)
	if err != nil {
		return "", "", err
	}
	return Repository(id) + ":" + hash[:16], hash, nil
}

// RecipeHash digests what a recipe's build can read: the recipe folder dir
// (HashDir) and the regular files directly in its parent, the build
// context's shared files (agents/adaptkit.py, agents/README.md).
func RecipeHash(dir string) (string, error) {
	own, err := HashDir(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "recipe\x00%s\x00", own)
	parent := filepath.Dir(dir)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", parent, err)
	}
	for _, e := range ents { // ReadDir sorts by name
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(parent, e.Name()))
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", parent, err)
		}
		fmt.Fprintf(h, "shared\x00%s\x00%d\x00", e.Name(), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Repository is the image name of agent id, as benchmark.toml's image
// refers to it (rexmle-<id>, i.e. rexmle-<id>:latest).
func Repository(id string) string { return "rexmle-" + id }

// HashDir digests every regular file and symlink under dir: its path
// relative to dir, its executable bit and its content (a symlink: its
// target), in path order. Anything else (a FIFO, a device) is an error.
func HashDir(dir string) (string, error) {
	type entry struct {
		rel  string
		path string
		mode fs.FileMode
	}
	var ents []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		t := d.Type()
		if !t.IsRegular() && t&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s: not a regular file or a symlink (%s)", p, t)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		ents = append(ents, entry{filepath.ToSlash(rel), p, fi.Mode()})
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", dir, err)
	}
	sort.Slice(ents, func(a, b int) bool { return ents[a].rel < ents[b].rel })
	h := sha256.New()
	for _, e := range ents {
		kind := "f"
		if e.mode&fs.ModeSymlink != 0 {
			kind = "l"
		} else if e.mode&0o111 != 0 {
			kind = "x"
		}
		fmt.Fprintf(h, "%s\x00%s\x00", kind, e.rel)
		if kind == "l" {
			target, err := os.Readlink(e.path)
			if err != nil {
				return "", fmt.Errorf("hash %s: %w", dir, err)
			}
			fmt.Fprintf(h, "%s\x00", target)
			continue
		}
		f, err := os.Open(e.path)
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", dir, err)
		}
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("hash %s: %w", e.path, err)
		}
		fmt.Fprintf(h, "\x00%d\x00", n)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Build builds the selected agents' images, one after the other, skipping
// those up to date. It goes on after a failed agent and returns every
// failure, each naming the agent and the engine's message.
func Build(ctx context.Context, o Options) ([]Result, error) {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	def, err := Engine(o.Engine)
	if err != nil {
		return nil, err
	}
	ids := o.IDs
	if len(ids) == 0 {
		if ids, err = Agents(o.AgentsDir); err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return nil, fmt.Errorf("agent images: no %s under %s", Containerfile, o.AgentsDir)
		}
	}
	var out []Result
	var errs []error
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if !idPattern.MatchString(id) {
			errs = append(errs, fmt.Errorf("agent %q: want an id of lower-case letters, digits, '.', '_' or '-'", id))
			continue
		}
		engine := def
		if e := o.Engines[id]; e != "" {
			if engine, err = Engine(e); err != nil {
				errs = append(errs, fmt.Errorf("agent %s: %w", id, err))
				continue
			}
		}
		bin, err := exec.LookPath(engine)
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %s: engine %s not found (install it, or set the agent's engine or REXMLE_ENGINE to docker|podman): %w", id, engine, err))
			continue
		}
		dir := filepath.Join(o.AgentsDir, id)
		r, err := buildOne(ctx, bin, engine, id, dir, o.Force, log)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if o.Record != "" && (r.Built || !recorded(o.Record, engine, r.Tag)) {
			resolve(ctx, bin, dir, &r, log)
			if err := appendRecord(o.Record, r); err != nil {
				errs = append(errs, fmt.Errorf("agent %s: record the image: %w", id, err))
			}
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

func buildOne(ctx context.Context, bin, engine, id, dir string, force bool, log *slog.Logger) (Result, error) {
	fail := func(err error) (Result, error) { return Result{}, fmt.Errorf("agent %s (%s): %w", id, engine, err) }
	if _, err := os.Stat(filepath.Join(dir, Containerfile)); err != nil {
		return fail(fmt.Errorf("no recipe: %w", err))
	}
	tag, hash, err := Tag(id, dir)
	if err != nil {
		return fail(err)
	}
	r := Result{Agent: id, Engine: engine, Tag: tag, Hash: hash, At: time.Now().UTC()}
	if !force {
		if imgID, err := inspect(ctx, bin, tag); err == nil {
			r.ImageID = imgID
			log.Info("agent image up to date", "agent", id, "tag", tag)
			return r, nil
		}
	}
	log.Info("building agent image", "agent", id, "engine", engine, "tag", tag)
	start := time.Now()
	if err := ensureLocalBase(ctx, bin, dir, log); err != nil {
		return fail(err)
	}
	args := []string{"build", "-f", filepath.Join(dir, Containerfile), "-t", tag, "-t", Repository(id) + ":latest",
		"--label", "io.rexmle.agent=" + id, "--label", "io.rexmle.recipe-hash=" + hash, filepath.Dir(dir)}
	cmd := exec.CommandContext(ctx, bin, args...)
	var buf tailBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fail(fmt.Errorf("%s build: %w: %s", engine, err, buf.tail(2000)))
	}
	r.Seconds = time.Since(start).Seconds()
	if r.ImageID, err = inspect(ctx, bin, tag); err != nil {
		return fail(fmt.Errorf("built, but %w", err))
	}
	r.Built = true
	log.Info("built agent image", "agent", id, "tag", tag, "image", r.ImageID, "seconds", fmt.Sprintf("%.1f", r.Seconds))
	return r, nil
}

// inspect returns the image id of ref, or an error when the engine has no such image.
func inspect(ctx context.Context, bin, ref string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "image", "inspect", "--format", "{{.Id}}", ref)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("image inspect %s: %w: %s", ref, err, strings.TrimSpace(stderr.String()))
	}
	id := strings.TrimSpace(stdout.String())
	if id == "" {
		return "", fmt.Errorf("image inspect %s: no id", ref)
	}
	return id, nil
}

func appendRecord(path string, r Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tailBuffer keeps the last 64 KiB of the engine's output.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	const max = 64 << 10
	t.b = append(t.b, p...)
	if len(t.b) > max {
		t.b = t.b[len(t.b)-max:]
	}
	return len(p), nil
}

// tail returns at most n trailing bytes of the output, trimmed.
func (t *tailBuffer) tail(n int) string {
	s := strings.TrimSpace(string(t.b))
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// LocalBase is the base image of a recipe that ships RootfsScript: an
// image imported from this machine's own Python, so that it builds with no
// registry (the stand-in's default BASE).
const (
	LocalBase    = "localhost/rexmle-python-base:latest"
	RootfsScript = "python-rootfs.sh"
)

// ensureLocalBase imports LocalBase from the tar that dir's RootfsScript
// writes, when the recipe has such a script and the engine lacks the image.
// Recipes without the script are left alone.
//
// A recipe of one's own that starts FROM LocalBase (the documented base for
// custom containers) without shipping the script gets the stand-in's
// (agents/standin/python-rootfs.sh beside it): no engine can pull a
// localhost/ image from a registry.
func ensureLocalBase(ctx context.Context, bin, dir string, log *slog.Logger) error {
	script := filepath.Join(dir, RootfsScript)
	if _, err := os.Stat(script); err != nil {
		cf, rerr := os.ReadFile(filepath.Join(dir, Containerfile))
		if rerr != nil || !strings.Contains(string(cf), LocalBase) {
			return nil
		}
		script = filepath.Join(filepath.Dir(dir), "standin", RootfsScript)
	}
	if _, err := inspect(ctx, bin, LocalBase); err == nil {
		return nil
	}
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("base image %s: the Containerfile starts from it, which no registry serves, and %s (which builds it from this machine's Python) is missing", LocalBase, script)
	}
	tmp, err := os.MkdirTemp("", "rexmle-base-")
	if err != nil {
		return fmt.Errorf("base image %s: %w", LocalBase, err)
	}
	defer os.RemoveAll(tmp)
	tarball := filepath.Join(tmp, "rootfs.tar")
	log.Info("importing the local base image", "image", LocalBase, "from", script)
	var buf tailBuffer
	cmd := exec.CommandContext(ctx, "sh", script, tarball)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("base image %s: %s: %w: %s", LocalBase, script, err, buf.tail(2000))
	}
	buf = tailBuffer{}
	cmd = exec.CommandContext(ctx, bin, "import", tarball, LocalBase)
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("base image %s: import: %w: %s", LocalBase, err, buf.tail(2000))
	}
	return nil
}

// AgentEngines maps each agent of the benchmark file cfg that sets an
// engine to it.
func AgentEngines(cfg string) (map[string]string, error) {
	b, err := config.Load(cfg)
	if err != nil {
		return nil, fmt.Errorf("agent images: %w", err)
	}
	m := map[string]string{}
	for _, a := range b.Agents {
		if a.Engine != "" {
			m[a.ID] = a.Engine
		}
	}
	return m, nil
}

// recorded reports whether the record file holds a line for tag built by engine.
func recorded(path, engine, tag string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		var r struct{ Engine, Tag string }
		if json.Unmarshal([]byte(l), &r) == nil && r.Engine == engine && r.Tag == tag {
			return true
		}
	}
	return false
}

// resolve records what the image r.Tag resolved to: its base images and
// the Python distributions in it. A failure is recorded in the result, not
// returned: the image is built either way.
func resolve(ctx context.Context, bin, dir string, r *Result, log *slog.Logger) {
	refs, err := BaseRefs(filepath.Join(dir, Containerfile))
	if err != nil {
		r.Bases = []BaseImage{{Error: err.Error()}}
	}
	for _, ref := range refs {
		r.Bases = append(r.Bases, inspectBase(ctx, bin, ref))
	}
	r.Versions = readVersions(ctx, bin, r.Tag)
	if r.Versions.Error != "" {
		log.Warn("agent image: versions not read", "agent", r.Agent, "tag", r.Tag, "err", r.Versions.Error)
	}
}

// BaseRefs returns the images a Containerfile builds FROM, in order: ARG
// defaults declared before the first FROM substituted for $NAME and
// ${NAME}, stages named AS earlier and scratch left out.
func BaseRefs(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	expand := func(s string) string {
		return os.Expand(s, func(k string) string { return args[k] })
	}
	stages := map[string]bool{}
	var refs []string
	var text strings.Builder
	for _, l := range strings.Split(string(b), "\n") { // join continued lines
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			continue
		}
		if strings.HasSuffix(t, "\\") {
			text.WriteString(strings.TrimSuffix(t, "\\") + " ")
			continue
		}
		text.WriteString(t + "\n")
	}
	seenFrom := false
	for _, l := range strings.Split(text.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "ARG":
			if !seenFrom {
				for _, kv := range f[1:] {
					k, v, _ := strings.Cut(kv, "=")
					args[k] = expand(strings.Trim(v, `"'`))
				}
			}
		case "FROM":
			seenFrom = true
			rest := f[1:]
			for len(rest) > 0 && strings.HasPrefix(rest[0], "--") {
				rest = rest[1:]
			}
			if len(rest) == 0 {
				continue
			}
			ref := expand(rest[0])
			if ref != "scratch" && ref != "" && !stages[strings.ToLower(ref)] {
				refs = append(refs, ref)
			}
			if len(rest) >= 3 && strings.EqualFold(rest[1], "AS") {
				stages[strings.ToLower(rest[2])] = true
			}
		}
	}
	return refs, nil
}

func inspectBase(ctx context.Context, bin, ref string) BaseImage {
	bi := BaseImage{Ref: ref}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "image", "inspect", "--format", "{{.Id}} {{json .RepoDigests}}", ref)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		bi.Error = fmt.Sprintf("image inspect: %v: %s", err, strings.TrimSpace(stderr.String()))
		return bi
	}
	id, digests, _ := strings.Cut(strings.TrimSpace(stdout.String()), " ")
	bi.ID = id
	if err := json.Unmarshal([]byte(digests), &bi.Digests); err != nil {
		bi.Error = fmt.Sprintf("image inspect: repo digests %q: %v", digests, err)
	}
	return bi
}

// versionsScript prints the image's Python version and every installed
// distribution (importlib.metadata: what pip list shows, without needing
// pip in the image).
const versionsScript = `import json, sys
try:
    import importlib.metadata as m
    pk = {}
    for d in m.distributions():
        n = d.metadata["Name"]
        if n:
            pk[n] = d.version
except Exception as e:
    print(json.dumps({"python": sys.version.split()[0], "error": "importlib.metadata: %s" % e})); sys.exit(0)
print(json.dumps({"python": sys.version.split()[0], "packages": [{"name": k, "version": pk[k]} for k in sorted(pk, key=str.lower)]}))
`

// readVersions runs the image once (no network, its own python3 on its
// PATH) and reads what versionsScript prints.
func readVersions(ctx context.Context, bin, tag string) *Versions {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "run", "--rm", "--pull", "never", "--network", "none", "--entrypoint", "python3", tag, "-c", versionsScript)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	v := &Versions{Packages: []Package{}}
	if err := cmd.Run(); err != nil {
		v.Error = fmt.Sprintf("python3 in the image: %v: %s", err, lastLine(stderr.String()))
		return v
	}
	var got struct {
		Python   string    `json:"python"`
		Packages []Package `json:"packages"`
		Error    string    `json:"error"`
	}
	if err := json.Unmarshal([]byte(lastLine(stdout.String())), &got); err != nil {
		v.Error = fmt.Sprintf("read the image's versions: %v: %s", err, lastLine(stdout.String()))
		return v
	}
	v.Python, v.Error = got.Python, got.Error
	if got.Packages != nil {
		v.Packages = got.Packages
	}
	return v
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// ProfileRecipes lists the agents of profile prof in the benchmark file cfg
// that have a recipe under agentsDir, in the profile's order.
func ProfileRecipes(cfg, prof, agentsDir string) ([]string, error) {
	b, err := config.Load(cfg)
	if err != nil {
		return nil, fmt.Errorf("agent images: %w", err)
	}
	p, err := b.Profile(prof)
	if err != nil {
		return nil, fmt.Errorf("agent images: %w", err)
	}
	var ids []string
	for _, id := range p.Agents {
		if _, err := os.Stat(filepath.Join(agentsDir, id, Containerfile)); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
