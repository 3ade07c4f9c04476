// Command skidsteer-slip reproduces the slip calibration of Ordonez et al.
// §4.2 (Table 2, Figs. 12–15) on synthetic data: the diagnostic trajectory
// (speeds 0.2, 0.4, 0.6 m/s, alternating turn radii from 750 m down to
// 0.56 m, 5 s each) driven on asphalt, concrete and grass with Table 2's
// slip coefficients and 10-Hz visual odometry, calibrated from the nominal
// model (all coefficients zero) by IPEM online and by batch L-BFGS.
//
// It prints the coefficients with their standard deviations, the 2-s
// along/cross-track prediction errors nominal vs calibrated, how much driving
// the filter needs to converge, and the time per update; and it writes
// errors-<surface>.png (Figs. 12–14), convergence-<surface>.png and
// paths-asphalt.png (Fig. 15) into -out.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/opt"
)

func main() {
	out := flag.String("out", filepath.Join("out", "skidsteer-slip"), "output directory")
	quick := flag.Bool("quick", false, "1-s commands instead of 5-s (smoke test)")
	flag.Parse()
	if err := run(os.Stdout, *out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "skidsteer-slip:", err)
		os.Exit(1)
	}
}

const (
	dt        = 0.01 // command period (100 Hz)
	poseEvery = 10   // visual odometry at 10 Hz
	horizon   = 2.0  // prediction horizon of Figs. 12–14 (s)
)

