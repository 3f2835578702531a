package quality

import (
	"fmt"
	"unsafe"
)

// LNCCSSIM8 returns LNCC8(a, b, win) and SSIM8(a, b, opt), bit for bit.
// Where the CPU has AVX2 and FMA, win is 11 and opt takes SSIM8's integer
// path with a window of 7 (the reference's; its quotients need no check,
// see quotient32), SSIM's row pass runs inside LNCC's box kernel: that
// kernel keeps the fused multiply-add units busy and leaves the adders,
// loads and stores mostly idle. SSIM8's rows are advanced a few ahead of
// the box kernel's calls (ssimFuse), each call computes row-pass segments
// between its taps (slide11r), and the rows are emitted in order once
// their segments are done (or computed apart when every slot is taken);
// where the frame is mostly zero (fuseCoverage) the two run one after the
// other. Otherwise it makes the two calls. Errors name the measure.
func LNCCSSIM8(a, b Gray8, win int, opt SSIMOptions) (lncc, ssim float64, err error) {
	o := opt
	// With AVX-512F the 16-column box kernel takes the strips the fused row
	// pass rides in (slide11r is 8 columns wide), so there the two run apart:
	// on the GPU node's Xeon (512² speckle, one core) LNCCSSIM8 fused took
	// 3.70 ms, LNCC8 2.47 ms and SSIM8 1.00 ms.
	fuse := checkPair8(a, b) == nil && win == 11 && ssim8Vector && !slideWide && o.fill() == nil &&
		ssim8Exact(a, o) && o.WinSize == 7 && a.W >= 4*rowVecs
	if !fuse {
		if lncc, err = LNCC8(a, b, win); err != nil {
			return 0, 0, fmt.Errorf("LNCC: %w", err)
		}
		if ssim, err = SSIM8(a, b, opt); err != nil {
			return 0, 0, fmt.Errorf("SSIM: %w", err)
		}
		return lncc, ssim, nil
	}
	run := newSSIM8Run(a, b, o, fuseSlots)
	defer run.release()
	var f *ssimFuse
	if run.coverage() >= fuseCoverage {
		f = newSSIMFuse(run)
	}
	if lncc, err = lncc8(a, b, win, f); err != nil {
		return 0, 0, fmt.Errorf("LNCC: %w", err)
	}
	if f != nil {
		f.drain()
	} else {
		run.all()
	}
	return lncc, run.result(), nil
}

// fuseCoverage is the share of the frame (rows × columns between each
// row's first and last non-zero sample in either image) from which the
// row pass is run inside the box kernel. On sector scans (about 60 %) the
// rows kept in flight cost about what the hidden row pass saves: measured
// alternating with the two calls in one process (AMD EPYC, 512² pairs),
// fused took 0.977 of the time on full-field speckle and 1.010 on sector
// scans. (A variable: tests set it to 0 to fuse every frame.)
var fuseCoverage = 0.9

// rowVecs is the number of row-pass vectors of four outputs slide11r
// computes per step: gen_slide11.go's rowVecs (TestSlide11r checks it).
// With 2 a 512² speckle pair's box kernel has room for about 98 % of its
// row pass; 3 had room for all of it but cost more per output inside the
// kernel (0.162 against 0.125 ns), and LNCCSSIM8 took 0.8 % longer
// (paired medians 0.980–0.991 against 0.971–0.980 of the two calls).
const rowVecs = 2

// fuseSlots is the number of SSIM rows that may wait for their row pass:
// more than one box kernel call takes (at most 64 strips × lnccBand steps
// of 4·rowVecs outputs: about three 512-wide rows).
const fuseSlots = 8

// rowSeg is a run of one second-pass row: n steps of 4·rowVecs outputs
// into dst from the first-pass values at src. The addresses are of an
// ssim8Row's buffers, which the run keeps alive.
type rowSeg struct {
	src, dst uintptr
	n        int
}

// rowJob is slide11r's work list: segments next … end−1 of segs are to
// run, after the current one's left steps at src and dst; inv (four
// copies) is the quotient's multiplier. The kernel reads and updates it in
// place, so its layout is fixed (TestRowJobLayout; gen_slide11.go's job*
// offsets).
type rowJob struct {
	inv       [4]float64
	segs      *rowSeg
	next, end int
	src, dst  uintptr
	left      int
}

