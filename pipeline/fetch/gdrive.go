package fetch

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

var (
	gdriveFormRe    = regexp.MustCompile(`(?is)<form[^>]*\baction="([^"]+)"[^>]*>(.*?)</form>`)
	gdriveInputRe   = regexp.MustCompile(`(?is)<input[^>]*>`)
	gdriveNameRe    = regexp.MustCompile(`(?is)\bname="([^"]*)"`)
	gdriveValueRe   = regexp.MustCompile(`(?is)\bvalue="([^"]*)"`)
	gdriveConfirmRe = regexp.MustCompile(`(?i)href="([^"]*confirm=[^"]*)"`)
)

// resolveGDrive turns the direct-download address of a Google Drive file
// into one that yields the bytes: large files first answer with an HTML page
// ("cannot scan for viruses") whose form or link carries a confirm token.
func (f *fetcher) resolveGDrive(ctx context.Context, pf *PlannedFile) (string, error) {
	var out string
	err := f.withRetry(ctx, "resolve Google Drive "+pf.Challenge+"/"+pf.Name, func() (bool, error) {
		req, err := f.newRequest(ctx, pf.URL)
		if err != nil {
			return false, err
		}
		resp, err := f.opts.HTTPClient.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			se := statusError(resp, f.opts.Now())
			if !retryable(se) {
				return false, permanent(se)
			}
			return false, se
		}
		if !strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/html") {
			out = pf.URL // the file itself: download it directly
			return false, nil
		}
		page, err := io.ReadAll(io.LimitReader(resp.Body, 2<<20))
		if err != nil {
			return false, err
		}
		u, ok := gdriveConfirmURL(resp.Request.URL, string(page))
		if !ok {
			return false, permanent(fmt.Errorf("file %s: Google Drive did not offer a download (quota exceeded or not shared publicly); "+
				"download it by hand from https://drive.google.com/file/d/%s/view and save it as %s",
				pf.Name, gdriveID(pf.URL), pf.Dest))
		}
		out = u
		return false, nil
	})
	return out, err
}

// gdriveConfirmURL finds the confirmed download address in a Drive warning page.
func gdriveConfirmURL(page *url.URL, body string) (string, bool) {
	if m := gdriveFormRe.FindStringSubmatch(body); m != nil {
		action, err := page.Parse(html.UnescapeString(m[1]))
		if err == nil {
			q := url.Values{}
			for _, in := range gdriveInputRe.FindAllString(m[2], -1) {
				n := gdriveNameRe.FindStringSubmatch(in)
				v := gdriveValueRe.FindStringSubmatch(in)
				if n != nil && v != nil {
					q.Set(html.UnescapeString(n[1]), html.UnescapeString(v[1]))
				}
			}
			if q.Get("id") != "" {
				action.RawQuery = q.Encode()
				return action.String(), true
			}
		}
	}
	if m := gdriveConfirmRe.FindStringSubmatch(body); m != nil {
		if u, err := page.Parse(html.UnescapeString(m[1])); err == nil {
			return u.String(), true
		}
	}
	return "", false
}

// gdriveID extracts the id query value of a Drive address.
func gdriveID(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Query().Get("id")
}