func run(w io.Writer, dir string, quick bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hold := 5.0
	if quick {
		hold = 1
	}
	t, vc, wc := skidsteer.DiagnosticCommands(dt, hold)
	fmt.Fprintf(w, "Diagnostic trajectory: %d commands × %.0f s = %.0f s at %.0f Hz, visual odometry at %.0f Hz\n",
		len(skidsteer.DiagnosticRadii)*len(skidsteer.DiagnosticSpeeds), hold, t[len(t)-1], 1/dt, 1/(dt*poseEvery))
	fmt.Fprintln(w, "IPEM: EKF over a11..a33 from the nominal model (all zero), one update per 0.1-s interval")
	fmt.Fprintln(w)
	zero := make([]float64, skidsteer.NumCoeffs)
	for si, s := range skidsteer.Table2 {
		truth := s.A[:]
		l, _ := skidsteer.Generate(truth, t, vc, wc, poseEvery, skidsteer.SurfaceNoise(s.Name), uint64(100+si))
		// Online calibration, recording the estimate at every command change.
		type snap struct {
			t float64
			a []float64
		}
		var snaps []snap
		start := time.Now()
		cal, f, err := skidsteer.Calibrate(l, skidsteer.IPEMConfig{}, func(k int, tk float64, f *skidsteer.IPEM) {
			if (k+1)%int(math.Round(hold/(dt*poseEvery))) == 0 {
				snaps = append(snaps, snap{tk, append([]float64(nil), f.A[:]...)})
			}
		})
		if err != nil {
			return err
		}
		perUpdate := time.Since(start) / time.Duration(f.Updates)
		// The same filter with the graph Jacobian, on the first 100 intervals.
		iv, err := l.Intervals(1, 0)
		if err != nil {
			return err
		}
		sub := skidsteer.MergeIntervals(iv)
		sub.Z, sub.Len = sub.Z[:100], sub.Len[:100]
		gStart := time.Now()
		gcal, _, err := skidsteer.CalibrateIntervals(sub, skidsteer.IPEMConfig{Jacobian: skidsteer.GraphJacobianSource, MaxSteps: iv.Windows.S}, nil)
		if err != nil {
			return err
		}
		gPer := time.Since(gStart) / 100
		ncal, _, _ := skidsteer.CalibrateIntervals(sub, skidsteer.IPEMConfig{}, nil)
		gdiff := 0.0
		for k := range gcal.A {
			gdiff = math.Max(gdiff, math.Abs(gcal.A[k]-ncal.A[k]))
		}
		// Batch L-BFGS over all intervals.
		b, err := skidsteer.NewBatchIntervals(iv, skidsteer.IPEMConfig{}, 0)
		if err != nil {
			return err
		}
		res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: b.Eval}, zero, opt.Settings{})
		if err != nil {
			return err
		}
		bcal, err := b.Covariance(res.X)
		if err != nil {
			return err
		}

		fmt.Fprintf(w, "== %s ==\n", s.Name)
		fmt.Fprintf(w, "  %-4s %9s %20s %20s\n", "", "Table 2", "IPEM (EKF) ± σ", "batch L-BFGS ± σ")
		sd, bsd := cal.Std(), bcal.Std()
		for k, name := range skidsteer.CoeffNames {
			fmt.Fprintf(w, "  %-4s %9.4f %11.4f ± %.4f %11.4f ± %.4f\n", name, truth[k], cal.A[k], sd[k], res.X[k], bsd[k])
		}
		e32 := math.Abs(cal.A[7]-truth[7]) / math.Abs(truth[7])
		e33 := math.Abs(cal.A[8]-truth[8]) / math.Abs(truth[8])
		fmt.Fprintf(w, "  a32 error %.1f%% (target ≤ 10%%), a33 error %.1f%% (target ≤ 30%%)\n", 100*e32, 100*e33)
		nom := skidsteer.PredictionErrors(l, zero, horizon, 1)
		calE := skidsteer.PredictionErrors(l, cal.A, horizon, 1)
		truE := skidsteer.PredictionErrors(l, truth, horizon, 1)
		rn, rc, rt := skidsteer.RMS(nom), skidsteer.RMS(calE), skidsteer.RMS(truE)
		_, _, semiN := skidsteer.Ellipse(nom, 3, 4)
		_, _, semiC := skidsteer.Ellipse(calE, 3, 4)
		fmt.Fprintf(w, "  2-s prediction error RMS: nominal %.4f m, calibrated %.4f m (%.1f× lower; target ≥ 5×), true coefficients %.4f m\n", rn, rc, rn/rc, rt)
		fmt.Fprintf(w, "  3σ ellipse semi-axes: nominal %.3f × %.3f m, calibrated %.3f × %.3f m (%d predictions)\n", semiN[0], semiN[1], semiC[0], semiC[1], len(nom))
		// Convergence: the first time after which the estimate's 2-s
		// prediction error stays within 10 % of the true model's and a32
		// stays within 10 % of the truth.
		conv := math.NaN()
		var ts, r32, r33, rms []float64
		for i := len(snaps) - 1; i >= 0; i-- {
			sn := snaps[i]
			r := skidsteer.RMS(skidsteer.PredictionErrors(l, sn.a, horizon, 1))
			ok := r <= 1.1*rt && math.Abs(sn.a[7]-truth[7]) <= 0.1*math.Abs(truth[7])
			if !ok {
				break
			}
			conv = sn.t
		}
		for _, sn := range snaps {
			ts = append(ts, sn.t/60)
			r32 = append(r32, sn.a[7]/truth[7])
			r33 = append(r33, sn.a[8]/truth[8])
			rms = append(rms, skidsteer.RMS(skidsteer.PredictionErrors(l, sn.a, horizon, 1))/rt)
		}
		fmt.Fprintf(w, "  convergence (2-s error within 10%% of the true model's, a32 within 10%%): after %.1f min of driving (paper: 1.5 min)\n", conv/60)
		fmt.Fprintf(w, "  IPEM update: %.2f µs Jacobian from the dyn step definition (used), %.0f µs graph Jacobian (reference; same estimate to %.1e); paper 9 ms\n",
			float64(perUpdate.Nanoseconds())/1e3, float64(gPer.Nanoseconds())/1e3, gdiff)
		fmt.Fprintf(w, "  batch L-BFGS: %d iterations, %d evaluations, %v (%s); residual scale %.2f\n\n",
			res.Iterations, res.FuncEvaluations, res.Runtime.Round(time.Millisecond), res.Status, cal.Scale)

		if err := plotErrors(filepath.Join(dir, "errors-"+s.Name+".png"), s.Name, nom, calE); err != nil {
			return err
		}
		if err := figure.XY(filepath.Join(dir, "convergence-"+s.Name+".png"), s.Name+": IPEM from the nominal model",
			"driving time (min)", "estimate / truth, 2-s RMS / true model's", false, []figure.Series{
				{Name: "a32 / true", X: ts, Y: r32},
				{Name: "a33 / true", X: ts, Y: r33},
				{Name: "2-s RMS error / true model's", X: ts, Y: rms},
			}); err != nil {
			return err
		}
		if si == 0 {
			if err := plotPaths(filepath.Join(dir, "paths-asphalt.png"), l, cal.A); err != nil {
				return err
			}
		}
	}
	// Convergence on random commands (the paper's IPEM calibrates "as the
	// robot is commanded with random velocities and turn radii", §2.2).
	s := skidsteer.Table2[0]
	n := 72
	if quick {
		n = 24
	}
	tr, vr, wr := skidsteer.RandomCommands(n, dt, hold, 7)
	l, _ := skidsteer.Generate(s.A[:], tr, vr, wr, poseEvery, skidsteer.SurfaceNoise(s.Name), 8)
	rt := skidsteer.RMS(skidsteer.PredictionErrors(l, s.A[:], horizon, 1))
	var times []float64
	var ests [][]float64
	if _, _, err := skidsteer.Calibrate(l, skidsteer.IPEMConfig{}, func(k int, tk float64, f *skidsteer.IPEM) {
		if (k+1)%10 == 0 {
			times = append(times, tk)
			ests = append(ests, append([]float64(nil), f.A[:]...))
		}
	}); err != nil {
		return err
	}
	conv := math.NaN()
	for i := len(ests) - 1; i >= 0; i-- {
		r := skidsteer.RMS(skidsteer.PredictionErrors(l, ests[i], horizon, 1))
		if r > 1.1*rt || math.Abs(ests[i][7]-s.A[7]) > 0.1*math.Abs(s.A[7]) {
			break
		}
		conv = times[i]
	}
	fmt.Fprintf(w, "Random commands on asphalt (%d × %.0f s): converged after %.1f min of driving\n", n, hold, conv/60)
	return nil
}

