package rankstage

import (
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/dentex"        // COCO AP
	_ "github.com/rexmle/rexmle/pipeline/challenges/panthercommon" // RMSE
	_ "github.com/rexmle/rexmle/pipeline/challenges/sega"          // medians
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"  // pooled F1
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// coverageCase is one aggregation of the coverage study: a challenge and
// metric whose interval bootRun computes, a generator of n synthetic
// graded cases from a population, and the metric's population value.
type coverageCase struct {
	name, challenge, metric string
	truth                   float64
	cases                   func(r *rand.Rand, n int) []challenge.Case
	// atN: the target is the metric's mean over samples of n cases, not
	// its large-sample value (NaN truth) — for a metric whose small-sample
	// bias no interval of the resampled values can remove.
	atN bool
	// biased: reported, not required to reach 93 % (the metric's own
	// small-sample bias keeps every interval of the resampled values short).
	biased bool
	// slow: COCO accumulations make the row take minutes; it runs only
	// with REXMLE_COVERAGE_SLOW=1.
	slow bool
}

func coverageCases() []coverageCase {
	const rho = 0.6
	// Four TopCoW group-2 labels, each TP/FN/FP/TN with these probabilities.
	det := [][4]float64{{0.6, 0.2, 0.1, 0.1}, {0.3, 0.3, 0.2, 0.2}, {0.5, 0.1, 0.3, 0.1}, {0.2, 0.2, 0.1, 0.5}}
	f1 := 0.0
	for _, p := range det {
		f1 += 2 * p[0] / (2*p[0] + p[1] + p[2])
	}
	f1 /= float64(len(det))
	outcome := []string{"TP", "FN", "FP", "TN"}
	return []coverageCase{
		{"mean (Beta(2,5) Dice)", "isles22", "dice", 2.0 / 7, func(r *rand.Rand, n int) []challenge.Case {
			out := make([]challenge.Case, n)
			for i := range out {
				x, y := gammaInt(r, 2), gammaInt(r, 5)
				out[i] = challenge.Case{ID: fmt.Sprintf("c%04d", i), Values: map[string]float64{"dice": x / (x + y)}}
			}
			return out
		}, false, false, false},
		{"median (log-normal HD)", "seg_a", "hd_50pc", math.Exp(1), func(r *rand.Rand, n int) []challenge.Case {
			out := make([]challenge.Case, n)
			for i := range out {
				out[i] = challenge.Case{ID: fmt.Sprintf("c%04d", i), Values: map[string]float64{"hd": math.Exp(1 + 0.8*r.NormFloat64()), "dsc": 0.8}}
			}
			return out
		}, false, false, false},
		{"RMSE (N(0.5, 1) errors)", "panther-task1", "rmse", math.Sqrt(1.25), func(r *rand.Rand, n int) []challenge.Case {
			out := make([]challenge.Case, n)
			for i := range out {
				out[i] = challenge.Case{ID: fmt.Sprintf("c%04d", i), Values: map[string]float64{"tumour_burden_error_mm3": 0.5 + r.NormFloat64()}}
			}
			return out
		}, false, false, false},
		{"correlation (LDCT score, ρ = 0.6)", "ldct-iqa", "score", rho + 6/math.Pi*math.Asin(rho/2) + 2/math.Pi*math.Asin(rho), func(r *rand.Rand, n int) []challenge.Case {
			out := make([]challenge.Case, n)
			for i := range out {
				a, b := r.NormFloat64(), r.NormFloat64()
				out[i] = challenge.Case{ID: fmt.Sprintf("c%04d", i), Values: map[string]float64{"truth": a, "prediction": rho*a + math.Sqrt(1-rho*rho)*b}}
			}
			return out
		}, false, false, false},
		{"pooled F1 (TopCoW group 2)", "topcow-track1-task1", "f1_grp2", f1, func(r *rand.Rand, n int) []challenge.Case {
			out := make([]challenge.Case, n)
			for i := range out {
				d := make([]string, len(det))
				for k, p := range det {
					u, j := r.Float64(), 0
					for ; j < 3 && u >= p[j]; j++ {
						u -= p[j]
					}
					d[k] = outcome[j]
				}
				b, _ := json.Marshal(map[string]any{"det": d})
				out[i] = challenge.Case{ID: fmt.Sprintf("c%04d", i), Values: map[string]float64{}, Detail: b}
			}
			return out
		}, false, false, false},
		// No closed form: NaN asks coverage for the population value. COCO
		// AP's precision envelope (the best precision at any higher recall)
		// biases it upward in small samples (here 0.232 at n = 10, 0.201 at
		// 30, 0.187 at 100, 0.175 at 1000 against 0.171 at 20,000): the
		// coverage of the large-sample value and of the mean at n are both
		// reported, neither required (the bootstrap distribution carries
		// the bias again, which BCa corrects only in part).
		{name: "COCO AP (DENTEX), large-sample AP", challenge: "dentex", metric: "ap_mean", truth: math.NaN(), cases: dentexCases, biased: true, slow: true},
		{name: "COCO AP (DENTEX), mean AP at n", challenge: "dentex", metric: "ap_mean", truth: math.NaN(), cases: dentexCases, atN: true, biased: true, slow: true},
	}
}

// dentexCases draws n panoramic X-rays' COCO records in the layout DENTEX's
// Grade stores (Case.Detail: version 1, image id, the 10 IoU thresholds,
// then per level — 4 quadrants, 8 teeth, 4 diagnoses — each category's
// truths and detections, descending score, with match bit t set when the
// detection matches a truth at IoU threshold t). A category holds one or
// two truths half the time; a truth is found with probability 0.7 with a
// high score and a localisation good up to a random threshold; up to two
// false positives score lower.
func dentexCases(r *rand.Rand, n int) []challenge.Case {
	nClasses := []int{4, 8, 4}
	out := make([]challenge.Case, n)
	for i := range out {
		b := []byte{1}
		b = binary.AppendVarint(b, int64(i+1))
		b = append(b, 10)
		for _, nc := range nClasses {
			type det struct {
				score float64
				match uint64
			}
			var cats [][]det
			var npos []int
			var ks []int
			for k := 0; k < nc; k++ {
				np := 0
				if r.Float64() < 0.5 {
					np = 1 + r.IntN(2)
				}
				var ds []det
				for j := 0; j < np; j++ {
					if r.Float64() < 0.7 {
						good := r.IntN(11) // matched at the first good thresholds
						ds = append(ds, det{0.4 + 0.6*r.Float64(), 1<<good - 1})
					}
				}
				for j := r.IntN(3); j > 0; j-- {
					ds = append(ds, det{0.8 * r.Float64(), 0})
				}
				if np == 0 && len(ds) == 0 {
					continue
				}
				slices.SortStableFunc(ds, func(a, b det) int { return cmp.Compare(b.score, a.score) })
				cats, npos, ks = append(cats, ds), append(npos, np), append(ks, k)
			}
			b = binary.AppendUvarint(b, uint64(len(cats)))
			for c, ds := range cats {
				b = binary.AppendUvarint(b, uint64(ks[c]))
				b = binary.AppendUvarint(b, uint64(npos[c]))
				b = binary.AppendUvarint(b, uint64(len(ds)))
				for _, d := range ds {
					b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.score))
					b = binary.AppendUvarint(b, d.match)
					b = binary.AppendUvarint(b, 0)
				}
			}
		}
		out[i] = challenge.Case{ID: fmt.Sprintf("c%05d", i), Values: map[string]float64{}, Detail: b}
	}
	return out
}

