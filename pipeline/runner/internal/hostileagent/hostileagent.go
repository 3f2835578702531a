// Package hostileagent is what the runner's hardening tests run as an
// agent, shared by the sandbox tests (run by the test binary itself) and
// the static container test agent (testdata/hostile): agents that leave
// logs the pipeline must not trust, files that must not keep their modes
// on the host, and agents that take too much of a resource.
package hostileagent

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// BadLogs is MODE [ARG]: an agent that leaves logs the pipeline must not trust.
//
//	fifo          console.log and working_time.json replaced by FIFOs
//	sparse        console.log and working_time.json made 3 GiB sparse files
//	link TARGET   working_time.json a link to TARGET (a host path)
//	setuid        a setuid/setgid executable, a world-writable file, a
//	              setgid world-writable folder, a FIFO and a socket in
//	              /workspace, /logs and the home; /logs/mounts.txt gets
//	              the mount options of the run's folders
func BadLogs(args []string) int {
	fmt.Println("REXMLE_WORKING_SECONDS=3")
	switch args[0] {
	case "fifo":
		os.Remove("/logs/console.log")
		for _, p := range []string{"/logs/console.log", "/logs/working_time.json"} {
			if err := syscall.Mkfifo(p, 0o666); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	case "sparse":
		// console.log is the pipeline's file: the agent has it as its
		// stdout, not by path.
		if err := syscall.Ftruncate(1, 3<<30); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Stdout.Seek(0, io.SeekEnd)
		fmt.Print("\nREXMLE_WORKING_SECONDS=5\n")
		f, err := os.Create("/logs/working_time.json")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f.Truncate(3 << 30)
		f.Close()
	case "link":
		if err := os.Symlink(args[1], "/logs/working_time.json"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "setuid":
		self, _ := os.ReadFile("/proc/self/exe")
		for _, d := range []string{"/workspace", "/logs", os.Getenv("HOME")} {
			if err := os.WriteFile(d+"/suid", self[:4096], 0o755); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			os.Chmod(d+"/suid", 0o6755|os.ModeSetuid|os.ModeSetgid)
			os.WriteFile(d+"/world-writable", []byte("x"), 0o666)
			os.Chmod(d+"/world-writable", 0o666)
			os.Mkdir(d+"/shared", 0o777)
			os.Chmod(d+"/shared", 0o777|os.ModeSetgid|os.ModeSticky)
			syscall.Mkfifo(d+"/fifo", 0o666)
			if ln, err := net.Listen("unix", d+"/sock"); err == nil {
				ln.(*net.UnixListener).SetUnlinkOnClose(false)
				ln.Close()
			}
		}
		mi, _ := os.ReadFile("/proc/self/mountinfo")
		var out []string
		for _, l := range strings.Split(string(mi), "\n") {
			if f := strings.Fields(l); len(f) > 5 && (f[4] == "/workspace" || f[4] == "/logs" || f[4] == "/submission" || f[4] == "/data") {
				out = append(out, f[4]+" "+f[5])
			}
		}
		os.WriteFile("/logs/mounts.txt", []byte(strings.Join(out, "\n")), 0o644)
	}
	return 0
}

// Hog is MODE ARGS: an agent that takes too much of something; it writes
// what it got to /logs/hog.json as it goes.
//
//	fork N               start N sleeping processes
//	forkhold N           the same, holding them 4 s before it ends
//	mem BYTES            map and touch BYTES of memory in 16 MiB pieces
//	memfork K BYTES      K processes, each holding BYTES
//	fsize BYTES          write one file of BYTES (SIGXFSZ ignored)
//	disk BYTES           write 1 MiB files up to BYTES in all, slowly
func Hog(args []string) int {
	n, _ := strconv.ParseInt(args[len(args)-1], 10, 64)
	switch args[0] {
	case "pause":
		time.Sleep(20 * time.Second)
	case "fork", "forkhold":
		hogForks(n, args[0] == "forkhold")
	case "mem", "mem-child":
		hogMemory(n, args[0] == "mem")
	case "memfork":
		k, _ := strconv.Atoi(args[1])
		var cmds []*exec.Cmd
		for i := 0; i < k; i++ {
			c := exec.Command("/proc/self/exe", os.Args[1], "mem-child", args[2])
			if c.Start() == nil {
				cmds = append(cmds, c)
			}
		}
		hogReport(map[string]any{"children": len(cmds)})
		for _, c := range cmds {
			c.Wait()
		}
	case "fsize":
		return hogFileSize(n)
	case "disk":
		buf := make([]byte, 1<<20)
		for i := int64(0); i < n>>20; i++ {
			os.WriteFile(fmt.Sprintf("/workspace/f%05d", i), buf, 0o644)
			hogReport(map[string]any{"bytes": (i + 1) << 20})
			if i%4 == 3 {
				time.Sleep(20 * time.Millisecond)
			}
		}
		time.Sleep(10 * time.Second)
	}
	return 0
}

// hogReport writes what a hog got to /logs/hog.json.
func hogReport(v map[string]any) {
	b, _ := json.Marshal(v)
	os.WriteFile("/logs/hog.json", b, 0o644)
}

// hogForks starts n sleeping processes (as many as it can), reports how
// many, holds them 4 s when hold is set, and kills them.
func hogForks(n int64, hold bool) {
	var pids []int
	var lastErr error
	// /bin/sleep where there is one (the sandbox), else this program
	// (a container image holding only it).
	bin, argv := "/bin/sleep", []string{"sleep", "20"}
	if _, err := os.Stat(bin); err != nil {
		bin, argv = "/proc/self/exe", []string{"agent", "hog", "pause"}
	}
	for i := int64(0); i < n; i++ {
		pid, err := syscall.ForkExec(bin, argv, &syscall.ProcAttr{})
		if err != nil {
			lastErr = err
			break
		}
		pids = append(pids, pid)
	}
	hogReport(map[string]any{"started": len(pids), "err": fmt.Sprint(lastErr)})
	if hold {
		time.Sleep(4 * time.Second)
	}
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(p, &ws, 0, nil)
	}
}

// hogMemory touches n bytes of memory in 16 MiB pieces (as many as it
// can); with report it reports its progress and returns, otherwise it holds
// the memory 20 s.
func hogMemory(n int64, report bool) {
	const piece = 16 << 20
	var got int64
	var lastErr error
	for got < n {
		m, err := syscall.Mmap(-1, 0, piece, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			lastErr = err
			break
		}
		for i := 0; i < len(m); i += 4096 {
			m[i] = 1
		}
		got += piece
		if report {
			hogReport(map[string]any{"bytes": got})
		}
	}
	if report {
		hogReport(map[string]any{"bytes": got, "err": fmt.Sprint(lastErr)})
		return
	}
	time.Sleep(20 * time.Second)
}

// hogFileSize writes one file of n bytes with SIGXFSZ ignored and reports
// how much it wrote and the error that stopped it.
func hogFileSize(n int64) int {
	signal.Ignore(syscall.SIGXFSZ)
	f, err := os.Create("/workspace/big")
	if err != nil {
		return 1
	}
	buf := make([]byte, 1<<20)
	var wrote int64
	for wrote < n {
		m, err := f.Write(buf)
		wrote += int64(m)
		if err != nil {
			hogReport(map[string]any{"bytes": wrote, "err": err.Error()})
			return 0
		}
	}
	f.Close()
	hogReport(map[string]any{"bytes": wrote})
	return 0
}
