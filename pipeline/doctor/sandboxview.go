package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
)

// view is the file system a local agent sees in its bwrap sandbox, built
// from the binds the runner gives it (runner.Job.SandboxPlan) and the
// system folders (sandbox.SystemMounts): an inside path is resolved,
// symlinks included, to the host file behind it, as the run will see it.
type view struct {
	binds []sandbox.Bind    // inside → host; RW binds are the run's folders, empty when it starts
	links map[string]string // inside path → symlink target (the /bin → usr/bin links)
	empty map[string]bool   // folders that exist inside and start empty (/tmp, /run)
	p     Probe
}

func newView(binds []sandbox.Bind, p Probe) *view {
	v := &view{links: map[string]string{}, empty: map[string]bool{}, p: p}
	for _, m := range sandbox.SystemMounts() {
		if m.Link != "" {
			v.links[m.Path] = m.Link
		} else {
			v.binds = append(v.binds, sandbox.Bind{Host: m.Path, Inside: m.Path})
		}
	}
	v.binds = append(v.binds, binds...)
	for _, d := range sandbox.Empty {
		v.empty[d] = true
	}
	return v
}

// what lookup finds at an inside path.
const (
	absent   = iota
	mapped   // a host path is behind it
	emptyDir // a folder that is empty when the run starts
	implied  // a folder holding mount points only (/, /home, /run/rexmle/bin)
)

