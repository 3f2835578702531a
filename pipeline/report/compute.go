package report

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/rexmle/rexmle/pipeline/workpool"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/gpu"
	"github.com/rexmle/rexmle/pipeline/store"
)

// The paper's claim about GPU memory use, tested on the runs with telemetry.
const (
	claimLo = 0.10
	claimHi = 0.20
)

// runCompute is what a run's GPU telemetry says.
type runCompute struct {
	Run        *runData
	GPUs       int
	Hours      float64           // GPU-hours: GPUs × wall time (gpu.Summarize)
	EnergyWh   float64           // NaN when neither energy counters nor power are sampled
	PeakFrac   float64           // max over samples of used / total device memory; NaN without memory samples
	MedianUtil float64           // median SM utilisation, %; NaN without samples
	Util, Mem  map[int][]float64 // per GPU, aligned with that GPU's samples
	Times      map[int][]float64
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// computeRun gathers one run's telemetry. The numbers (GPU-hours, energy,
// peak memory, median utilisation) are the run's gpu_summaries row, which
// gpu.Summarize computed when the run ended; a run without one (a store
// filled by other means) is summarised the same way here, over the wall time
// from started_at to ended_at (or the samples' span when those are unknown).
// The series' times are minutes elapsed since the run started (its
// started_at), or since the first sample when the start is unknown or later;
// a sample's stored elapsed_s, when known, is used as is.
func computeRun(r *runData, samples []gpu.Sample, sum *store.GPUSummary) *runCompute {
	rc := &runCompute{Run: r, Util: map[int][]float64{}, Mem: map[int][]float64{}, Times: map[int][]float64{}}
	byGPU := map[int][]gpu.Sample{}
	var t0, tEnd time.Time
	for _, g := range samples {
		if t0.IsZero() || g.At.Before(t0) {
			t0 = g.At
		}
		if g.At.After(tEnd) {
			tEnd = g.At
		}
		byGPU[g.GPU] = append(byGPU[g.GPU], g)
	}
	start, okStart := parseTime(r.StartedAt)
	if okStart && !start.After(t0) {
		t0 = start
	}
	gpus := make([]int, 0, len(byGPU))
	for id := range byGPU {
		gpus = append(gpus, id)
	}
	sort.Ints(gpus)
	for _, id := range gpus {
		ss := byGPU[id]
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].At.Before(ss[j].At) })
		for _, g := range ss {
			m := g.At.Sub(t0).Minutes()
			if !math.IsNaN(g.ElapsedS) {
				m = g.ElapsedS / 60
			}
			rc.Times[id] = append(rc.Times[id], m)
			rc.Util[id] = append(rc.Util[id], g.SMUtil)
			mf := math.NaN()
			if g.MemUsedBytes >= 0 && g.MemTotalBytes > 0 {
				mf = float64(g.MemUsedBytes) / float64(g.MemTotalBytes)
			}
			rc.Mem[id] = append(rc.Mem[id], 100*mf)
		}
	}
	var s gpu.Summary
	if sum != nil {
		s = sum.Summary
	} else {
		wall := tEnd.Sub(t0)
		if end, ok := parseTime(r.EndedAt); ok && okStart && end.After(start) {
			wall = end.Sub(start)
		}
		s = gpu.Summarize(samples, len(gpus), wall)
	}
	rc.GPUs, rc.Hours = s.GPUs, s.GPUHours
	rc.EnergyWh, rc.PeakFrac, rc.MedianUtil = 1000*s.EnergyKWh, s.PeakMemFraction, s.SMUtilMedian
	return rc
}

