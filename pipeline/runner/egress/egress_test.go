package egress

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseAllow(t *testing.T) {
	m, err := ParseAllow([]string{"API.openai.com:443", " 127.0.0.1:8080 ", "[::1]:9"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"api.openai.com:443", "127.0.0.1:8080", "[::1]:9"} {
		if !m[k] {
			t.Errorf("%s missing from %v", k, m)
		}
	}
	for _, bad := range []string{"api.openai.com", ":443", "host:0", "host:70000", "host:https"} {
		if _, err := ParseAllow([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func rawRequest(t *testing.T, socket, req string) (*http.Response, *bufio.Reader, net.Conn) {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, req)
	br := bufio.NewReader(c)
	method := strings.Fields(req)[0]
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatal(err)
	}
	return resp, br, c
}

// TestProxyAllowsOnlyTheList: plain http and CONNECT reach the allowed
// server; another server on the same host, and the allowed host on
// another port, get 403 with a log line that names the destination and
// nothing of the request's headers.
func TestProxyAllowsOnlyTheList(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" {
			t.Error("proxy header forwarded upstream")
		}
		fmt.Fprintf(w, "ok %s %s", r.Method, r.URL.Path)
	}))
	defer ok.Close()
	no := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "must not be reached") }))
	defer no.Close()
	okAddr, noAddr := strings.TrimPrefix(ok.URL, "http://"), strings.TrimPrefix(no.URL, "http://")
	var logs bytes.Buffer
	sock := filepath.Join(t.TempDir(), "egress.sock")
	p, err := Listen(context.Background(), sock, []string{okAddr}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("socket: %v %v", fi, err)
	}

	resp, _, c := rawRequest(t, sock, "GET http://"+okAddr+"/v1/models HTTP/1.1\r\nHost: "+okAddr+"\r\nProxy-Authorization: Basic c2VjcmV0\r\n\r\n")
	b, _ := io.ReadAll(resp.Body)
	c.Close()
	if resp.StatusCode != 200 || string(b) != "ok GET /v1/models" {
		t.Fatalf("plain http to the allowed server: %d %q", resp.StatusCode, b)
	}
	resp, br, c := rawRequest(t, sock, "CONNECT "+okAddr+" HTTP/1.1\r\nHost: "+okAddr+"\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT to the allowed server: %d", resp.StatusCode)
	}
	io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	r2, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(r2.Body)
	c.Close()
	if string(b) != "ok POST /v1/chat/completions" {
		t.Fatalf("through the tunnel: %q", b)
	}

	host, port, _ := net.SplitHostPort(okAddr)
	_, noPort, _ := net.SplitHostPort(noAddr)
	for _, req := range []string{
		"GET http://" + noAddr + "/ HTTP/1.1\r\nHost: " + noAddr + "\r\nAuthorization: Bearer sk-secret-token\r\n\r\n",
		"CONNECT " + noAddr + " HTTP/1.1\r\nHost: " + noAddr + "\r\n\r\n",
		"CONNECT " + net.JoinHostPort(host, noPort) + " HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT localhost:" + port + " HTTP/1.1\r\nHost: x\r\n\r\n", // the same server by another name: not listed
	} {
		resp, _, c := rawRequest(t, sock, req)
		b, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.StatusCode != http.StatusForbidden || strings.Contains(string(b), "must not be reached") {
			t.Errorf("%q: %d %q", strings.SplitN(req, "\r\n", 2)[0], resp.StatusCode, b)
		}
	}
	if p.Refused() != 4 {
		t.Errorf("refused %d, want 4", p.Refused())
	}
	if !strings.Contains(logs.String(), "egress refused") || !strings.Contains(logs.String(), noAddr) || strings.Contains(logs.String(), "sk-secret-token") {
		t.Errorf("log:\n%s", logs.String())
	}
	// A request that is neither absolute http nor CONNECT is not forwarded.
	resp, _, c = rawRequest(t, sock, "GET /relative HTTP/1.1\r\nHost: "+okAddr+"\r\n\r\n")
	c.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("origin-form request: %d", resp.StatusCode)
	}
	// Close cuts the proxy and removes the socket.
	p.Close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
}

