package terra

import (
	"math"
	"sync"
)

var glCache sync.Map // int → [2][]float64

// gaussLegendre returns the nodes and weights of the n-point Gauss–Legendre
// rule on [−1, 1] (Newton on the Legendre polynomial, to machine precision).
func gaussLegendre(n int) (x, w []float64) {
	if v, ok := glCache.Load(n); ok {
		p := v.([2][]float64)
		return p[0], p[1]
	}
	x, w = make([]float64, n), make([]float64, n)
	for i := range n {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, 0.0
			for j := 1; j <= n; j++ {
				p0, p1 = ((2*float64(j)-1)*z*p0-(float64(j)-1)*p1)/float64(j), p0
			}
			dp = float64(n) * (z*p0 - p1) / (z*z - 1)
			dz := p0 / dp
			z -= dz
			if math.Abs(dz) < 1e-15 {
				break
			}
		}
		x[i], w[i] = z, 2/((1-z*z)*dp*dp)
	}
	glCache.Store(n, [2][]float64{x, w})
	return x, w
}
