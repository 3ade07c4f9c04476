package calibrate_test

import (
	"fmt"
	"log"

	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
)

// A wheelchair's log (testdata/gen.go: three minutes of training commands,
// encoder noise, rows every h = 0.06 s with 1.5 ms of time-stamp jitter):
// ReadLog reads it, Resample puts it on the model's grid t0 + k·h, Calibrate
// identifies ζ from the paper's values (Park et al. §III-A), and Simulate
// predicts the wheel speeds.
func Example() {
	runs, err := calibrate.ReadLog("testdata/wheelchair.csv", calibrate.LogOptions{NeedSpeeds: true})
	if err != nil {
		log.Fatal(err)
	}
	init := diffdrive.Paper()
	r := runs[0]
	if err := calibrate.CheckStep(r, init.H, "h = 0.06 s"); err != nil {
		log.Fatal(err) // names the file and line of a step unlike h
	}
	lg, worst, err := calibrate.Resample(r, init.H, "h = 0.06 s")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d rows, steps off h by up to %.0f ms: resampled to %d\n", len(r.T), 1e3*worst, len(lg.UF))

	res, err := calibrate.Calibrate(lg, init, calibrate.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// The truth (testdata/gen.go): c1 0.40, c2 0.008, α 0.26, β 6.0, γ 4.5,
	// μ 0.20. The steady-state gain a = α/β and deadband g = μγ/β are
	// determined well; β itself (the response time) less so.
	q := res.Params
	fmt.Printf("c1 = %.3f, c2 = %.4f, μ = %.2f\n", q.C1, q.C2, q.Mu)
	fmt.Printf("a = α/β = %.4f (truth 0.0433), g = μγ/β = %.3f (truth 0.150), β = %.1f\n", q.Alpha/q.Beta, q.Mu*q.Gamma/q.Beta, q.Beta)
	fmt.Printf("mean |velocity error| %.3f m/s over %d segments\n", res.MeanAbs, res.Segments)

	tr, err := res.Params.Simulate(diffdrive.State{SdR: lg.VR[0], SdL: lg.VL[0]}, lg.UF, lg.UL)
	if err != nil {
		log.Fatal(err)
	}
	var e float64
	for k := range tr.VR {
		e += abs(tr.VR[k]-lg.VR[k]) + abs(tr.VL[k]-lg.VL[k])
	}
	fmt.Printf("open loop over the whole log: mean |wheel speed error| %.3f m/s\n", e/float64(2*len(tr.VR)))
	// Output:
	// 3000 rows, steps off h by up to 8 ms: resampled to 2999
	// c1 = 0.398, c2 = 0.0076, μ = 0.20
	// a = α/β = 0.0434 (truth 0.0433), g = μγ/β = 0.143 (truth 0.150), β = 7.7
	// mean |velocity error| 0.044 m/s over 2947 segments
	// open loop over the whole log: mean |wheel speed error| 0.014 m/s
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
