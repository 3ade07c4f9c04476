package tire

import "testing"

// TestGeneratedForward: the generated value-only and forward-mode kernels
// of the body model equal the interpreter, for both tyre laws, moving.
func TestGeneratedForward(t *testing.T) {
	for _, tyre := range []string{"dugoff", "pacejka"} {
		p := Jackal()
		p.Tyre = tyre
		p.Crr = 0.02
		const B, T = 2, 400
		x0 := []float64{0, 0.1, 0, 0.2, 0.3, -0.1, 0.4, 0.1, 0, 0.05, 0.1, -0.2}
		u := make([]float64, T*2*B)
		wl, wr := testRun(T)
		for k := range T {
			u[(k*2)*B], u[(k*2+1)*B] = wl[k], wr[k]
			u[(k*2)*B+1], u[(k*2+1)*B+1] = wr[k]*0.5, wl[k]
		}
		if _, err := p.Body().CheckGeneratedForward(p.free(), p.settings(), x0, u, B, T, 1e-10); err != nil {
			t.Error(err)
		}
	}
}