func under(p, dir string) bool { return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/") }

func (v *view) lookup(p string) (string, int) {
	best := -1
	for i, b := range v.binds {
		if under(p, b.Inside) && (best < 0 || len(b.Inside) > len(v.binds[best].Inside)) {
			best = i
		}
	}
	if best >= 0 {
		b := v.binds[best]
		if b.RW { // the run's workspace, submission, logs and home: emptied before the agent starts
			if p == b.Inside {
				return "", emptyDir
			}
			return "", absent
		}
		return b.Host + strings.TrimPrefix(p, b.Inside), mapped
	}
	if v.empty[p] {
		return "", emptyDir
	}
	if p == "/" {
		return "", implied
	}
	for _, b := range v.binds {
		if strings.HasPrefix(b.Inside, p+"/") {
			return "", implied
		}
	}
	for l := range v.links {
		if strings.HasPrefix(l, p+"/") {
			return "", implied
		}
	}
	for d := range v.empty {
		if strings.HasPrefix(d, p+"/") {
			return "", implied
		}
	}
	return "", absent
}

func (v *view) lstat(p string) (fs.FileInfo, error) {
	if v.p.Lstat != nil {
		return v.p.Lstat(p)
	}
	return os.Lstat(p)
}

func (v *view) readlink(p string) (string, error) {
	if v.p.Readlink != nil {
		return v.p.Readlink(p)
	}
	return os.Readlink(p)
}

// errNotInside says that an inside path does not exist in the sandbox.
type errNotInside struct {
	inside string // the first path that is missing
	why    string
}

func (e *errNotInside) Error() string { return e.inside + " " + e.why }

// resolve returns the host file behind the inside path p, following
// symlinks as the sandbox does (an absolute target is resolved inside).
func (v *view) resolve(p string) (string, fs.FileInfo, error) {
	for hops := 0; hops < 40; hops++ {
		p = path.Clean("/" + p)
		comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
		cur, again := "/", false
		for i, c := range comps {
			if c == "" {
				continue
			}
			next := path.Join(cur, c)
			rest := path.Join(comps[i+1:]...)
			if t, ok := v.links[next]; ok {
				p, again = linkTarget(cur, t, rest), true
				break
			}
			host, kind := v.lookup(next)
			switch kind {
			case absent:
				why := "does not exist inside the sandbox"
				for _, b := range v.binds {
					if b.RW && under(next, b.Inside) {
						why = "is not there when the run starts: " + b.Inside + " starts empty"
					}
				}
				return "", nil, &errNotInside{next, why}
			case emptyDir:
				if rest != "" {
					return "", nil, &errNotInside{path.Join(next, rest), "is not there when the run starts: " + next + " starts empty"}
				}
				return "", nil, &errNotInside{next, "is an empty folder, not a file"}
			case implied:
				cur = next
				continue
			}
			fi, err := v.lstat(host)
			if err != nil {
				return "", nil, &errNotInside{next, fmt.Sprintf("does not exist inside the sandbox (it would be %s on this host)", host)}
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				t, err := v.readlink(host)
				if err != nil {
					return "", nil, fmt.Errorf("read link %s: %w", host, err)
				}
				p, again = linkTarget(cur, t, rest), true
				break
			}
			if rest != "" && !fi.IsDir() {
				return "", nil, &errNotInside{path.Join(next, rest), "does not exist inside the sandbox (" + next + " is a file)"}
			}
			cur = next
			if rest == "" {
				return host, fi, nil
			}
		}
		if !again {
			return "", nil, &errNotInside{p, "is a folder, not a file"}
		}
	}
	return "", nil, fmt.Errorf("%s: too many levels of symbolic links", p)
}

func linkTarget(dir, target, rest string) string {
	if !path.IsAbs(target) {
		target = path.Join(dir, target)
	}
	return path.Join(target, rest)
}

// interpreter matches programs whose first operand is a script file.
var interpreter = regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*|bash|sh|dash|zsh|ksh|perl[0-9.]*|ruby[0-9.]*|node|nodejs|Rscript|julia)$`)

// scriptArg returns the index in argv of the script an interpreter runs
// (its first operand), or -1 when there is none to check (no interpreter,
// python -m/-c, sh -c, a script read from stdin).
func scriptArg(argv []string) int {
	if len(argv) < 2 || !interpreter.MatchString(path.Base(argv[0])) {
		return -1
	}
	withValue := map[string]bool{"-X": true, "-W": true, "-e": true, "-E": true, "-I": false, "-o": true, "-O": false}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-m" || a == "-c" || a == "-" || a == "--eval" || a == "-e" && !strings.HasPrefix(path.Base(argv[0]), "python"):
			return -1
		case a == "--":
			if i+1 < len(argv) {
				return i + 1
			}
			return -1
		case strings.HasPrefix(a, "-"):
			if withValue[a] && strings.HasPrefix(path.Base(argv[0]), "python") {
				i++
			}
		default:
			return i
		}
	}
	return -1
}

// fileCheck is how one of the command's files looks from inside the sandbox.
type fileCheck struct {
	inside string // as the sandbox sees it
	host   string
	err    error
}

// checkSandboxCommand checks that the local agent's program and script
// exist inside its sandbox (argv and binds from runner.Job.SandboxPlan) and
// adds a row for each.
func checkSandboxCommand(r *Report, p Probe, a config.Agent, written, argv []string, binds []sandbox.Bind) {
	scope := []string{a.ID}
	v := newView(binds, p)
	nobody := os.Geteuid() == 0 // bwrap then runs as nobody: files must be readable by others
	prog := argv[0]
	var fc fileCheck
	if strings.Contains(prog, "/") {
		fc = v.file(prog, true, nobody)
	} else {
		fc = fileCheck{err: fmt.Errorf("it is not installed where the sandbox looks (its PATH: %s)", strings.ReplaceAll(sandbox.Path, ":", ", "))}
		for _, d := range strings.Split(sandbox.Path, ":") {
			if c := v.file(path.Join(d, prog), true, nobody); c.err == nil {
				fc = c
				break
			}
		}
	}
	item := a.ID + ": " + written[0]
	if fc.err != nil {
		r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: scope,
			Detail: fmt.Sprintf("the agent's program %q cannot run in the sandbox: %v. %s", written[0], fc.err, fixHint(a, written[0], prog, p))})
	} else {
		r.add(Check{Area: "executor", Item: item, Status: OK, Detail: fmt.Sprintf("%s in the sandbox (%s on this host)", fc.inside, fc.host)})
	}
	i := scriptArg(argv)
	var extra []int
	for k := 1; k < len(argv); k++ {
		if k != i && strings.HasPrefix(argv[k], config.CodeMount+"/") {
			extra = append(extra, k) // any other argument naming a file of the code folder
		}
	}
	if i > 0 {
		extra = append([]int{i}, extra...)
	}
	for _, k := range extra {
		s := argv[k]
		inside := s
		if !path.IsAbs(s) {
			inside = path.Join("/workspace", s) // the sandbox's working folder
		}
		c := v.file(inside, false, nobody)
		item := a.ID + ": " + written[min(k, len(written)-1)]
		if c.err != nil {
			r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: scope,
				Detail: fmt.Sprintf("the agent's script %q cannot be read in the sandbox: %v. %s", s, c.err, fixHint(a, s, inside, p))})
		} else {
			r.add(Check{Area: "executor", Item: item, Status: OK, Detail: fmt.Sprintf("%s in the sandbox (%s on this host)", c.inside, c.host)})
		}
	}
}

// file resolves inside and checks it is a regular file (executable when
// exec) that the sandbox's user can read.
func (v *view) file(inside string, exec, nobody bool) fileCheck {
	host, fi, err := v.resolve(inside)
	if err != nil {
		return fileCheck{inside: inside, err: err}
	}
	c := fileCheck{inside: inside, host: host}
	switch {
	case !fi.Mode().IsRegular():
		c.err = fmt.Errorf("%s is not a regular file", inside)
	case exec && fi.Mode()&0o111 == 0:
		c.err = fmt.Errorf("%s is not executable (chmod +x %s)", inside, host)
	case nobody && fi.Mode()&0o004 == 0:
		c.err = fmt.Errorf("%s cannot be read by the sandbox: the pipeline runs as root, so the sandbox runs as nobody; chmod o+r %s", inside, host)
	case nobody && exec && fi.Mode()&0o001 == 0:
		c.err = fmt.Errorf("%s cannot be run by the sandbox: the pipeline runs as root, so the sandbox runs as nobody; chmod o+x %s", inside, host)
	case nobody:
		if err := sandbox.Reachable(host); err != nil { // every folder on the way must be searchable by nobody
			c.err = fmt.Errorf("%s cannot be reached by the sandbox: %v", inside, strings.TrimPrefix(err.Error(), "sandbox: "))
		}
	}
	return c
}

// fixHint says what to do about a file the sandbox cannot see.
func fixHint(a config.Agent, written, inside string, p Probe) string {
	shows := "The sandbox shows only /usr, /bin, /lib*, /etc, /opt of this host, the agent's code folder at " + config.CodeMount + " and the run's folders (/data, /workspace, /submission, /logs, /home/agent)"
	switch {
	case !path.IsAbs(written) && !strings.Contains(written, "/") && inside == written:
		return shows + ": install it under /usr or /opt, or put it in the agent's code folder (code = \"<folder>\") and name it " + config.CodeMount + "/" + written
	case !path.IsAbs(written):
		return "A relative path is read from the run's empty working folder /workspace; " + shows + ": put the file in the agent's code folder and name it " + config.CodeMount + "/… or {code}/…"
	case a.Code != "" && under(written, config.CodeMount):
		return "The agent's code folder is " + a.Code + ", bound at " + config.CodeMount + ": check the file's name there"
	}
	if _, err := lstatOf(p)(written); err == nil && !under(written, "/usr") && !under(written, "/opt") {
		dir := filepath.Dir(written)
		return shows + fmt.Sprintf(": it is on this host outside them; set code = %q on agent %s and name it %s (or {code}/%s)",
			dir, a.ID, path.Join(config.CodeMount, filepath.Base(written)), filepath.Base(written))
	}
	return shows
}

func lstatOf(p Probe) func(string) (fs.FileInfo, error) {
	if p.Lstat != nil {
		return p.Lstat
	}
	return os.Lstat
}

// checkCodeFolder adds the row of an agent's code folder: it must be a
// folder the sandbox can reach.
func checkCodeFolder(r *Report, p Probe, a config.Agent) bool {
	item := a.ID + ": code"
	fi, err := statFollow(p, a.Code)
	switch {
	case err != nil:
		r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: []string{a.ID},
			Detail: fmt.Sprintf("the agent's code folder %s does not exist (code = relative to the folder of benchmark.toml, or absolute): %v", a.Code, unwrapPath(err))})
		return false
	case !fi.IsDir():
		r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: []string{a.ID},
			Detail: fmt.Sprintf("the agent's code %s is not a folder: set code to the folder holding it", a.Code)})
		return false
	}
	if err := sandbox.Reachable(filepath.Join(a.Code, ".")); err != nil && (a.Executor == "" || a.Executor == "local") && a.Sandbox != "none" {
		r.add(Check{Area: "executor", Item: item, Status: Fail, Agents: []string{a.ID}, Detail: err.Error()})
		return false
	}
	r.add(Check{Area: "executor", Item: item, Status: OK, Detail: fmt.Sprintf("%s, read-only at %s", a.Code, config.CodeMount)})
	return true
}

func statFollow(p Probe, name string) (fs.FileInfo, error) {
	fi, err := lstatOf(p)(name)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 && p.Lstat == nil {
		return os.Stat(name)
	}
	return fi, err
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
