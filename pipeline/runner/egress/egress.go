// Package egress gives a sandboxed agent exactly the network endpoints its
// configuration allows and nothing else.
//
// Host side, Listen starts an HTTP forward proxy on a Unix socket (in the
// run folder) that accepts CONNECT host:port (https and any TLS) and plain
// http requests in absolute form, for the allowed host:port pairs only;
// every other destination gets 403 and a log line naming the destination
// (never headers or bodies: no secrets in the logs).
//
// Inside the sandbox, whose network namespace has only loopback, the
// bridge (Bridge, the `rexmle-agent bridge` subcommand) listens on
// loopback TCP ports and forwards each connection to a Unix socket bound
// into the sandbox (the proxy's, the validation endpoint's), then runs the
// agent as its child. The agent is pointed at the proxy with
// HTTPS_PROXY/HTTP_PROXY/ALL_PROXY (see ProxyEnv).
package egress

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParseAllow checks and normalises an allow list: each entry is host:port
// with a numeric port (1-65535); hosts are compared case-insensitively.
func ParseAllow(allow []string) (map[string]bool, error) {
	m := map[string]bool{}
	for _, a := range allow {
		host, port, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil || host == "" {
			return nil, fmt.Errorf("egress entry %q: want host:port (e.g. api.openai.com:443)", a)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("egress entry %q: port %q is not a number from 1 to 65535", a, port)
		}
		m[net.JoinHostPort(strings.ToLower(host), port)] = true
	}
	return m, nil
}

// Proxy is a running egress proxy.
type Proxy struct {
	Socket string
	allow  map[string]bool
	log    *slog.Logger
	ln     net.Listener
	srv    *http.Server
	tr     *http.Transport

	mu      sync.Mutex
	refused int
	tunnels map[net.Conn]bool
	closed  bool
}

// Listen starts the proxy on a Unix socket at socketPath (mode 0666: the
// agent may run as another host user), allowing only the host:port pairs
// in allow.
func Listen(ctx context.Context, socketPath string, allow []string, logger *slog.Logger) (*Proxy, error) {
	m, err := ParseAllow(allow)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	os.Remove(socketPath)
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on %s: %w", socketPath, err)
	}
	if err := os.Chmod(socketPath, 0o666); err != nil {
		ln.Close()
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := &Proxy{Socket: socketPath, allow: m, log: logger, ln: ln, tunnels: map[net.Conn]bool{}}
	p.tr = &http.Transport{Proxy: nil, DialContext: p.dial, ForceAttemptHTTP2: false, MaxIdleConns: 16,
		IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 30 * time.Second}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go p.srv.Serve(ln)
	go func() {
		<-ctx.Done()
		p.Close()
	}()
	return p, nil
}

// Refused is how many requests the proxy refused so far.
func (p *Proxy) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Close stops the proxy, cuts open tunnels and removes the socket.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	err := p.srv.Close()
	p.tr.CloseIdleConnections()
	os.Remove(p.Socket)
	return err
}

// allowed normalises hostport (default port def) and says whether it is allowed.
func (p *Proxy) allowed(hostport, def string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, def
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	hp := net.JoinHostPort(host, port)
	return hp, p.allow[hp]
}

func (p *Proxy) refuse(w http.ResponseWriter, method, dest string) {
	p.mu.Lock()
	p.refused++
	p.mu.Unlock()
	p.log.Warn("egress refused", "method", method, "destination", dest)
	http.Error(w, "rexmle egress: "+dest+" is not in this agent's egress list", http.StatusForbidden)
}

// dial connects only to allowed destinations (the transport's dialer for
// plain http; CONNECT checks before dialing).
func (p *Proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	hp, ok := p.allowed(addr, "80")
	if !ok {
		return nil, fmt.Errorf("egress: %s is not allowed", hp)
	}
	d := net.Dialer{Timeout: 30 * time.Second}
	return d.DialContext(ctx, "tcp", hp)
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if r.URL.Host == "" || r.URL.Scheme != "http" {
		http.Error(w, "rexmle egress: want an absolute http:// URL or CONNECT host:port", http.StatusBadRequest)
		return
	}
	hp, ok := p.allowed(r.URL.Host, "80")
	if !ok {
		p.refuse(w, r.Method, hp)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "rexmle egress: "+hp+": "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	hp, ok := p.allowed(r.Host, "443")
	if !ok {
		p.refuse(w, r.Method, hp)
		return
	}
	up, err := (&net.Dialer{Timeout: 30 * time.Second}).DialContext(r.Context(), "tcp", hp)
	if err != nil {
		http.Error(w, "rexmle egress: "+hp+": "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "rexmle egress: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !p.track(up, down) {
		up.Close()
		down.Close()
		return
	}
	defer p.untrack(up, down)
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// Bytes the client sent after the CONNECT header, already buffered.
	if n := rw.Reader.Buffered(); n > 0 {
		b, _ := rw.Reader.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	splice(up, down)
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range cs {
		p.tunnels[c] = true
	}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(p.tunnels, c)
	}
}

// splice copies both ways until both directions end.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	half := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			dst.Close()
		}
	}
	go half(a, b)
	go half(b, a)
	wg.Wait()
}

// ProxyEnv is the environment that points an agent at the bridge's proxy
// port on loopback (addr, e.g. 127.0.0.1:3128), with loopback itself
// (the validation endpoint) reached directly. When one of the allowed
// destinations (host:port) is itself on loopback (a local gateway or a
// fake server), only the bridge's own addresses in direct are exempt from
// the proxy: inside the agent's network namespace that loopback is not the
// host's, so the endpoint is reachable through the proxy only.
func ProxyEnv(addr string, allowed []string, direct ...string) []string {
	u := "http://" + addr
	var env []string
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+u, strings.ToLower(k)+"="+u)
	}
	noProxy := "localhost,127.0.0.1"
	for _, a := range allowed {
		if isLoopback(a) {
			noProxy = strings.Join(direct, ",")
			break
		}
	}
	return append(env, "NO_PROXY="+noProxy, "no_proxy="+noProxy)
}

// isLoopback: host:port names localhost or a loopback address.
func isLoopback(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
