package rank

import (
	"fmt"
	"math"
	"slices"
)

// Interval methods of the bootstrap. Each gives the two levels at which the
// bootstrap distribution is read (its quantiles, numpy's linear
// interpolation), so every method respects monotone transformations: a
// value interval maps onto the position interval and a mean-rank interval
// onto the percentile interval.
const (
	// MethodPercentile reads the (1−c)/2 and (1+c)/2 quantiles.
	MethodPercentile = "percentile"
	// MethodExpanded is Hesterberg's expanded percentile interval: the
	// levels Φ(∓√(n/(n−1))·t_{n−1,(1+c)/2}), which undo the percentile
	// interval's narrowness bias for small n (√((n−1)/n) of the standard
	// error, z instead of Student's t).
	MethodExpanded = "expanded-percentile"
	// MethodBCa is Efron's bias-corrected and accelerated interval: the
	// levels Φ(z0 + (z0+z)/(1 − a(z0+z))) for z = ∓z_{(1+c)/2}, with the bias
	// correction z0 = Φ⁻¹(share of resamples below the estimate, ties ½)
	// and the acceleration a from the leave-one-out (jackknife) values.
	MethodBCa = "bca"
	// MethodExpandedBCa applies the BCa correction to the expanded levels
	// (z = ∓√(n/(n−1))·t_{n−1,(1+c)/2}): the bias and skewness correction of
	// BCa with the small-sample width of the expanded interval.
	MethodExpandedBCa = "expanded-bca"
	// MethodStudentized is the bootstrap-t interval: each resample's
	// statistic is studentized by its own jackknife standard error,
	// t* = (θ* − θ̂)/SE*, and the interval is [θ̂ − t*_{(1+c)/2}·SE,
	// θ̂ − t*_{(1−c)/2}·SE] with SE the sample's jackknife standard error
	// (StudentizedInterval). It is not read at two levels of the resampled
	// values, but it is still a value interval whose ends map onto positions.
	MethodStudentized = "studentized"
	// MethodStudentizedSquared is MethodStudentized applied to the square
	// of a statistic that is the square root of a mean (an RMSE: the mean
	// of squares, where the bootstrap-t of a mean applies), the ends mapped
	// back by the square root (an end below 0 becomes 0).
	MethodStudentizedSquared = "studentized-squared"
)

// SmallN is the case count below which an interval is flagged: the
// coverage study (rankstage's coverage test) finds no method reaching 93 %
// for every aggregation below it.
const SmallN = 10

