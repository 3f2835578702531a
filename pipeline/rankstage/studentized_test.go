package rankstage

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/store"
)

// resampleSE equals the jackknife over every drawn position, computed the
// long way, for a multiset with repeated cases and a non-linear statistic.
func TestResampleSEMatchesTheFullJackknife(t *testing.T) {
	col := []float64{0.3, -1.2, 2.5, 0.9, 1.7, -0.4}
	rmse := func(ix []int) float64 {
		var s float64
		for _, i := range ix {
			s += col[i] * col[i]
		}
		return math.Sqrt(s / float64(len(ix)))
	}
	ix := []int{4, 1, 1, 5, 0, 1, 4, 2}
	var jack []float64
	for p := range ix {
		loo := append(append([]int(nil), ix[:p]...), ix[p+1:]...)
		jack = append(jack, rmse(loo))
	}
	want := rank.JackknifeSE(jack)
	got := resampleSE(rmse, ix, make([]int, len(ix)), nil)
	if math.Abs(got-want) > 1e-12 || !(want > 0) {
		t.Errorf("resampleSE = %v, want %v", got, want)
	}
	if ix[0] != 4 || ix[1] != 1 {
		t.Error("resampleSE changed the draw")
	}
	if !math.IsNaN(resampleSE(rmse, []int{3}, make([]int, 1), nil)) {
		t.Error("one case has a standard error")
	}
}

// bootRun's studentized interval of the RMSE (of its square, the MSE) is the
// bootstrap-t interval of its own draws, recomputed here the long way
// (every leave-one-out of every draw).
func TestStudentizedIntervalThroughBootRun(t *testing.T) {
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	var cc coverageCase
	for _, c := range coverageCases() {
		if c.metric == "rmse" {
			cc = c
		}
	}
	c, _ := b.Challenge(cc.challenge)
	impl, _ := challenge.Lookup(c.ID)
	cases := cc.cases(rand.New(rand.NewPCG(3, 4)), 12)
	fs, errs := proposals(impl, []string{cc.metric}, cases)
	if errs[0] != nil || fs[0] == nil {
		t.Fatalf("no RMSE statistic: %v", errs[0])
	}
	f := fs[0]
	all := make([]int, len(cases))
	for i := range all {
		all[i] = i
	}
	value := f(all)
	opt := Options{Boot: 200, BootSeed: 5, Confidence: 0.95}
	rk := &Ranked{Run: store.Run{ID: "x/panther-task1/a/seed-1", Source: "x", Challenge: c.ID}, Values: map[string]float64{cc.metric: value},
		Result: rank.Result{Status: rank.OK}, cases: cases}
	u := caseUniverses(b, opt, []*Ranked{rk})[c.ID]
	rb, err := bootRun(context.Background(), opt, c, rk, u)
	if err != nil {
		t.Fatal(err)
	}
	mb := rb.Metrics[cc.metric]
	if mb.Method != rank.MethodStudentizedSquared {
		t.Fatalf("RMSE interval method %q, want %q", mb.Method, rank.MethodStudentizedSquared)
	}
	sqf := func(ix []int) float64 { return f(ix) * f(ix) }
	jackSE := func(ix []int) float64 {
		var jack []float64
		for p := range ix {
			jack = append(jack, sqf(append(append([]int(nil), ix[:p]...), ix[p+1:]...)))
		}
		return rank.JackknifeSE(jack)
	}
	var ts []float64
	for _, ix := range u.runDraws(cases) {
		ts = append(ts, rank.Studentized(sqf(ix), value*value, jackSE(ix)))
	}
	lo, hi := rank.StudentizedInterval(ts, value*value, jackSE(all), 0.95)
	lo, hi = math.Sqrt(math.Max(lo, 0)), math.Sqrt(hi)
	if math.Abs(lo-mb.Value.Lo) > 1e-12 || math.Abs(hi-mb.Value.Hi) > 1e-12 || !(lo < value && value < hi) {
		t.Errorf("interval [%v, %v], recomputed [%v, %v] around %v", mb.Value.Lo, mb.Value.Hi, lo, hi, value)
	}
}
