package panthercommon

import (
	"path/filepath"
	"runtime"
	"sync"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// caseFiles is one case's answer and prediction as loaded, with the value
// statistics of each 8-bit mask that the byte path scores from.
type caseFiles struct {
	gt      *volume.Volume // Data nil when gtBytes holds the samples
	gtBytes []uint8
	gtStats *valueStats // nil unless gtBytes
	pred    *medseg.Loaded
	// predStats is nil unless pred.Bytes holds samples on the GT's shape.
	predStats *valueStats
}

// caseBuffers are the memory one case's 8-bit samples are decoded into,
// recycled from case to case (buffers) instead of fresh zeroed memory for
// each: a PANTHER case is two volumes of ~13 M voxels.
type caseBuffers struct{ gt, pred []byte }

// buffers holds the caseBuffers of cases graded so far.
var buffers = sync.Pool{New: func() any { return new(caseBuffers) }}

// larger is whichever of buf and got has the larger capacity.
func larger(buf, got []byte) []byte {
	if cap(got) > cap(buf) {
		return got
	}
	return buf
}

// predictionLimit bounds the decoded size of a prediction for a GT of n
// voxels.
func predictionLimit(n int) int64 { return max(int64(n)*8*64, 256<<20) }

// loadCase reads a case's GT (medseg.LoadAnswer) and its prediction rel
// (medseg.Load, bounded by predictionLimit of the GT's size) and gathers
// the value statistics of whichever is 8-bit. With more than one core and
// a MetaImage GT, whose shape its header gives before any sample is
// decoded, the two files are decoded concurrently; the errors are the
// sequential reading's (the GT's first).
//
// 8-bit samples are decoded into bufs where they fit (bufs nil: fresh
// memory), and bufs keeps the larger of its buffer and what was decoded;
// the samples in c live until bufs is used again.
func loadCase(submissionDir, gtFile, rel string, asReference bool, bufs *caseBuffers) (*caseFiles, error) {
	if bufs == nil {
		bufs = &caseBuffers{}
	}
	c := &caseFiles{}
	loadGT := func() error {
		gt, b, err := medseg.LoadAnswerInto(bufs.gt, gtFile)
		if err != nil {
			return err
		}
		bufs.gt = larger(bufs.gt, b)
		c.gt, c.gtBytes = gt, b
		if b != nil {
			c.gtStats = scanValues(b, gt.Grid)
		}
		return nil
	}
	loadPrediction := func(shape [3]int) error {
		pred, err := medseg.LoadInto(bufs.pred, submissionDir, rel, colPath, predictionLimit(shape[0]*shape[1]*shape[2]), asReference)
		if err != nil {
			return err
		}
		bufs.pred = larger(bufs.pred, pred.Bytes)
		c.pred = pred
		if pred.Bytes != nil && pred.Shape == shape {
			c.predStats = scanValues(pred.Bytes, pred.Grid)
		}
		return nil
	}
	if shape, ok := concurrentShape(gtFile); ok {
		gtDone := challenge.Beside("reading answer "+filepath.Base(gtFile), loadGT)
		predErr := loadPrediction(shape)
		if err := gtDone(); err != nil {
			return nil, err
		}
		if predErr != nil {
			return nil, predErr
		}
		return c, nil
	}
	if err := loadGT(); err != nil {
		return nil, err
	}
	if err := loadPrediction(c.gt.Shape); err != nil {
		return nil, err
	}
	return c, nil
}

// concurrentShape is the shape of the GT file, read from its header, when
// loadCase decodes the case's two files at once: more than one core and a
// MetaImage GT whose header reads.
func concurrentShape(gtFile string) ([3]int, bool) {
	if f, _ := imageio.FormatOf(gtFile); f != imageio.FormatMetaImage || runtime.GOMAXPROCS(0) < 2 {
		return [3]int{}, false
	}
	shape, err := metaimage.ReadShapeFile(gtFile, metaimage.Options{FirstVolume: true})
	return shape, err == nil
}
