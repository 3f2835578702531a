// Package fetchtest is a local fake of the download services package fetch
// talks to (Zenodo records API, Figshare articles API, Google Drive direct
// downloads, plain URLs), serving generated files with injectable faults:
// dropped connections, 500s, 429s with Retry-After, no Range support and
// wrong advertised checksums. It also builds small zip and tar.gz archives,
// including hostile ones, for extraction tests. Nothing touches the network
// beyond the loopback test server.
package fetchtest

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault makes one served file misbehave.
type Fault struct {
	// DropAt closes the connection once the body has reached this byte
	// offset of the file (0 = never), for the first DropTimes requests
	// (DropTimes 0 means 1).
	DropAt    int64
	DropTimes int
	// Status429 answers 429 Too Many Requests to the first N requests, with
	// header Retry-After: RetryAfter when that is not empty.
	Status429  int
	RetryAfter string
	// Status500 answers 500 to the N requests following the 429s.
	Status500 int
	// StallAt pauses the first response at this byte offset for StallFor
	// (or until the client gives up), then carries on.
	StallAt  int64
	StallFor time.Duration
	// NoRange ignores Range headers: always 200 with the whole file.
	NoRange bool
	// BadMD5 advertises a wrong MD5 in the metadata.
	BadMD5 bool
}

// File is one file served by the fake.
type File struct {
	Name  string
	Data  []byte
	Fault Fault
}

// Stats counts what the server did for one file.
type Stats struct {
	Requests      int
	RangeRequests int
	// RangeHeaders counts requests that carried a Range header, honoured or not.
	RangeHeaders int
	// BytesServed is the number of body bytes written, over all requests.
	BytesServed int64
	// RangeStarts lists the start offsets of the Range requests received.
	RangeStarts []int64
}

type entry struct {
	File
	path   string // URL path serving the bytes
	stats  Stats
	drops  int
	stalls int
}

// Server is the fake service. Its URL serves as ZenodoBaseURL,
// FigshareBaseURL and GDriveBaseURL at once.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	zenodo   map[string][]*entry
	figshare map[string][]*entry
	gdrive   map[string]*entry
	confirm  map[string]bool
	blocked  map[string]bool
	byPath   map[string]*entry
	auth     []string
	metaHits int
}

// New starts a fake server; Close it when done.
func New() *Server {
	s := &Server{
		zenodo: map[string][]*entry{}, figshare: map[string][]*entry{},
		gdrive: map[string]*entry{}, confirm: map[string]bool{}, blocked: map[string]bool{}, byPath: map[string]*entry{},
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

func md5hex(b []byte) string {
	s := md5.Sum(b)
	return hex.EncodeToString(s[:])
}

// MD5 returns the hex MD5 of b.
func MD5(b []byte) string { return md5hex(b) }

// RandomBytes returns n incompressible pseudo-random bytes from seed.
func RandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24)}))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(r.Uint64())
	}
	return b
}

func (s *Server) add(path string, f File) *entry {
	e := &entry{File: f, path: path}
	s.byPath[path] = e
	return e
}

// AddZenodo publishes files as Zenodo record id.
func (s *Server) AddZenodo(id string, files ...File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range files {
		s.zenodo[id] = append(s.zenodo[id], s.add("/api/records/"+id+"/files/"+url.PathEscape(f.Name)+"/content", f))
	}
}

// AddFigshare publishes files as Figshare article id.
func (s *Server) AddFigshare(id string, files ...File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range files {
		s.figshare[id] = append(s.figshare[id], s.add(fmt.Sprintf("/ndownloader/files/%s%03d", id, i), f))
	}
}

// AddGDrive publishes f as Google Drive file id; with confirmPage the
// direct address first answers with the HTML virus-scan warning whose form
// leads to the bytes.
func (s *Server) AddGDrive(id string, f File, confirmPage bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gdrive[id] = s.add("/download/"+id, f)
	s.confirm[id] = confirmPage
}

