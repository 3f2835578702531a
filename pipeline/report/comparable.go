package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/paper"
)

// printedSource is the run source of the paper's recorded results: never
// the name of a profile, so a profile called "paper" (new runs under the
// paper's settings) keeps its own runs apart from what the paper printed.
const printedSource = paper.Source

// Runs on synthetic data (the demo profile, test fixtures) are not
// comparable with the human leaderboards, which were built on the real test
// sets. The site keeps them out of every headline view (Figure 1, Tables
// 3–5, the leaderboards) and shows them only in their own, marked sections.

// comparable reports whether runs of a source can stand beside the human
// leaderboards: the paper's recorded runs, and runs of a profile whose data
// is fetched (the real challenge data). Unknown sources are not.
func (s *site) comparable(source string) bool {
	if source == printedSource {
		return true
	}
	p, ok := s.b.Profiles[source]
	return ok && p.Data == "fetched"
}

// dataKind names the data a source's runs were made on.
func (s *site) dataKind(source string) string {
	if source == printedSource {
		return "the paper's recorded results"
	}
	if p, ok := s.b.Profiles[source]; ok && p.Data != "" {
		return p.Data + " data"
	}
	return "synthetic data (no such profile in benchmark.toml)"
}

// nonComparableSources lists, sorted, the sources of runs in the store that
// are not comparable.
func (s *site) nonComparableSources() []string {
	seen := map[string]bool{}
	for _, r := range s.data.Runs {
		if !s.comparable(r.Source) {
			seen[r.Source] = true
		}
	}
	return sortedKeys(seen)
}

// buildProfile is the profile the site was built for: Options.Profile, or
// the single non-comparable source when there is one, or "paper".
func (s *site) buildProfile() string {
	if s.opts.Profile != "" {
		return s.opts.Profile
	}
	if nc := s.nonComparableSources(); len(nc) > 0 {
		return strings.Join(nc, ", ")
	}
	return "paper"
}

// syntheticBuild reports whether the site is built for runs on synthetic
// data: its profile is not on the real data, or, with no profile given, the
// store holds runs that are not comparable (the inferred profile).
func (s *site) syntheticBuild() bool {
	prof := s.opts.Profile
	if prof != "" {
		return prof != "paper" && !s.comparable(prof)
	}
	return len(s.nonComparableSources()) > 0
}

// bannerText is the notice on every page of a synthetic build ("" otherwise).
// A build for the paper or a real-data profile whose store also holds
// synthetic runs carries no page banner: only the sections that show those
// runs are marked (class section-demo).
func (s *site) bannerText() string {
	if !s.syntheticBuild() {
		return ""
	}
	nc := s.nonComparableSources()
	name := s.opts.Profile
	if name == "" {
		name = strings.Join(nc, ", ")
	}
	msg := fmt.Sprintf("Built from the %q profile: its runs are on synthetic data and are not comparable with the human leaderboards, which were built on the real test sets.", name)
	if len(nc) > 0 {
		msg += fmt.Sprintf(" They are kept out of the headline chart, Tables 3–5 and the leaderboards, and shown only in sections marked as synthetic (%d run(s) from %s).", s.countSources(nc), strings.Join(nc, ", "))
	}
	return msg
}

func (s *site) countSources(srcs []string) int {
	want := map[string]bool{}
	for _, x := range srcs {
		want[x] = true
	}
	n := 0
	for _, r := range s.data.Runs {
		if want[r.Source] {
			n++
		}
	}
	return n
}

// demoGroups are the configurations that are not comparable.
func (s *site) demoGroups() []*group {
	var out []*group
	for _, g := range s.data.Groups {
		if !s.comparable(g.Source) {
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return midpoint(out[i]) > midpoint(out[j]) })
	return out
}
