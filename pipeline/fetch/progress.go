package fetch

import (
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// progressSink receives per-file download progress.
type progressSink interface {
	start(id string, total, done int64) // total = -1 when unknown
	add(id string, n int64)
	finish(id string, err error)
	stop()
}

// newProgress picks the in-place terminal display or plain log lines.
func newProgress(opts Options, log *slog.Logger, plannedBytes int64) progressSink {
	if opts.IsTTY && opts.Progress != nil {
		return newTTYProgress(opts.Progress, plannedBytes, 200*time.Millisecond)
	}
	return &logProgress{log: log, files: map[string]*logFile{}}
}

// logProgress writes one log line at the start and one at the end of each file.
type logProgress struct {
	log   *slog.Logger
	mu    sync.Mutex
	files map[string]*logFile
}

type logFile struct {
	at        time.Time
	got, from int64
}

func (p *logProgress) start(id string, total, done int64) {
	p.mu.Lock()
	p.files[id] = &logFile{at: time.Now(), from: done}
	p.mu.Unlock()
	attrs := []any{"file", id}
	if total > 0 {
		attrs = append(attrs, "size", FormatBytes(total))
	}
	if done > 0 {
		attrs = append(attrs, "resume_from", FormatBytes(done))
	}
	p.log.Info("download started", attrs...)
}

func (p *logProgress) add(id string, n int64) {
	p.mu.Lock()
	if f := p.files[id]; f != nil {
		f.got += n
	}
	p.mu.Unlock()
}

func (p *logProgress) finish(id string, err error) {
	p.mu.Lock()
	f := p.files[id]
	delete(p.files, id)
	p.mu.Unlock()
	if f == nil {
		return
	}
	el := time.Since(f.at)
	if err != nil {
		p.log.Warn("download interrupted", "file", id, "received", FormatBytes(f.got), "err", err.Error())
		return
	}
	p.log.Info("download finished", "file", id, "received", FormatBytes(f.got), "elapsed", el.Round(time.Millisecond), "rate", FormatRate(f.got, el))
}

func (p *logProgress) stop() {}

// FormatRate prints n bytes over d as "12.3 MiB/s".
func FormatRate(n int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return FormatBytes(int64(float64(n)/d.Seconds())) + "/s"
}

// ttyProgress redraws one block (a bar per active file and a total line) in
// place with ANSI escapes, at most once per interval.
type ttyProgress struct {
	w        io.Writer
	mu       sync.Mutex
	bars     map[string]*bar
	done     []string // finished-file lines not yet printed
	planned  int64
	received int64
	began    time.Time
	lines    int
	dirty    bool
	quit     chan struct{}
	wg       sync.WaitGroup
}

type bar struct {
	total, done int64
	began       time.Time
	got         int64
}

func newTTYProgress(w io.Writer, planned int64, every time.Duration) *ttyProgress {
	p := &ttyProgress{w: w, bars: map[string]*bar{}, planned: planned, began: time.Now(), quit: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.mu.Lock()
				if p.dirty {
					p.drawLocked()
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *ttyProgress) start(id string, total, done int64) {
	p.mu.Lock()
	p.bars[id] = &bar{total: total, done: done, began: time.Now()}
	p.dirty = true
	p.mu.Unlock()
}

func (p *ttyProgress) add(id string, n int64) {
	p.mu.Lock()
	if b := p.bars[id]; b != nil {
		b.done += n
		b.got += n
	}
	p.received += n
	p.dirty = true
	p.mu.Unlock()
}

func (p *ttyProgress) finish(id string, err error) {
	p.mu.Lock()
	if b := p.bars[id]; b != nil {
		el := time.Since(b.began)
		// An interrupted attempt is reported by the retry warning or the
		// final failure; only completed files get a permanent line.
		if err == nil {
			p.done = append(p.done, fmt.Sprintf("✓ %s  %s in %s (%s)", id, FormatBytes(b.done), el.Round(time.Second), FormatRate(b.got, el)))
		}
		delete(p.bars, id)
	}
	p.dirty = true
	p.mu.Unlock()
}

// Write prints log text above the progress block at the next redraw, so
// log lines do not tear the in-place display.
func (p *ttyProgress) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.done = append(p.done, strings.Split(strings.TrimRight(string(b), "\n"), "\n")...)
	p.dirty = true
	p.mu.Unlock()
	return len(b), nil
}

func (p *ttyProgress) stop() {
	close(p.quit)
	p.wg.Wait()
	p.mu.Lock()
	p.drawLocked()
	p.mu.Unlock()
}

// drawLocked erases the previous block and draws the current one.
func (p *ttyProgress) drawLocked() {
	var b strings.Builder
	if p.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dF", p.lines) // to the start of the block
	}
	for _, l := range p.done {
		b.WriteString("\x1b[2K" + l + "\n")
	}
	p.done = p.done[:0]
	ids := make([]string, 0, len(p.bars))
	for id := range p.bars {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	lines := 0
	for _, id := range ids {
		br := p.bars[id]
		b.WriteString("\x1b[2K" + renderBar(id, br) + "\n")
		lines++
	}
	el := time.Since(p.began)
	rate := float64(p.received) / max(el.Seconds(), 1e-9)
	eta := "-"
	if rate > 0 && p.planned > p.received {
		eta = time.Duration(float64(p.planned-p.received) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(&b, "\x1b[2Ktotal %s / %s  %s/s  ETA %s\n", FormatBytes(p.received), FormatBytes(p.planned), FormatBytes(int64(rate)), eta)
	lines++
	b.WriteString("\x1b[J") // clear anything below (a shrunken block)
	p.lines = lines
	p.dirty = false
	io.WriteString(p.w, b.String())
}

// renderBar draws one file's line: name, bar, percent, bytes, rate.
func renderBar(id string, b *bar) string {
	const width = 24
	name := id
	if len(name) > 40 {
		name = "…" + name[len(name)-39:]
	}
	el := time.Since(b.began)
	if b.total <= 0 {
		return fmt.Sprintf("%-40s [%s] %s  %s", name, strings.Repeat("?", width), FormatBytes(b.done), FormatRate(b.got, el))
	}
	frac := float64(b.done) / float64(b.total)
	frac = min(max(frac, 0), 1)
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	return fmt.Sprintf("%-40s [%s] %3.0f%%  %s / %s  %s", name, bar, frac*100, FormatBytes(b.done), FormatBytes(b.total), FormatRate(b.got, el))
}