// AddGDriveBlocked makes Google Drive file id answer with the "quota
// exceeded" web page that offers no download.
func (s *Server) AddGDriveBlocked(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gdrive[id] = s.add("/download/"+id, File{Name: id})
	s.blocked[id] = true
}

// AddURL publishes f at path (e.g. "/data/x.zip") and returns its full URL.
func (s *Server) AddURL(path string, f File) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(path, f)
	return s.URL + path
}

// Stats returns the counters of the file named name (first match).
func (s *Server) Stats(name string) Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.byPath {
		if e.Name == name {
			st := e.stats
			st.RangeStarts = append([]int64(nil), st.RangeStarts...)
			return st
		}
	}
	return Stats{}
}

// TotalBytesServed sums BytesServed over all files.
func (s *Server) TotalBytesServed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, e := range s.byPath {
		n += e.stats.BytesServed
	}
	return n
}

// AuthHeaders returns every Authorization header value received.
func (s *Server) AuthHeaders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auth...)
}

// MetadataRequests counts requests to the record/article APIs.
func (s *Server) MetadataRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.metaHits
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if a := r.Header.Get("Authorization"); a != "" {
		s.auth = append(s.auth, a)
	}
	s.mu.Unlock()
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/records/") && !strings.Contains(strings.TrimPrefix(p, "/api/records/"), "/"):
		s.zenodoRecord(w, r, strings.TrimPrefix(p, "/api/records/"))
	case strings.HasPrefix(p, "/v2/articles/") && strings.HasSuffix(p, "/files"):
		s.figshareArticle(w, r, strings.TrimSuffix(strings.TrimPrefix(p, "/v2/articles/"), "/files"), true)
	case strings.HasPrefix(p, "/v2/articles/"):
		s.figshareArticle(w, r, strings.TrimPrefix(p, "/v2/articles/"), false)
	case p == "/uc":
		s.gdriveUC(w, r)
	default:
		s.mu.Lock()
		e := s.byPath[r.URL.EscapedPath()]
		if e == nil {
			e = s.byPath[p]
		}
		s.mu.Unlock()
		if e == nil {
			http.NotFound(w, r)
			return
		}
		s.serve(w, r, e)
	}
}

func (s *Server) advertisedMD5(e *entry) string {
	if e.Fault.BadMD5 {
		return strings.Repeat("0", 32)
	}
	return md5hex(e.Data)
}

func (s *Server) zenodoRecord(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	s.metaHits++
	files, ok := s.zenodo[id]
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"status":404,"message":"not found"}`, http.StatusNotFound)
		return
	}
	type link struct {
		Self string `json:"self"`
	}
	type file struct {
		Key      string `json:"key"`
		Size     int    `json:"size"`
		Checksum string `json:"checksum"`
		Links    link   `json:"links"`
	}
	var out struct {
		ID    string `json:"id"`
		Files []file `json:"files"`
	}
	out.ID = id
	for _, e := range files {
		out.Files = append(out.Files, file{Key: e.Name, Size: len(e.Data), Checksum: "md5:" + s.advertisedMD5(e), Links: link{Self: s.URL + e.path}})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// figshareArticle answers GET /v2/articles/{id} (article details with a
// files array) or, with list, GET /v2/articles/{id}/files (a bare array,
// paginated by page and page_size).
func (s *Server) figshareArticle(w http.ResponseWriter, r *http.Request, id string, list bool) {
	s.mu.Lock()
	s.metaHits++
	files, ok := s.figshare[id]
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"message":"Entity not found: article","code":"EntityNotFound"}`, http.StatusNotFound)
		return
	}
	type file struct {
		ID          int    `json:"id"`
		Name        string `json:"name"`
		Size        int    `json:"size"`
		ComputedMD5 string `json:"computed_md5"`
		SuppliedMD5 string `json:"supplied_md5"`
		DownloadURL string `json:"download_url"`
		IsLinkOnly  bool   `json:"is_link_only"`
	}
	var out struct {
		ID    int    `json:"id"`
		Files []file `json:"files"`
	}
	out.ID, _ = strconv.Atoi(id)
	for i, e := range files {
		out.Files = append(out.Files, file{ID: i + 1, Name: e.Name, Size: len(e.Data), ComputedMD5: s.advertisedMD5(e), DownloadURL: s.URL + e.path})
	}
	w.Header().Set("Content-Type", "application/json")
	if !list {
		json.NewEncoder(w).Encode(out)
		return
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
	if page < 1 {
		page = 1
	}
	if size < 1 {
		size = 10
	}
	lo := min((page-1)*size, len(out.Files))
	hi := min(lo+size, len(out.Files))
	json.NewEncoder(w).Encode(out.Files[lo:hi])
}

