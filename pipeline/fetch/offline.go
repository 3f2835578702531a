package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// BrowserURL is the page a person opens to see or download s by hand: the
// Zenodo record, the Figshare article, the Google Drive file, the URL itself,
// or the challenge page for a manual source ("" when none is known).
func (s Source) BrowserURL() string {
	switch s.Kind {
	case KindZenodo:
		return "https://zenodo.org/records/" + url.PathEscape(s.Record)
	case KindFigshare:
		return "https://figshare.com/articles/dataset/_/" + url.PathEscape(s.Record)
	case KindGDrive:
		return "https://drive.google.com/file/d/" + url.PathEscape(s.Record) + "/view"
	case KindURL:
		if u, err := url.Parse(s.URL); err == nil {
			return redactURL(u)
		}
	}
	return s.Landing
}

// sizeKey identifies the download a source's size belongs to: tasks of one
// competition list the same record, which is fetched (and counted) once.
func (s Source) sizeKey() string {
	switch s.Kind {
	case KindZenodo, KindFigshare, KindGDrive:
		return s.Challenge + "|" + s.Kind + "|" + s.Record
	case KindURL:
		return s.Challenge + "|" + s.URL
	}
	return s.Challenge + "|manual|" + strings.Join(s.Files, ",")
}

// PrintOffline writes the download plan as the challenge files alone state
// it, without touching the network: per source the page a browser opens,
// the files (all of a record's files when it names none), the expected size
// (exact for a single file, approximate for a record; "size unknown"
// otherwise), the licence, any terms or registration, the target folder;
// then the disk needed in all. Sources sharing one download count once.
func PrintOffline(w io.Writer, sources []Source, rawRoot string) error {
	var b strings.Builder
	counted := map[string]bool{}
	var known int64
	unknown, archives := 0, 0
	for _, s := range sources {
		fmt.Fprintf(&b, "%s (%s", s.Label(), s.Kind)
		if s.Record != "" {
			fmt.Fprintf(&b, " %s", s.Record)
		}
		fmt.Fprintf(&b, ") → %s\n", filepath.Join(rawRoot, s.Challenge))
		if u := s.BrowserURL(); u != "" {
			fmt.Fprintf(&b, "  open:     %s\n", u)
		}
		if s.Landing != "" && s.Landing != s.BrowserURL() {
			fmt.Fprintf(&b, "  page:     %s\n", s.Landing)
		}
		files := s.Files
		if len(files) == 0 {
			if name, err := s.singleFileName(); err == nil {
				files = []string{name}
			}
		}
		size := "size unknown"
		switch {
		case s.Size > 0:
			size = FormatBytes(s.Size)
		case s.ApproxSize > 0:
			size = "about " + FormatBytes(s.ApproxSize)
			if len(s.Files) > 0 && (s.Kind == KindZenodo || s.Kind == KindFigshare) {
				size += " (the whole record; the files taken may be less)"
			}
		}
		if len(files) == 0 {
			fmt.Fprintf(&b, "  files:    every file of the record (listed when the network answers), %s\n", size)
		} else {
			fmt.Fprintf(&b, "  files:    %s, %s\n", strings.Join(files, ", "), size)
		}
		if s.Extract {
			archives++
		}
		lic := s.License
		if lic == "" {
			lic = "not stated in the challenge file (see the page above)"
		}
		fmt.Fprintf(&b, "  licence:  %s\n", lic)
		terms := s.Terms
		if terms == "" {
			terms = "none recorded"
		}
		fmt.Fprintf(&b, "  terms:    %s\n", terms)
		if s.Kind == KindManual {
			for _, line := range strings.Split(strings.TrimSpace(s.Instructions), "\n") {
				if line != "" {
					fmt.Fprintf(&b, "  | %s\n", line)
				}
			}
		}
		k := s.sizeKey()
		switch {
		case counted[k]:
			fmt.Fprintf(&b, "  shared:   the same record as an earlier source of %s; counted once in the total\n", s.Challenge)
		case s.Size > 0:
			known += s.Size
		case s.ApproxSize > 0:
			known += s.ApproxSize
		default:
			unknown++
		}
		counted[k] = true
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "%d sources, %d downloads; disk needed: about %s for the downloads", len(sources), len(counted), FormatBytes(known))
	if unknown > 0 {
		fmt.Fprintf(&b, " + %d of unknown size", unknown)
	}
	if archives > 0 {
		b.WriteString(", and about as much again to unpack the archives")
	}
	b.WriteString(" (sizes from the challenge files)\n")
	b.WriteString("To download by hand instead: README \"Placing downloads by hand\" lists each file, its folder and whether it\n" +
		"may stay zipped; `mage doctor` and `mage prepare` name any that is missing, `mage fetchVerify` checks them.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ProbeTimeout bounds the live check's question to each metadata host.
const ProbeTimeout = 3 * time.Second

// Probe asks each metadata API the sources need (Zenodo, Figshare) once,
// without retries, whether it answers. Any HTTP response counts as an
// answer. The error is one line naming the host that did not answer and
// why ("no such host", "connection refused", "no answer within 3s").
func Probe(ctx context.Context, sources []Source, opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, s := range sources {
		var base string
		switch s.Kind {
		case KindZenodo:
			base = o.ZenodoBaseURL
		case KindFigshare:
			base = o.FigshareBaseURL
		default:
			continue
		}
		if seen[base] {
			continue
		}
		seen[base] = true
		if err := probeOne(ctx, o.HTTPClient, base); err != nil {
			return err
		}
	}
	return nil
}

func probeOne(ctx context.Context, c *http.Client, base string) error {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, base, nil)
	if err != nil {
		return fmt.Errorf("bad base URL %q: %w", base, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s does not answer: %s", hostOf(base), shortNetReason(err))
	}
	resp.Body.Close()
	return nil
}

// shortNetReason names a network failure in a few words.
func shortNetReason(err error) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host (offline, or DNS does not know " + dns.Name + ")"
	case errors.As(err, &dns):
		return "DNS lookup failed: " + dns.Err
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", ProbeTimeout)
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	}
	return err.Error()
}
