package skeleton

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// vesselVolume draws n random straight tubes of radius 2–4 voxels through a
// volume of the given shape (x fastest), a stand-in for a vessel tree.
func vesselVolume(shape [3]int, n int, seed uint64) []bool {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := make([]bool, shape[0]*shape[1]*shape[2])
	for t := 0; t < n; t++ {
		var a, b [3]float64
		for k := 0; k < 3; k++ {
			a[k] = rng.Float64() * float64(shape[k])
			b[k] = rng.Float64() * float64(shape[k])
		}
		r := 2 + 2*rng.Float64()
		steps := int(math.Hypot(math.Hypot(b[0]-a[0], b[1]-a[1]), b[2]-a[2]))
		for s := 0; s <= steps; s++ {
			f := float64(s) / float64(steps)
			c := [3]float64{a[0] + f*(b[0]-a[0]), a[1] + f*(b[1]-a[1]), a[2] + f*(b[2]-a[2])}
			for z := int(c[2] - r); z <= int(c[2]+r); z++ {
				for y := int(c[1] - r); y <= int(c[1]+r); y++ {
					for x := int(c[0] - r); x <= int(c[0]+r); x++ {
						if x < 0 || y < 0 || z < 0 || x >= shape[0] || y >= shape[1] || z >= shape[2] {
							continue
						}
						dx, dy, dz := float64(x)-c[0], float64(y)-c[1], float64(z)-c[2]
						if dx*dx+dy*dy+dz*dz <= r*r {
							m[x+shape[0]*(y+shape[1]*z)] = true
						}
					}
				}
			}
		}
	}
	return m
}

// BenchmarkLee3DVessels512x512x300 thins 40 random vessels in a
// 512×512×300 volume (the size of a TopCoW CTA case).
func BenchmarkLee3DVessels512x512x300(b *testing.B) {
	shape := [3]int{512, 512, 300}
	m := vesselVolume(shape, 40, 1)
	fg := 0
	for _, v := range m {
		if v {
			fg++
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sk, err := Lee3D(context.Background(), m, shape, XYZ)
		if err != nil || len(sk) != len(m) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fg), "fg-voxels")
}