// computePage shows per-run GPU utilisation and memory over time, GPU-hours,
// energy and peak memory, and tests the paper's 10–20 % memory claim.
func (s *site) computePage() ([]*page, error) {
	p := &page{Path: "compute.html", Title: "Compute", TOC: true}
	var rcs []*runCompute
	without := 0
	for _, r := range s.data.Runs {
		if r.Source == printedSource {
			continue
		}
		if ss := s.data.GPU[r.ID]; len(ss) > 0 {
			var sum *store.GPUSummary
			if g, ok := s.data.GPUSummary[r.ID]; ok {
				sum = &g
			}
			rcs = append(rcs, computeRun(r, ss, sum))
		} else {
			without++
		}
	}
	sum := &section{ID: "summary", Title: "Summary"}
	p.Sections = append(p.Sections, sum)
	p.Sections = append(p.Sections, s.computeNormSections()...)
	sum.Paragraphs = append(sum.Paragraphs, fmt.Sprintf("%d run(s) have GPU telemetry; %d run(s) have none (no GPU, or telemetry off). The paper's recorded runs carry no telemetry.", len(rcs), without))
	if len(rcs) == 0 {
		sum.Paragraphs = append(sum.Paragraphs, "The paper reports that agents used only about 10–20 % of GPU memory; with no telemetry here that claim cannot be tested.")
		return []*page{p}, nil
	}
	var peaks []float64
	in := 0
	var hours, wh float64
	for _, rc := range rcs {
		hours += rc.Hours
		if !math.IsNaN(rc.EnergyWh) {
			wh += rc.EnergyWh
		}
		if !math.IsNaN(rc.PeakFrac) {
			peaks = append(peaks, rc.PeakFrac)
			if rc.PeakFrac >= claimLo && rc.PeakFrac <= claimHi {
				in++
			}
		}
	}
	sort.Float64s(peaks)
	if len(peaks) > 0 {
		med := num.Median(peaks)
		verdict := "consistent with"
		if med < claimLo || med > claimHi {
			verdict = "not consistent with"
		}
		sum.Paragraphs = append(sum.Paragraphs, fmt.Sprintf("Peak GPU memory fraction: median %.1f %% over %d run(s) (range %.1f–%.1f %%); %d of them peak within 10–20 %%. This is %s the paper's claim that agents use 10–20 %% of GPU memory.",
			100*med, len(peaks), 100*peaks[0], 100*peaks[len(peaks)-1], in, verdict))
	}
	sum.Paragraphs = append(sum.Paragraphs, fmt.Sprintf("In all: %.2f GPU-hours, %.1f Wh.", hours, wh))
	t := &table{ID: "compute", Caption: "GPU use per run", Head: []string{"Run", "Challenge", "Seed", "GPUs", "GPU-hours", "Energy (Wh)", "Median SM util (%)", "Peak memory (%)"}}
	for _, rc := range rcs {
		r := rc.Run
		t.Rows = append(t.Rows, row{Cells: []cell{{Text: s.runLabel(r)}, {Text: s.shortName(r.Challenge), Href: "challenges/" + r.Challenge + ".html"},
			{Text: strconv.Itoa(r.Seed), Class: "num"}, {Text: strconv.Itoa(rc.GPUs), Class: "num"}, {Text: fmt.Sprintf("%.3f", rc.Hours), Class: "num"},
			{Text: numText(rc.EnergyWh, 1), Class: "num", Sort: sortKey(rc.EnergyWh)}, {Text: numText(rc.MedianUtil, 1), Class: "num", Sort: sortKey(rc.MedianUtil)},
			{Text: numText(100*rc.PeakFrac, 1), Class: "num", Sort: sortKey(rc.PeakFrac)}}})
	}
	sum.Tables = []*table{t}
	per := &section{ID: "runs", Title: "Utilisation and memory over time",
		Paragraphs: []string{"Interactive charts first; static PNG plots of the same samples follow, for print and for readers without JavaScript."}}
	// The static PNG plots render in parallel.
	pngs := make([][]byte, len(rcs))
	errs := make([]error, len(rcs))
	names := make([]string, len(rcs))
	for i, rc := range rcs {
		r := rc.Run
		names[i] = s.runLabel(r) + ", " + s.shortName(r.Challenge) + ", seed " + strconv.Itoa(r.Seed)
	}
	workpool.Each(context.Background(), len(rcs), 0, func(i int) {
		pngs[i], errs[i] = gpuPNG(names[i], rcs[i], gpuIDs(rcs[i]))
	})
	for i, rc := range rcs {
		r := rc.Run
		name := names[i]
		if errs[i] != nil {
			return nil, fmt.Errorf("plot %s: %w", r.ID, errs[i])
		}
		gpus := gpuIDs(rc)
		var series []lineSeries
		for _, id := range gpus {
			series = append(series, lineSeries{Name: fmt.Sprintf("GPU %d SM util", id), X: rc.Times[id], Y: rc.Util[id]},
				lineSeries{Name: fmt.Sprintf("GPU %d memory", id), X: rc.Times[id], Y: rc.Mem[id]})
		}
		if allZeroOrNaN(series) {
			per.Paragraphs = append(per.Paragraphs, name+": every sample reads 0 % utilisation and 0 % memory (no chart drawn).")
		} else {
			per.Charts = append(per.Charts, lineChart(chartID("gpu", r.ID), name, series, "Line chart of SM utilisation and memory use (% of device memory) against minutes elapsed since the run started, for "+name))
		}
		path := "plots/gpu-" + slug(r.ID) + ".png"
		s.addFile(path, pngs[i])
		per.Images = append(per.Images, image{Src: path, Alt: "Static plot of SM utilisation and memory use over time for " + name, Width: 720, Height: 360})
	}
	p.Sections = append(p.Sections, per)
	return []*page{p}, nil
}

