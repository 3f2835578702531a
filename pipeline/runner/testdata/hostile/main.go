// Command hostile is a fake agent for the container executor's tests. It is
// built static (CGO_ENABLED=0) and imported as the only file of a tiny
// image, so it needs no shell and no library. Each mode tries something an
// agent must not be able to do, or leaves something behind, and reports
// what happened as JSON.
//
//	hostile probe OUT PRIVATE_PATHS(comma-separated) DIAL_ADDR
//	hostile ignore-term SECONDS
//	hostile daemon TOKEN
//	hostile leave-junk
//	hostile limits OUT
//	hostile badlogs MODE [ARG]  (package hostileagent)
//	hostile hog MODE ARGS       (package hostileagent)
package main

import (
	"encoding/json"
	"fmt"
	"github.com/rexmle/rexmle/pipeline/runner/internal/egressprobe"
	"github.com/rexmle/rexmle/pipeline/runner/internal/hostileagent"
	"github.com/rexmle/rexmle/pipeline/runner/internal/swaprace"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Report is what probe found.
type Report struct {
	UID         int      `json:"uid"`
	GID         int      `json:"gid"`
	CapEff      string   `json:"cap_eff"`
	NoNewPrivs  string   `json:"no_new_privs"`
	Files       int      `json:"files"`         // files read by the walk of /
	Found       []string `json:"found"`         // files holding the secret
	Direct      []string `json:"direct"`        // private host paths it could open
	Wrote       []string `json:"wrote"`         // places it wrote to that it should not
	Mounts      []string `json:"mounts"`        // mount changes that succeeded
	MountErrs   []string `json:"mount_errs"`    // why the others failed
	Dial        string   `json:"dial"`          // "connected" or the error
	Validation  string   `json:"validation"`    // dialling the validation socket: "connected" or the error
	Public      bool     `json:"public_seen"`   // /data/train.csv was readable
	WroteOwn    bool     `json:"wrote_own"`     // it could write its submission
	EnvLeaks    []string `json:"env_leaks"`     // variables holding the secret
	HomeIsTmp   bool     `json:"home_is_tmp"`   // HOME=/tmp
	RootWritErr string   `json:"root_writ_err"` // why writing into / failed
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: hostile MODE ...")
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "probe":
		os.Exit(probe(args[0], strings.Split(args[1], ","), args[2]))
	case "swaprace": // swaprace OUT SUBMISSION N TARGET...
		os.Exit(swaprace.Main(args))
	case "egress": // egress OUT ALLOWED_ADDR REFUSED_ADDR
		os.Exit(egressprobe.Main(args))
	case "badlogs": // see package hostileagent
		os.Exit(hostileagent.BadLogs(args))
	case "hog":
		os.Exit(hostileagent.Hog(args))
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		d, _ := strconv.ParseFloat(args[0], 64)
		fmt.Println("ignoring SIGTERM")
		time.Sleep(time.Duration(d * float64(time.Second)))
	case "daemon":
		// A setsid grandchild that keeps writing into the submission; the
		// agent itself exits at once.
		cmd := exec.Command("/proc/self/exe", "daemon-child", args[0])
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		time.Sleep(300 * time.Millisecond) // let it write once
	case "daemon-child":
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		for i := 0; ; i++ {
			f, err := os.OpenFile("/submission/daemon.txt", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, i, args[0])
				f.Close()
			}
			time.Sleep(50 * time.Millisecond)
		}
	case "leave-junk":
		// A FIFO named like a submission and a 2 GB sparse file.
		if err := syscall.Mkfifo("/submission/submission.csv", 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mkfifo:", err)
			os.Exit(1)
		}
		f, err := os.Create("/submission/big.csv")
		if err == nil {
			err = f.Truncate(2 << 30)
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "sparse:", err)
			os.Exit(1)
		}
	case "limits":
		// The cgroup limits (v2, else v1) and the /dev/shm size it runs under.
		read := func(paths ...string) string {
			for _, p := range paths {
				if b, err := os.ReadFile(p); err == nil {
					return strings.TrimSpace(string(b))
				}
			}
			return ""
		}
		l := map[string]string{
			"memory":     read("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"),
			"pids":       read("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max"),
			"cpu_max":    read("/sys/fs/cgroup/cpu.max"),
			"cpu_quota":  read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us"),
			"cpu_period": read("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us"),
		}
		mounts, _ := os.ReadFile("/proc/self/mounts")
		for _, line := range strings.Split(string(mounts), "\n") {
			if f := strings.Fields(line); len(f) > 3 && f[1] == "/dev/shm" {
				l["shm"] = f[3]
			}
		}
		b, _ := json.Marshal(l)
		if err := os.WriteFile(args[0], b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}

func probe(out string, privs []string, dial string) int {
	secret := os.Getenv("PROBE_SECRET")
	r := Report{UID: os.Getuid(), GID: os.Getgid(), HomeIsTmp: os.Getenv("HOME") == "/tmp"}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				switch k {
				case "CapEff":
					r.CapEff = strings.TrimSpace(v)
				case "NoNewPrivs":
					r.NoNewPrivs = strings.TrimSpace(v)
				}
			}
		}
	}
	filepath.WalkDir("/", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (p == "/proc" || p == "/sys" || p == "/dev") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		b := make([]byte, 1<<20)
		n, _ := f.Read(b)
		r.Files++
		if strings.Contains(string(b[:n]), secret) {
			r.Found = append(r.Found, p)
		}
		return nil
	})
	for _, p := range privs {
		for _, q := range []string{p, "/proc/1/root" + p} {
			if b, err := os.ReadFile(q); err == nil && strings.Contains(string(b), secret) {
				r.Direct = append(r.Direct, q)
			}
		}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROBE_SECRET=") && strings.Contains(kv, secret) {
			r.EnvLeaks = append(r.EnvLeaks, kv)
		}
	}
	_, err := os.ReadFile("/data/train.csv")
	r.Public = err == nil
	for _, p := range []string{"/data/planted.csv", "/planted", "/etc/planted"} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err == nil {
			r.Wrote = append(r.Wrote, p)
		} else if p == "/planted" {
			r.RootWritErr = err.Error()
		}
	}
	r.WroteOwn = os.WriteFile("/submission/submission.csv", []byte("case,label\n1,0\n"), 0o644) == nil
	try := func(what string, err error) {
		if err == nil {
			r.Mounts = append(r.Mounts, what)
		} else {
			r.MountErrs = append(r.MountErrs, what+": "+err.Error())
		}
	}
	try("remount /data rw", syscall.Mount("", "/data", "", syscall.MS_REMOUNT|syscall.MS_BIND, ""))
	try("remount / rw", syscall.Mount("", "/", "", syscall.MS_REMOUNT, ""))
	try("umount -l /data", syscall.Unmount("/data", syscall.MNT_DETACH))
	try("umount -l /submission", syscall.Unmount("/submission", syscall.MNT_DETACH))
	try("mount tmpfs", syscall.Mount("tmpfs", "/tmp", "tmpfs", 0, ""))
	r.Dial = "connected"
	if c, err := net.DialTimeout("tcp", dial, 2*time.Second); err != nil {
		r.Dial = err.Error()
	} else {
		c.Close()
	}
	if sock := os.Getenv("REXMLE_VALIDATE_SOCKET"); sock != "" {
		r.Validation = "connected"
		if c, err := net.DialTimeout("unix", sock, 2*time.Second); err != nil {
			r.Validation = err.Error()
		} else {
			c.Close()
		}
	}
	b, _ := json.MarshalIndent(r, "", " ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
