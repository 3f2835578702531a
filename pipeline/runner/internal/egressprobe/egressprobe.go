// Package egressprobe is a test agent's network probe, shared by the
// runner's sandbox tests (run by the test binary itself) and the static
// container test agent (testdata/hostile): what an agent with an egress
// allowlist can and cannot reach.
package egressprobe

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/settings"
)

// Main is the probe with args OUT ALLOWED_ADDR REFUSED_ADDR: inside a
// sandbox or container, use the proxy from the environment for the allowed
// server (plain http and a CONNECT tunnel), try the refused server the same
// two ways, dial both directly, and call the validation URL; write what
// happened to OUT as JSON. It returns the process exit code.
func Main(args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: egress OUT ALLOWED_ADDR REFUSED_ADDR")
		return 2
	}
	out, allowed, refused := args[0], args[1], args[2]
	res := map[string]string{}
	proxy, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil || proxy.Host == "" {
		res["proxy"] = "no HTTPS_PROXY"
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	post := func(addr string) string {
		resp, err := c.Post("http://"+addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"gpt-5","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			return "error: " + err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	tunnel := func(addr string) string {
		conn, err := net.DialTimeout("tcp", proxy.Host, 5*time.Second)
		if err != nil {
			return "error: " + err.Error()
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			return "error: " + err.Error()
		}
		if resp.StatusCode != 200 {
			return fmt.Sprintf("%d", resp.StatusCode)
		}
		fmt.Fprintf(conn, "GET /v1/models HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", addr)
		r2, err := http.ReadResponse(br, nil)
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := io.ReadAll(r2.Body)
		return fmt.Sprintf("%d %s", r2.StatusCode, strings.TrimSpace(string(b)))
	}
	dial := func(addr string) string {
		conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			return "error: " + err.Error()
		}
		conn.Close()
		return "connected"
	}
	res["allowed_post"], res["allowed_connect"] = post(allowed), tunnel(allowed)
	res["refused_post"], res["refused_connect"] = post(refused), tunnel(refused)
	res["direct_allowed"], res["direct_refused"] = dial(allowed), dial(refused)
	vc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	validateURL := settings.LoadChild(os.Environ()).ValidateURL // this agent's own environment
	if resp, err := vc.Post(validateURL+"/validate", "application/json", strings.NewReader(`{}`)); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		res["validate"] = strings.TrimSpace(string(b))
	} else {
		res["validate"] = "error: " + err.Error()
	}
	if resp, err := vc.Get(validateURL + "/health"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		res["health"] = strings.TrimSpace(string(b))
	} else {
		res["health"] = "error: " + err.Error()
	}
	b, _ := json.MarshalIndent(res, "", " ")
	os.WriteFile(out, b, 0o644)
	return 0
}