// allZeroOrNaN reports whether no series has a positive value.
// runLabel names a run's configuration, marked when its data is synthetic.
func (s *site) runLabel(r *runData) string {
	l := s.label(groupKey{r.Source, r.Setting, r.Backend, r.Agent})
	if !s.comparable(r.Source) {
		l += " [synthetic]"
	}
	return l
}

func allZeroOrNaN(ss []lineSeries) bool {
	for _, s := range ss {
		for _, v := range s.Y {
			if v > 0 {
				return false
			}
		}
	}
	return true
}

func numText(v float64, dec int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// lineColors are the PNG plot's colours: utilisation, memory.
var lineColors = [2]color.RGBA{{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}, {R: 0xd9, G: 0x6c, B: 0x00, A: 0xff}}

// gpuPNG draws utilisation and memory over time with gonum/plot.
func gpuPNG(title string, rc *runCompute, gpus []int) ([]byte, error) {
	pl := plot.New()
	pl.Title.Text = title
	pl.X.Label.Text = "minutes elapsed since the run started"
	pl.Y.Label.Text = "%"
	pl.Y.Min, pl.Y.Max = 0, 125 // headroom above 100 % for the legend
	for i, id := range gpus {
		for j, kind := range []string{"SM util", "memory"} {
			vals := rc.Util[id]
			if j == 1 {
				vals = rc.Mem[id]
			}
			var xy plotter.XYs
			for k, v := range vals {
				if !math.IsNaN(v) && k < len(rc.Times[id]) {
					xy = append(xy, plotter.XY{X: rc.Times[id][k], Y: v})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color = lineColors[j]
			if i%2 == 1 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			l.Width = vg.Points(1.5)
			pl.Add(l)
			pl.Legend.Add(fmt.Sprintf("GPU %d %s", id, kind), l)
		}
	}
	pl.Legend.Top = true
	pl.Legend.Left = true
	c := vgimg.New(7.5*vg.Inch, 3.75*vg.Inch)
	pl.Draw(draw.New(c))
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gpuIDs are the run's GPU indices, sorted.
func gpuIDs(rc *runCompute) []int {
	out := make([]int, 0, len(rc.Times))
	for id := range rc.Times {
		out = append(out, id)
	}
	sort.Ints(out)
	return out
}