func (s *Server) gdriveUC(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	s.mu.Lock()
	e, ok := s.gdrive[id]
	confirm := s.confirm[id]
	blocked := s.blocked[id]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if blocked {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Google Drive - Quota exceeded</title></head><body><p>Too many users have viewed or downloaded this file recently.</p></body></html>`)
		return
	}
	if confirm {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Google Drive - Virus scan warning</title></head><body>
<p>Google Drive can't scan this file for viruses.</p>
<form id="download-form" action="%s/download/%s" method="get">
<input type="submit" id="uc-download-link" value="Download anyway"/>
<input type="hidden" name="id" value="%s"><input type="hidden" name="export" value="download">
<input type="hidden" name="confirm" value="t"><input type="hidden" name="uuid" value="0000-1111"></form></body></html>`, s.URL, id, id)
		return
	}
	s.serve(w, r, e)
}

// serve writes e's bytes honouring Range and the configured faults.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, e *entry) {
	s.mu.Lock()
	e.stats.Requests++
	n := e.stats.Requests
	f := e.Fault
	s.mu.Unlock()
	if n <= f.Status429 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	}
	if n <= f.Status429+f.Status500 {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	size := int64(len(e.Data))
	start := int64(0)
	status := http.StatusOK
	if r.Header.Get("Range") != "" {
		s.mu.Lock()
		e.stats.RangeHeaders++
		s.mu.Unlock()
	}
	if rng := r.Header.Get("Range"); rng != "" && !f.NoRange {
		v, ok := strings.CutPrefix(rng, "bytes=")
		a, _, ok2 := strings.Cut(v, "-")
		off, err := strconv.ParseInt(a, 10, 64)
		if !ok || !ok2 || err != nil || off < 0 {
			http.Error(w, "bad range", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		e.stats.RangeRequests++
		e.stats.RangeStarts = append(e.stats.RangeStarts, off)
		s.mu.Unlock()
		if off >= size {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start, status = off, http.StatusPartialContent
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", off, size-1, size))
	}
	if !f.NoRange {
		w.Header().Set("Accept-Ranges", "bytes")
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size-start, 10))
	w.WriteHeader(status)
	end := size
	s.mu.Lock()
	drop := f.DropAt > start && f.DropAt < size && e.drops < max(f.DropTimes, 1)
	if drop {
		e.drops++
		end = f.DropAt
	}
	s.mu.Unlock()
	s.mu.Lock()
	stall := f.StallAt > start && f.StallAt < end && e.stalls == 0
	if stall {
		e.stalls++
	}
	s.mu.Unlock()
	const chunk = 32 << 10
	for i := start; i < end; i += chunk {
		j := min(i+chunk, end)
		if stall && j > f.StallAt && i <= f.StallAt {
			j = f.StallAt
			if i == j {
				stall = false
				if fl, ok := w.(http.Flusher); ok {
					fl.Flush()
				}
				select {
				case <-time.After(f.StallFor):
				case <-r.Context().Done():
					return
				}
				j = min(i+chunk, end)
			}
		}
		k, err := w.Write(e.Data[i:j])
		s.mu.Lock()
		e.stats.BytesServed += int64(k)
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
	if drop {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		panic(http.ErrAbortHandler) // closes the connection mid-body
	}
}