var (
	truthMu    sync.Mutex
	truthCache = map[string]float64{}
)

// populationValue is the metric of the challenge over n generated cases.
func populationValue(t testing.TB, id, metric string, gen func(*rand.Rand, int) []challenge.Case, n int) float64 {
	truthMu.Lock()
	defer truthMu.Unlock()
	if v, ok := truthCache[id+"/"+metric]; ok {
		return v
	}
	impl, _ := challenge.Lookup(id)
	cases := gen(rand.New(rand.NewPCG(99, 99)), n)
	fs, errs := proposals(impl, []string{metric}, cases)
	if errs[0] != nil || fs[0] == nil {
		t.Fatalf("%s %s: no statistic: %v", id, metric, errs[0])
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	v := fs[0](all)
	truthCache[id+"/"+metric] = v
	return v
}

// meanAtN is the mean of the metric over reps generated samples of n cases
// (streams apart from the coverage runs').
func meanAtN(t testing.TB, cc coverageCase, n, reps int) float64 {
	impl, _ := challenge.Lookup(cc.challenge)
	r := rand.New(rand.NewPCG(uint64(n), 4242))
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	var sum float64
	for k := 0; k < reps; k++ {
		fs, errs := proposals(impl, []string{cc.metric}, cc.cases(r, n))
		if errs[0] != nil || fs[0] == nil {
			t.Fatalf("%s: no statistic: %v", cc.name, errs[0])
		}
		sum += fs[0](all)
	}
	return sum / float64(reps)
}

func gammaInt(r *rand.Rand, k int) float64 {
	s := 0.0
	for i := 0; i < k; i++ {
		s += r.ExpFloat64()
	}
	return s
}

// coverage runs bootRun — the rank stage's own resampling, aggregation and
// interval code — on reps synthetic runs of n cases each and returns the
// share of value intervals that hold the population value, and the method.
func coverage(t testing.TB, b *config.Benchmark, cc coverageCase, n, reps, boot int) (float64, string) {
	c, ok := b.Challenge(cc.challenge)
	if !ok {
		t.Fatalf("no challenge %s", cc.challenge)
	}
	impl, _ := challenge.Lookup(c.ID)
	switch {
	case cc.atN:
		cc.truth = meanAtN(t, cc, n, 2000)
	case math.IsNaN(cc.truth):
		// The metric over 20,000 cases: its sampling error (about 0.002
		// for COCO AP) is small against the intervals' widths.
		cc.truth = populationValue(t, cc.challenge, cc.metric, cc.cases, 20000)
	}
	r := rand.New(rand.NewPCG(uint64(n), uint64(len(cc.name))))
	hit, method := 0, ""
	for rep := 0; rep < reps; rep++ {
		cases := cc.cases(r, n)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		// The graded value: the challenge's own statistic on all cases, or
		// the mean of the per-case values where it has none.
		fs, errs := proposals(impl, []string{cc.metric}, cases)
		if errs[0] != nil {
			t.Fatalf("%s: %v", cc.name, errs[0])
		}
		f := fs[0]
		if f == nil {
			col := make([]float64, n)
			for i, cs := range cases {
				col[i] = cs.Values[cc.metric]
			}
			f = meanOf(col)
		}
		value := f(all)
		rk := &Ranked{Run: store.Run{ID: fmt.Sprintf("cov/%d", rep), Source: "x", Challenge: c.ID}, Values: map[string]float64{cc.metric: value},
			Result: rank.Result{Status: rank.OK}, cases: cases}
		u := caseUniverses(b, Options{Boot: boot, BootSeed: uint64(rep)}, []*Ranked{rk})[c.ID]
		rb, err := bootRun(context.Background(), Options{Boot: boot, BootSeed: uint64(rep), Confidence: 0.95}, c, rk, u)
		if err != nil {
			t.Fatal(err)
		}
		mb := rb.Metrics[cc.metric]
		if mb == nil || mb.Method == "" {
			t.Fatalf("%s: no interval: %+v", cc.name, mb)
		}
		method = mb.Method
		if mb.Value.Lo <= cc.truth && cc.truth <= mb.Value.Hi {
			hit++
		}
	}
	return float64(hit) / float64(reps), method
}

// TestIntervalCoverage measures the coverage of the rank stage's 95 %
// value intervals on synthetic runs with a known population value, for
// each aggregation, at n = 3, 10, 30 and 100 cases, and requires ≥ 93 % at
// n ≥ 10, less the Monte-Carlo error of 300 runs. Each aggregation is a
// subtest (-run 'Coverage/RMSE'); the COCO AP rows need
// REXMLE_COVERAGE_SLOW=1. Slow: skipped with -short.
func TestIntervalCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("coverage study: slow")
	}
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	const reps, boot = 300, 500
	var report strings.Builder
	fmt.Fprintf(&report, "coverage of 95 %% intervals (%d synthetic runs each, B = %d)\n", reps, boot)
	for _, cc := range coverageCases() {
		t.Run(cc.name, func(t *testing.T) {
			if cc.slow && os.Getenv("REXMLE_COVERAGE_SLOW") != "1" {
				t.Skip("minutes of COCO accumulations: set REXMLE_COVERAGE_SLOW=1")
			}
			line := fmt.Sprintf("%-36s", cc.name)
			for _, n := range []int{3, 10, 30, 100} {
				cov, method := coverage(t, b, cc, n, reps, boot)
				line += fmt.Sprintf("  n=%-3d %5.1f %%", n, 100*cov)
				if n == 100 {
					line += fmt.Sprintf("  (%s)", method)
				}
				// 93 % less 2.5 Monte-Carlo standard errors (1.5 points
				// each at 300 runs).
				if n >= 10 && cov < 0.93-0.04 && !cc.biased {
					t.Errorf("%s, n = %d: coverage %.1f %% (%s)", cc.name, n, 100*cov, method)
				}
			}
			report.WriteString(line + "\n")
		})
	}
	t.Log("\n" + report.String())
}
