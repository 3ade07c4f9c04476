package skidsteer_test

import (
	"math"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/opt"
)

// The batch fit (L-BFGS over all intervals) and the online filter solve the
// same weighted least-squares problem; with a wide prior they must agree to
// within a fraction of the coefficients' standard deviation.
func TestBatchLBFGSAgreesWithFilter(t *testing.T) {
	tt, vc, wc := skidsteer.RandomCommands(36, 0.01, 5, 9)
	s := skidsteer.Table2[0]
	l, _ := skidsteer.Generate(s.A[:], tt, vc, wc, 10, skidsteer.SurfaceNoise(s.Name), 9)
	cal, _, err := skidsteer.Calibrate(l, skidsteer.IPEMConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := skidsteer.NewBatch(l, skidsteer.IPEMConfig{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: b.Eval}, make([]float64, 9), opt.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := b.Covariance(res.X)
	if err != nil {
		t.Fatal(err)
	}
	sd := bc.Std()
	for k := range 9 {
		if d := math.Abs(res.X[k] - cal.A[k]); d > 0.2*sd[k] {
			t.Errorf("%s: batch %.5f, filter %.5f (batch σ %.5f)", skidsteer.CoeffNames[k], res.X[k], cal.A[k], sd[k])
		}
		if r := cal.Std()[k] / sd[k]; r < 0.8 || r > 1.25 {
			t.Errorf("%s: filter σ %.5f, batch σ %.5f", skidsteer.CoeffNames[k], cal.Std()[k], sd[k])
		}
	}
	t.Logf("L-BFGS: %d iterations, %d evaluations, %v, %s", res.Iterations, res.FuncEvaluations, res.Runtime, res.Status)
}