// NormCDF is the standard normal distribution function.
func NormCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// NormQuantile is the standard normal quantile function (p in (0, 1)).
func NormQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// StudentTQuantile is the p-quantile of Student's t distribution with df
// degrees of freedom (df ≥ 1, p in (0, 1)), found by bisection on its
// distribution function (the regularized incomplete beta function) to
// about 1e-12.
func StudentTQuantile(p float64, df int) float64 {
	if !(p > 0 && p < 1) || df < 1 {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentTQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for studentTCDF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-13*hi; i++ {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T ≤ t) for t ≥ 0: 1 − I_{df/(df+t²)}(df/2, 1/2)/2.
func studentTCDF(t float64, df int) float64 {
	v := float64(df)
	return 1 - 0.5*regIncBeta(v/2, 0.5, v/(v+t*t))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (modified Lentz), with the symmetry I_x(a,b) =
// 1 − I_{1−x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(b, a, 1-x)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab-la-lb+a*math.Log(x)+b*math.Log1p(-x)) / a
	const tiny = 1e-300
	f, c, d := 1.0, 1.0, 0.0
	for i := 0; i <= 400; i++ {
		m := float64(i / 2)
		var num float64
		switch {
		case i == 0:
			num = 1
		case i%2 == 0:
			num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		default:
			num = -((a + m) * (a + b + m) * x) / ((a + 2*m) * (a + 2*m + 1))
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		d = 1 / d
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		cd := c * d
		f *= cd
		if math.Abs(1-cd) < 1e-15 {
			break
		}
	}
	return front * (f - 1)
}

// Levels are the two quantile levels an interval reads from a bootstrap
// distribution.
type Levels struct{ Lo, Hi float64 }

// BCaParams are the two corrections of a BCa interval.
type BCaParams struct {
	Z0, A float64
}

// BCaFrom computes the bias correction from the bootstrap values and the
// estimate (the share of resamples below it, ties counting ½, kept within
// [½/B, 1 − ½/B]) and the acceleration from the jackknife values
// (Σ(m−θᵢ)³ / (6 (Σ(m−θᵢ)²)^1.5), m their mean; 0 when they do not vary or
// one is not finite). NaN bootstrap values count as neither below nor above.
func BCaFrom(boot []float64, estimate float64, jack []float64) BCaParams {
	var below, n float64
	for _, v := range boot {
		if math.IsNaN(v) {
			continue
		}
		n++
		switch {
		case v < estimate:
			below++
		case v == estimate:
			below += 0.5
		}
	}
	p := 0.5
	if n > 0 {
		p = min(max(below/n, 0.5/n), 1-0.5/n)
	}
	out := BCaParams{Z0: NormQuantile(p)}
	if len(jack) < 2 {
		return out
	}
	var m float64
	for _, v := range jack {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return out
		}
		m += v
	}
	m /= float64(len(jack))
	var s2, s3 float64
	for _, v := range jack {
		d := m - v
		s2 += d * d
		s3 += d * d * d
	}
	if s2 > 0 {
		out.A = s3 / (6 * math.Pow(s2, 1.5))
	}
	return out
}

// MethodLevels gives the levels of method at confidence c for n cases.
// bca is used by MethodBCa and MethodExpandedBCa only. The expanded methods
// need n ≥ 2 (with fewer they fall back to the unexpanded levels).
func MethodLevels(method string, c float64, n int, bca BCaParams) (Levels, error) {
	z := NormQuantile((1 + c) / 2)
	if (method == MethodExpanded || method == MethodExpandedBCa) && n >= 2 {
		z = math.Sqrt(float64(n)/float64(n-1)) * StudentTQuantile((1+c)/2, n-1)
	}
	switch method {
	case MethodPercentile:
		a := (1 - c) / 2
		// scipy passes percent levels to np.percentile, which divides by 100.
		return Levels{a * 100 / 100, (1 - a) * 100 / 100}, nil
	case MethodExpanded:
		return Levels{NormCDF(-z), NormCDF(z)}, nil
	case MethodBCa, MethodExpandedBCa:
		adj := func(zz float64) float64 {
			s := bca.Z0 + zz
			den := 1 - bca.A*s
			if den <= 0 {
				// Past the acceleration's pole the correction is undefined:
				// the extreme of the distribution.
				if zz < 0 {
					return 0
				}
				return 1
			}
			return NormCDF(bca.Z0 + s/den)
		}
		return Levels{adj(-z), adj(z)}, nil
	}
	return Levels{}, fmt.Errorf("unknown interval method %q", method)
}

// JackknifeSE is the jackknife standard error √((n−1)/n · Σ(θᵢ − θ̄)²) of
// the leave-one-out values jack; NaN with fewer than two values or a value
// that is not finite.
func JackknifeSE(jack []float64) float64 {
	n := float64(len(jack))
	if len(jack) < 2 {
		return math.NaN()
	}
	var m float64
	for _, v := range jack {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN()
		}
		m += v
	}
	m /= n
	var ss float64
	for _, v := range jack {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt((n - 1) / n * ss)
}

// Studentized is (θ* − θ̂)/SE*, one resample's studentized statistic: 0
// where θ* = θ̂, ±Inf where SE* is 0 (a resample of identical cases) and θ*
// differs, NaN where θ* or SE* is undefined.
func Studentized(theta, estimate, se float64) float64 {
	switch {
	case math.IsNaN(theta) || math.IsNaN(se) || math.IsInf(theta, 0):
		return math.NaN()
	case theta == estimate:
		return 0
	case se == 0:
		return math.Inf(int(math.Copysign(1, theta-estimate)))
	}
	return (theta - estimate) / se
}

// StudentizedInterval is the bootstrap-t interval at confidence c from the
// studentized resamples t (Studentized), the estimate and its standard
// error se: [θ̂ − q_{(1+c)/2}(t)·se, θ̂ − q_{(1−c)/2}(t)·se], numpy's linear
// quantiles. NaN ends when se or some t is undefined.
func StudentizedInterval(t []float64, estimate, se, c float64) (lo, hi float64) {
	if math.IsNaN(se) || math.IsInf(se, 0) || math.IsNaN(estimate) {
		return math.NaN(), math.NaN()
	}
	a := (1 - c) / 2
	tLo, tHi := QuantilesAt(t, Levels{a, 1 - a})
	if math.IsNaN(tLo) || math.IsNaN(tHi) {
		return math.NaN(), math.NaN()
	}
	lo, hi = estimate-tHi*se, estimate-tLo*se
	if se == 0 { // every resample equal to the estimate: a point
		lo, hi = estimate, estimate
	}
	return lo, hi
}

// QuantilesAt reads the two levels from the bootstrap distribution x (numpy
// linear quantiles; equal neighbours give their value, so ±Inf ends are
// kept). A NaN in x or an empty x gives NaN ends: map undefined resamples to
// a value (e.g. the worst) first.
func QuantilesAt(x []float64, l Levels) (lo, hi float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		if math.IsNaN(v) {
			return math.NaN(), math.NaN()
		}
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return quantileSorted(s, l.Lo), quantileSorted(s, l.Hi)
}
