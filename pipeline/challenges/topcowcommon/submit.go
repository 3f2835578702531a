package topcowcommon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// testCases reads the ids and prediction paths of public/sample_submission.csv.
func (c Challenge) testCases(publicDir string) (ids, paths []string, err error) {
	tab, err := challenge.ReadCSV(filepath.Join(publicDir, "sample_submission.csv"))
	if err != nil {
		return nil, nil, fmt.Errorf("read sample submission: %w", err)
	}
	if ids, err = tab.Column("image_id"); err != nil {
		return nil, nil, err
	}
	if paths, err = tab.Column(c.pathColumn()); err != nil {
		return nil, nil, err
	}
	return ids, paths, nil
}

// writeSubmission writes submission.csv and one prediction per test case,
// produced by fn from the case's test image.
func (c Challenge) writeSubmission(ctx context.Context, publicDir, outDir string, fn func(i int, pid string, img *volume.Volume) ([]byte, error)) error {
	ids, paths, err := c.testCases(publicDir)
	if err != nil {
		return err
	}
	err = challenge.ForEach(ctx, len(ids), func(i int) error {
		img, err := nifti.ReadFile(filepath.Join(publicDir, "test", "images", c.imageName(ids[i])))
		if err != nil {
			return err
		}
		b, err := fn(i, ids[i], img)
		if err != nil {
			return err
		}
		return challenge.WriteFileAtomic(filepath.Join(outDir, filepath.FromSlash(paths[i])), b)
	})
	if err != nil {
		return err
	}
	rows := make([][]string, len(ids))
	for i := range ids {
		rows[i] = []string{ids[i], c.ModalityName(), paths[i]}
	}
	return challenge.WriteCSV(filepath.Join(outDir, medseg.SubmissionFile), []string{"image_id", "modality", c.pathColumn()}, rows)
}

// encodeLabels encodes a label map placed like img as a gzipped NIfTI.
func encodeLabels(img *volume.Volume, labels []uint8) ([]byte, error) {
	v := volume.New(img.Grid, volume.Uint8)
	v.Origin, v.Direction = img.Origin, img.Direction
	for i, l := range labels {
		v.Data[i] = float64(l)
	}
	var buf bytes.Buffer
	if err := nifti.Write(&buf, v, volume.Uint8, true); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func boxFile(b topology.Box) []byte {
	js, _ := json.MarshalIndent(boxJSON{b.Size, b.Location}, "", "  ")
	return js
}

func edgesFile(ant, pos [4]int) []byte {
	m := map[string]map[string]int{"anterior": {}, "posterior": {}}
	for i, n := range topology.AnteriorEdgeNames {
		m["anterior"][n] = ant[i]
	}
	for i, n := range topology.PosteriorEdgeNames {
		m["posterior"][n] = pos[i]
	}
	js, _ := json.MarshalIndent(m, "", "  ")
	return js
}

// SampleSubmission writes a fixed, image-independent guess: a straight
// "basilar artery" tube (label 1) up the centre of each volume, a box of
// half the volume size in its centre, or a complete Circle of Willis
// (every edge 1).
func (c Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	return c.writeSubmission(ctx, publicDir, outDir, func(_ int, _ string, img *volume.Volume) ([]byte, error) {
		switch c.Task {
		case Box:
			var b topology.Box
			for a := 0; a < 3; a++ {
				b.Size[a] = max(1, img.Shape[a]/2)
				b.Location[a] = (img.Shape[a] - b.Size[a]) / 2
			}
			return boxFile(b), nil
		case Edges:
			return edgesFile([4]int{1, 1, 0, 1}, [4]int{1, 1, 1, 1}), nil
		}
		lab := make([]uint8, img.Len())
		cx, cy := img.Shape[0]/2, img.Shape[1]/2
		for z := img.Shape[2] / 4; z < img.Shape[2]/2; z++ {
			for y := cy - 1; y <= cy+1; y++ {
				for x := cx - 1; x <= cx+1; x++ {
					if x >= 0 && y >= 0 && x < img.Shape[0] && y < img.Shape[1] {
						lab[img.Index(x, y, z)] = 1
					}
				}
			}
		}
		return encodeLabels(img, lab)
	})
}

// Trivial writes an all-background label map, a one-voxel box at the
// origin, or an empty Circle of Willis (every edge 0).
func (c Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return c.writeSubmission(ctx, publicDir, outDir, func(_ int, _ string, img *volume.Volume) ([]byte, error) {
		switch c.Task {
		case Box:
			return boxFile(topology.Box{Size: [3]int{1, 1, 1}}), nil
		case Edges:
			return edgesFile([4]int{}, [4]int{}), nil
		}
		return encodeLabels(img, make([]uint8, img.Len()))
	})
}

// Perfect writes the private answers as predictions.
func (c Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	return c.writeSubmission(ctx, publicDir, outDir, func(_ int, pid string, img *volume.Volume) ([]byte, error) {
		ans := filepath.Join(privateDir, "test", "labels", c.privateLabelName(pid))
		switch c.Task {
		case Edges:
			b, err := os.ReadFile(ans)
			if err != nil {
				return nil, err
			}
			e, err := parseEdgesYAML(b)
			if err != nil {
				return nil, err
			}
			var ant, pos [4]int
			for i := range ant {
				ant[i], pos[i] = e.ant[i].asInt, e.pos[i].asInt
			}
			return edgesFile(ant, pos), nil
		}
		return os.ReadFile(ans)
	})
}

// Baseline trains a simple method on the public training data (see
// baseline.go) and writes its predictions.
func (c Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	switch c.Task {
	case Box:
		return c.baselineBoxes(ctx, publicDir, outDir, log)
	case Edges:
		return c.baselineEdges(ctx, publicDir, outDir, log)
	}
	return c.baselineSegmentation(ctx, publicDir, outDir, log)
}
