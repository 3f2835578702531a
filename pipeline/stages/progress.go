package stages

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress draws a one-line progress bar on a terminal; elsewhere it prints
// a line per finished item only with `mage -v` (the stage's summary line
// says the rest).
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	label   string
	total   int
	done    int
	failed  int
	start   time.Time
	lastLen int
	verbose bool
}

func newProgress(label string, total int) *progress {
	st, err := os.Stderr.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0
	p := &progress{w: os.Stderr, tty: tty, label: label, total: total, start: time.Now(), verbose: verbose()}
	p.draw("")
	return p
}

// step records one finished item.
func (p *progress) step(item string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !ok {
		p.failed++
	}
	p.draw(item)
}

func (p *progress) draw(item string) {
	el := time.Since(p.start).Round(100 * time.Millisecond)
	if !p.tty {
		if item != "" && p.verbose {
			fmt.Fprintf(p.w, "%s %d/%d %s (%s)\n", p.label, p.done, p.total, item, el)
		}
		return
	}
	const width = 30
	fill := 0
	if p.total > 0 {
		fill = width * p.done / p.total
	}
	eta := ""
	if p.done > 0 && p.done < p.total {
		rem := time.Duration(float64(time.Since(p.start)) / float64(p.done) * float64(p.total-p.done)).Round(time.Second)
		eta = fmt.Sprintf(" ETA %s", rem)
	}
	line := fmt.Sprintf("\r%s [%s%s] %d/%d failed %d %s%s %s", p.label, strings.Repeat("█", fill), strings.Repeat("░", width-fill), p.done, p.total, p.failed, el, eta, item)
	pad := p.lastLen - len(line)
	p.lastLen = len(line)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprint(p.w, line+strings.Repeat(" ", pad))
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// Step and Finish make a progress bar a grade.Progress.
func (p *progress) Step(item string, ok bool) { p.step(item, ok) }

// Finish ends the bar's line.
func (p *progress) Finish() { p.finish() }