// ssimFuse queues an ssim8Run's rows for slide11r. Slots head … head+count−1
// (mod fuseSlots) hold rows advanced but not emitted, in row order; their
// segments are segs[s0:s1], and segments before job.next have started.
type ssimFuse struct {
	run         *ssim8Run
	head, count int
	segs        []rowSeg
	job         rowJob
}

func newSSIMFuse(run *ssim8Run) *ssimFuse {
	f := &ssimFuse{run: run, segs: make([]rowSeg, 0, 5*fuseSlots+1)}
	for i := range f.job.inv {
		f.job.inv[i] = run.q.inv
	}
	f.job.segs = &f.segs[:1][0]
	return f
}

// pending is the number of steps of work queued and not done.
func (f *ssimFuse) pending() int {
	n := f.job.left
	for _, s := range f.segs[f.job.next:] {
		n += s.n
	}
	return n
}

// topUp advances rows until at least steps steps of work are queued (or
// every row is advanced), emitting the oldest row first where all slots are
// taken. It then points the job at the queue.
func (f *ssimFuse) topUp(steps int) {
	s := f.run
	for s.y < s.h && f.pending() < steps {
		if f.count == len(s.slots) {
			f.finishHead()
		}
		row := &s.slots[(f.head+f.count)%len(s.slots)]
		if !s.advance(row) {
			continue
		}
		row.s0 = len(f.segs)
		if n := (row.cb - row.ca) / (4 * rowVecs); n > 0 {
			row.fused = 4 * rowVecs * n
			for p := 0; p < 5; p++ {
				f.segs = append(f.segs, rowSeg{
					src: uintptr(unsafe.Pointer(&row.ext[p*s.es+row.ca])),
					dst: uintptr(unsafe.Pointer(&row.outs[p*s.w+row.ca])),
					n:   n,
				})
			}
		}
		row.s1 = len(f.segs)
		f.count++
	}
	f.job.segs, f.job.end = &f.segs[:1][0], len(f.segs)
}

// done reports whether every segment of row has run.
func (f *ssimFuse) done(row *ssim8Row) bool {
	return row.s1 < f.job.next || row.s1 == f.job.next && f.job.left == 0
}

// retire emits the rows at the head whose segments are done and drops the
// segments no row waits for.
func (f *ssimFuse) retire() {
	s := f.run
	for f.count > 0 {
		row := &s.slots[f.head]
		if !f.done(row) {
			break
		}
		f.emit(row)
	}
	k := f.job.next // the segments before k have started ...
	if f.job.left > 0 {
		k-- // ... and k−1 is under way: finishHead may need its length
	}
	if k > 0 {
		n := copy(f.segs, f.segs[k:])
		f.segs = f.segs[:n]
		for i := 0; i < f.count; i++ {
			row := &s.slots[(f.head+i)%len(s.slots)]
			row.s0 -= k
			row.s1 -= k
		}
		f.job.next, f.job.end = f.job.next-k, n
	}
}

// finishHead computes what the kernel has not of the oldest row's
// segments, then emits it.
func (f *ssimFuse) finishHead() {
	s := f.run
	row := &s.slots[f.head]
	if !f.done(row) {
		step := 4 * rowVecs
		for i := row.s0; i < row.s1; i++ {
			from := 0 // outputs of the segment done
			switch {
			case i < f.job.next-1 || i == f.job.next-1 && f.job.left == 0:
				continue
			case i == f.job.next-1:
				from = (f.segs[i].n - f.job.left) * step
			}
			p, o := i-row.s0, row.ca+from
			n := row.fused - from
			ssimRows4(&row.ext[p*s.es+o], s.es, &row.outs[p*s.w+o], s.w, n, s.size, s.q.inv, s.q.s, &s.pr[0], 0, 1)
		}
		f.job.next, f.job.left = row.s1, 0
	}
	f.emit(row)
}

// emit computes the row's columns past its segments and emits it.
func (f *ssimFuse) emit(row *ssim8Row) {
	s := f.run
	s.rowPass(row, row.fused)
	s.emitRow(row)
	f.head = (f.head + 1) % len(s.slots)
	f.count--
}

// drain finishes every queued row, then the rows not yet advanced.
func (f *ssimFuse) drain() {
	for f.count > 0 {
		f.finishHead()
	}
	f.run.all()
}