// TestBridge: the bridge forwards loopback TCP to a Unix socket, passes
// the child's exit code through, and forwards SIGTERM to the child.
func TestBridge(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "echo.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	port := freeTCP(t)
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d; echo hello-through-bridge >&3; read -r line <&3; [ "$line" = hello-through-bridge ] || exit 9; exit 7`, port)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash for /dev/tcp")
	}
	code, err := Bridge(context.Background(), []Forward{{Listen: fmt.Sprintf("127.0.0.1:%d", port), Socket: sock}}, []string{"bash", "-c", script})
	if err != nil || code != 7 {
		t.Fatalf("exit %d %v, want 7 (9: the echo did not come back)", code, err)
	}
	// A taken port: the bridge cannot start (126) and says why.
	taken, _ := net.Listen("tcp", "127.0.0.1:0")
	defer taken.Close()
	code, err = Bridge(context.Background(), []Forward{{Listen: taken.Addr().String(), Socket: sock}}, []string{"true"})
	if code != 126 || err == nil {
		t.Fatalf("taken port: %d %v", code, err)
	}
	// SIGINT to the bridge reaches the child, whose trap answers.
	if os.Getenv("REXMLE_BRIDGE_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestBridgeSignalChild$")
		cmd.Env = append(os.Environ(), "REXMLE_BRIDGE_CHILD=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		if !strings.Contains(out.String(), "child got the signal") {
			t.Fatalf("signal not forwarded: %v\n%s", err, out.String())
		}
	}
}

// TestBridgeSignalChild runs only as TestBridge's subprocess.
func TestBridgeSignalChild(t *testing.T) {
	if os.Getenv("REXMLE_BRIDGE_CHILD") == "" {
		t.Skip("helper for TestBridge")
	}
	code, _ := Bridge(context.Background(), nil, []string{"sh", "-c", `trap 'echo child got the signal; exit 5' INT; sleep 5 >/dev/null 2>&1 & wait`})
	if code != 5 {
		t.Fatalf("exit %d, want 5", code)
	}
}

func freeTCP(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// An LLM endpoint on the host's loopback (a local gateway, a fake server)
// is reachable only through the proxy: NO_PROXY then exempts just the
// bridge's own addresses; a remote endpoint keeps all of loopback direct.
// Checked with Python's own proxy rules, which the agents use.
func TestProxyEnvLoopbackEndpoint(t *testing.T) {
	noProxy := func(env []string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "NO_PROXY="); ok {
				return v
			}
		}
		t.Fatalf("no NO_PROXY in %q", env)
		return ""
	}
	if got := noProxy(ProxyEnv("127.0.0.1:3128", []string{"api.openai.com:443"}, "127.0.0.1:5000")); got != "localhost,127.0.0.1" {
		t.Errorf("remote endpoint: NO_PROXY=%q", got)
	}
	for _, dest := range []string{"127.0.0.1:18431", "localhost:8000", "[::1]:9000"} {
		env := ProxyEnv("127.0.0.1:3128", []string{"api.openai.com:443", dest}, "127.0.0.1:5000")
		if got := noProxy(env); got != "127.0.0.1:5000" {
			t.Errorf("loopback endpoint %s: NO_PROXY=%q, want the bridge's address only", dest, got)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 absent: Python's reading of NO_PROXY not checked")
	}
	env := ProxyEnv("127.0.0.1:3128", []string{"127.0.0.1:18431"}, "127.0.0.1:5000")
	cmd := exec.Command(py, "-c", "import urllib.request as u; print(bool(u.proxy_bypass('127.0.0.1:5000')), bool(u.proxy_bypass('127.0.0.1:18431')))")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "True False" {
		t.Errorf("Python: bypass validate, bypass endpoint = %q (%v), want True False", out, err)
	}
}