func plotErrors(path, surface string, nom, calib []skidsteer.TrackError) error {
	return figure.Clouds(path, surface+": errors of 2-s predictions (Figs. 12–14)", "along-track error (m)", "cross-track error (m)",
		[]figure.Cloud{errorCloud("nominal", nom, true), errorCloud("calibrated", calib, false)})
}

func errorCloud(name string, e []skidsteer.TrackError, dashed bool) figure.Cloud {
	x, y, ex, ey := skidsteer.ErrorCloud(e, 3)
	return figure.Cloud{Name: name, X: x, Y: y, CurveX: ex, CurveY: ey, Dashed: dashed}
}

// plotPaths draws, like Fig. 15, the measured path of a stretch with sharp
// turns and the open-loop predictions of the nominal and calibrated models
// from its first pose.
func plotPaths(path string, l *skidsteer.Log, a []float64) error {
	// The stretch of radii 2.81 … 1.77 m (commands 48–56).
	hold := (l.T[len(l.T)-1]) / 72
	i0, i1 := int(48*hold/dt), int(57*hold/dt)
	var mx, my []float64
	for i := i0; i <= i1; i++ {
		if l.HasPose[i] {
			mx, my = append(mx, l.Pose[i].X), append(my, l.Pose[i].Y)
		}
	}
	ss := []figure.Series{{Name: "visual odometry", X: mx, Y: my}}
	for _, m := range []struct {
		name string
		a    []float64
	}{{"nominal model", make([]float64, 9)}, {"calibrated model", a}} {
		tr, err := skidsteer.Simulate(skidsteer.FromCoeffs(m.a), l.Pose[i0], l.T[i0:i1+1], l.Vc[i0:i1+1], l.Wc[i0:i1+1])
		if err != nil {
			return err
		}
		var xs, ys []float64
		for _, p := range tr {
			xs, ys = append(xs, p.X), append(ys, p.Y)
		}
		ss = append(ss, figure.Series{Name: m.name, X: xs, Y: ys, Dashed: true})
	}
	return figure.XY(path, "asphalt: open-loop predictions (Fig. 15)", "x (m)", "y (m)", true, ss)
}
