package polygon

import (
	"math"
	"slices"
)

// Mask is an 8-bit label image, row-major: pixel (x, y) is Pix[y*W+x].
type Mask struct {
	W, H int
	Pix  []uint8
}

// NewMask returns an all-zero w × h mask.
func NewMask(w, h int) *Mask { return &Mask{W: w, H: h, Pix: make([]uint8, w*h)} }

type edge struct {
	xmin, ymin, xmax, ymax int
	x0, y0                 int
	dx                     float32
}

func newEdge(x0, y0, x1, y1 int) edge {
	e := edge{xmin: min(x0, x1), xmax: max(x0, x1), ymin: min(y0, y1), ymax: max(y0, y1), x0: x0, y0: y0}
	if y0 != y1 {
		e.dx = float32(x1-x0) / float32(y1-y0)
	}
	return e
}

func (e *edge) xAt(y int) float32 { return float32(y-e.y0)*e.dx + float32(e.x0) }

// roundUp and roundDown are Pillow's ROUND_UP / ROUND_DOWN: round half away
// from zero, and half towards zero.
func roundUp(f float32) int {
	if f >= 0 {
		return int(math.Floor(float64(f + 0.5)))
	}
	return -int(math.Floor(math.Abs(float64(f)) + 0.5))
}

func roundDown(f float32) int {
	if f >= 0 {
		return int(math.Ceil(float64(f - 0.5)))
	}
	return -int(math.Ceil(math.Abs(float64(f)) - 0.5))
}

func roundf(f float64) float64 { return math.Round(float64(float32(f))) }

func (m *Mask) hline(x0, y, x1 int, v uint8) {
	if y < 0 || y >= m.H {
		return
	}
	x0, x1 = max(x0, 0), min(x1, m.W-1)
	row := m.Pix[y*m.W : (y+1)*m.W]
	for x := x0; x <= x1; x++ {
		row[x] = v
	}
}

// FillPIL fills the polygon with vertices (xs[i], ys[i]) with value v, the
// way Pillow's ImageDraw.polygon(points, fill=v, outline=v) does on an "L"
// image: each coordinate is first truncated toward zero to an integer (C
// int cast), consecutive horizontal edges running the same way are merged,
// the ring is closed when the last vertex differs from the first, every
// horizontal edge is drawn as a span, and the other edges are scan
// converted row by row (intersections in float32, an edge's lower end
// counted twice except on the last row, Pillow's corner-joining adjustment,
// spans from ROUND_UP of the left to ROUND_DOWN of the right
// intersection). With outline equal to fill Pillow ≥ 10 draws no separate
// outline. Pixels outside the mask are clipped. Fewer than 2 vertices draw
// nothing.
func (m *Mask) FillPIL(xs, ys []float64, v uint8) {
	n := min(len(xs), len(ys))
	if n < 2 {
		return
	}
	ix := make([]int, n)
	iy := make([]int, n)
	for i := 0; i < n; i++ {
		ix[i] = truncInt(xs[i])
		iy[i] = truncInt(ys[i])
	}
	es := make([]edge, 0, n)
	i := 0
	for ; i < n-1; i++ {
		x0, y0, x1, y1 := ix[i], iy[i], ix[i+1], iy[i+1]
		if y0 == y1 && i != 0 && y0 == iy[i-1] && len(es) > 0 {
			last := &es[len(es)-1]
			if x1 > x0 && x0 > ix[i-1] {
				last.xmax = x1
				continue
			} else if x1 < x0 && x0 < ix[i-1] {
				last.xmin = x1
				continue
			}
		}
		es = append(es, newEdge(x0, y0, x1, y1))
	}
	if ix[i] != ix[0] || iy[i] != iy[0] {
		es = append(es, newEdge(ix[i], iy[i], ix[0], iy[0]))
	}
	m.scan(es, v)
}

func truncInt(f float64) int {
	if math.IsNaN(f) {
		return math.MinInt32
	}
	f = math.Max(math.Min(f, math.MaxInt32), math.MinInt32)
	return int(f) // Go conversion truncates toward zero, as C's (int) cast
}

func (m *Mask) scan(es []edge, v uint8) {
	ymin, ymax := m.H-1, 0
	var table []*edge
	for k := range es {
		e := &es[k]
		ymin = min(ymin, e.ymin)
		ymax = max(ymax, e.ymax)
		if e.ymin == e.ymax {
			m.hline(e.xmin, e.ymin, e.xmax, v)
			continue
		}
		table = append(table, e)
	}
	ymin = max(ymin, 0)
	ymax = min(ymax, m.H)
	xx := make([]float32, 0, 2*len(table))
	for y := ymin; y <= ymax; y++ {
		xx = xx[:0]
		for k, cur := range table {
			if y < cur.ymin || y > cur.ymax {
				continue
			}
			xx = append(xx, cur.xAt(y))
			j := len(xx)
			if y == cur.ymax && y < ymax {
				xx = append(xx, xx[j-1])
				continue
			}
			if (y == cur.ymin || y == cur.ymax) && cur.dx != 0 {
				for _, other := range table[:k] {
					if (y != other.ymin && y != other.ymax) || other.dx == 0 {
						continue
					}
					if roundf(float64(xx[j-1])) != roundf(float64(other.xAt(y))) {
						continue
					}
					off := 1
					if y == cur.ymax {
						off = -1
					}
					adj := cur.xAt(y + off)
					if y+off >= other.ymin && y+off <= other.ymax {
						adjO := other.xAt(y + off)
						if xx[j-1] > adj+1 && xx[j-1] > adjO+1 {
							xx[j-1] = float32(roundf(math.Max(float64(adj), float64(adjO))) + 1)
						} else if xx[j-1] < adj-1 && xx[j-1] < adjO-1 {
							xx[j-1] = float32(roundf(math.Min(float64(adj), float64(adjO))) - 1)
						}
						break
					}
				}
			}
		}
		slices.Sort(xx)
		for k := 1; k < len(xx); k += 2 {
			m.hline(roundUp(xx[k-1]), y, roundDown(xx[k]), v)
		}
	}
}
