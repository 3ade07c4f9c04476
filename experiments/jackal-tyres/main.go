// Command jackal-tyres reproduces Westerhout et al. with the tire model
// (models/tire): the Dugoff force curves of Figs. 7–8 beside Pacejka's;
// the eight maneuvers of Table I driven on two surfaces (lino, carpet) by a
// "true" robot the model does not describe exactly (integrated at 0.25 ms,
// its wheels lagging their commands, its encoders noisy), identified from
// motion capture and predicted, as a table of parameter errors and path
// RMS; how much a wrong wheel radius (1 %, 3 %) spoils the identification;
// the understeer the model shows (commanded vs achieved yaw rate on the
// circles); plain and errors-in-variables identification from noisier
// encoders (0.01–0.05 rad/s); and online adaptation of μ on a log that changes from lino to
// carpet half-way (§III-C).
//
// (The Pacejka law is identified by the same code, `wheelgrad identify` with
// "tyre": "pacejka"; its default curves are stiffer, B·C·D·Fz = 770 N per
// unit slip, than a 1-ms step keeps stable near rest, so it needs dt ≤
// 0.25 ms and four times the time: left out of this run.)
//
// PNGs go to -out: forces-fx.png, forces-fy.png, paths-<surface>.png,
// online-mu.png.
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
	"github.com/wheelgrad/wheelgrad/models/tire"
)

func main() {
	out := flag.String("out", filepath.Join("out", "jackal-tyres"), "output directory")
	quick := flag.Bool("quick", false, "three maneuvers, shorter (smoke test)")
	flag.Parse()
	if err := run(os.Stdout, *out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "jackal-tyres:", err)
		os.Exit(1)
	}
}

type surface struct {
	name string
	p    tire.Params
}

func surfaces() []surface {
	lino, carpet := tire.Jackal(), tire.Jackal()
	lino.Mu, lino.Kx, lino.Ky = 0.2, 140, 90
	carpet.Mu, carpet.Kx, carpet.Ky = 0.45, 220, 160
	return []surface{{"lino", lino}, {"carpet", carpet}}
}

// trueRobot is the surface's tyres on a robot the model does not quite
// describe: integrated at 0.25 ms, its effective wheel radius off by the
// factor rErr.
func trueRobot(p tire.Params, rErr float64) tire.Params {
	p.R *= 1 + rErr
	p.Dt = 0.00025
	return p
}

const encoderStd = 0.01 // rad/s at 100 Hz

func run(w io.Writer, out string, quick bool) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := forceCurves(w, out); err != nil {
		return err
	}
	mvs := tire.Maneuvers()
	if quick {
		mvs = []tire.Maneuver{mvs[0], mvs[2], mvs[5]}
		for i := range mvs {
			mvs[i].Duration = math.Min(mvs[i].Duration, 6)
		}
	}
	for _, s := range surfaces() {
		if err := identifySurface(w, out, s, mvs); err != nil {
			return err
		}
	}
	if err := radiusSensitivity(w, mvs); err != nil {
		return err
	}
	if err := errorsInVariables(w, mvs, quick); err != nil {
		return err
	}
	return online(w, out, quick)
}

// forceCurves prints and plots Fx(κ) and Fy(α) for several μ, Kx, Ky
// (Figs. 7–8), with the default Pacejka curves beside them.
func forceCurves(w io.Writer, out string) error {
	kap := make([]float64, 201)
	alpha := make([]float64, 201)
	zero := make([]float64, 201)
	tanA := make([]float64, 201)
	for i := range kap {
		kap[i] = -1 + 2*float64(i)/200
		alpha[i] = -math.Pi / 4 * (1 - 2*float64(i)/200)
		tanA[i] = math.Tan(alpha[i])
	}
	var fx, fy []figure.Series
	fmt.Fprintln(w, "Dugoff and Pacejka forces per wheel (Fz = m·g/4 = 40.5 N):")
	fmt.Fprintf(w, "  %-28s %10s %10s %10s\n", "law", "Fx(κ=0.05)", "Fx(κ=0.5)", "Fy(α=10°)")
	for _, c := range []struct {
		name      string
		mu, kx, k float64
		tyre      string
	}{{"Dugoff μ=0.2 Kx=100 Ky=80", 0.2, 100, 80, "dugoff"}, {"Dugoff μ=0.2 Kx=300 Ky=240", 0.2, 300, 240, "dugoff"},
		{"Dugoff μ=0.5 Kx=100 Ky=80", 0.5, 100, 80, "dugoff"}, {"Pacejka (FORMATS defaults)", 0, 0, 0, "pacejka"}} {
		p := tire.Jackal()
		p.Tyre = c.tyre
		if c.tyre == "dugoff" {
			p.Mu, p.Kx, p.Ky = c.mu, c.kx, c.k
		}
		Fx, _, err := p.Forces(kap, zero)
		if err != nil {
			return err
		}
		_, Fy, err := p.Forces(zero, tanA)
		if err != nil {
			return err
		}
		deg := make([]float64, len(alpha))
		for i, a := range alpha {
			deg[i] = a * 180 / math.Pi
		}
		fx = append(fx, figure.Series{Name: c.name, X: kap, Y: Fx, Dashed: c.tyre == "pacejka"})
		fy = append(fy, figure.Series{Name: c.name, X: deg, Y: Fy, Dashed: c.tyre == "pacejka"})
		pt, _, _ := p.Forces([]float64{0.05, 0.5}, []float64{0, 0})
		_, py, _ := p.Forces([]float64{0}, []float64{math.Tan(10 * math.Pi / 180)})
		fmt.Fprintf(w, "  %-28s %10.2f %10.2f %10.2f\n", c.name, pt[0], pt[1], py[0])
	}
	fmt.Fprintln(w)
	if err := figure.XY(filepath.Join(out, "forces-fx.png"), "Fx vs longitudinal slip κ (Fig. 7)", "κ", "Fx (N)", false, fx); err != nil {
		return err
	}
	return figure.XY(filepath.Join(out, "forces-fy.png"), "Fy vs slip angle α (Fig. 8)", "α (°)", "Fy (N)", false, fy)
}

func pathRMS(p tire.Params, r *tire.Run) (float64, error) {
	st, err := tire.Simulate(p, r)
	if err != nil {
		return 0, err
	}
	var s float64
	n := 0
	for k := range r.T {
		if !math.IsNaN(r.X[k]) {
			dx, dy := st[k][0]-r.X[k], st[k][1]-r.Y[k]
			s += dx*dx + dy*dy
			n++
		}
	}
	return math.Sqrt(s / float64(n)), nil
}

func logs(truth tire.Params, mvs []tire.Maneuver) ([]*tire.Run, error) {
	var runs []*tire.Run
	for i, mv := range mvs {
		r, err := tire.Synthesize(truth, mv, tire.SynthConfig{Seed: uint64(100 + i), WheelStd: encoderStd})
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// radiusSensitivity identifies lino from robots whose effective wheel
// radius differs from the model's R.
func radiusSensitivity(w io.Writer, mvs []tire.Maneuver) error {
	s := surfaces()[0]
	fmt.Fprintln(w, "== lino, effective wheel radius off (the model keeps R = 0.09 m) ==")
	fmt.Fprintf(w, "  %-8s %9s %9s %9s %12s\n", "R error", "μ err", "Kx err", "Ky err", "RMS (mm)")
	for _, e := range []float64{0, 0.01, 0.03} {
		runs, err := logs(trueRobot(s.p, e), mvs)
		if err != nil {
			return err
		}
		res, err := tire.Identify(tire.Jackal(), runs, tire.IdentifyOptions{})
		if err != nil {
			return err
		}
		want := []float64{s.p.Mu, s.p.Kx, s.p.Ky}
		fmt.Fprintf(w, "  %+7.0f%% %+8.1f%% %+8.1f%% %+8.1f%% %12.2f\n", 100*e, 100*(res.Value[0]/want[0]-1), 100*(res.Value[1]/want[1]-1),
			100*(res.Value[2]/want[2]-1), 1e3*res.PoseRMS)
	}
	fmt.Fprintln(w, "  (a slip model reads a wrong radius as slip on every wheel: calibrate R first)")
	fmt.Fprintln(w)
	return nil
}

// errorsInVariables identifies the surfaces from logs with noisier
// encoders, plain (the logged wheel speeds taken as exact) and jointly with
// the true wheel speeds (tire.IdentifyOptions.ErrorsInVariables, the noise
// estimated from the log): the plain fit's Kx and Ky drop as the noise
// grows, with a σ that does not cover the error; the joint fit's do not.
func errorsInVariables(w io.Writer, mvs []tire.Maneuver, quick bool) error {
	levels := []float64{0.01, 0.03, 0.05}
	ss := surfaces()
	if quick {
		levels, ss = []float64{0.05}, ss[:1]
	}
	fmt.Fprintln(w, "== errors in variables: noisy encoders, plain fit vs joint fit with the true wheel speeds (error %, in σ) ==")
	fmt.Fprintf(w, "  %-7s %6s %6s  %-42s %-42s %6s\n", "surface", "σω", "est.", "plain: μ, Kx, Ky", "joint: μ, Kx, Ky", "noisy")
	for _, s := range ss {
		for _, sd := range levels {
			var runs []*tire.Run
			for i, mv := range mvs {
				r, err := tire.Synthesize(trueRobot(s.p, 0), mv, tire.SynthConfig{Seed: uint64(100 + i), WheelStd: sd})
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			res, err := tire.Identify(tire.Jackal(), runs, tire.IdentifyOptions{ErrorsInVariables: true})
			if err != nil {
				return err
			}
			want := []float64{s.p.Mu, s.p.Kx, s.p.Ky}
			cell := func(v, sd []float64) string {
				var c string
				for k := range v {
					c += fmt.Sprintf(" %+5.1f (%+5.1f)", 100*(v[k]/want[k]-1), (v[k]-want[k])/sd[k])
				}
				return c
			}
			fmt.Fprintf(w, "  %-7s %6.3f %6.3f %-42s %-42s %5.0f%%\n", s.name, sd, res.Noise.Wheel, cell(res.Plain, res.PlainStd), cell(res.Value, res.Std), 100*res.NoiseDominated)
			for _, m := range res.Warnings {
				fmt.Fprintf(w, "      warning: %s\n", m)
			}
		}
	}
	fmt.Fprintln(w, "  (noisy: rows where the encoder noise exceeds the slip of every wheel, tire.Result.NoiseSpans)")
	fmt.Fprintln(w)
	return nil
}

func identifySurface(w io.Writer, out string, s surface, mvs []tire.Maneuver) error {
	truth := trueRobot(s.p, 0)
	runs, err := logs(truth, mvs)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== %s: true μ = %g, Kx = %g, Ky = %g; %d maneuvers; model R = %g m (true %.4g), dt = 1 ms (true 0.25 ms), encoder noise %g rad/s ==\n",
		s.name, s.p.Mu, s.p.Kx, s.p.Ky, len(mvs), tire.Jackal().R, truth.R, encoderStd)
	res, err := tire.Identify(tire.Jackal(), runs, tire.IdentifyOptions{})
	if err != nil {
		return err
	}
	want := []float64{s.p.Mu, s.p.Kx, s.p.Ky}
	fmt.Fprintf(w, "identified (Dugoff) in %v, %d iterations (%s), position RMS %.2f mm:\n", res.Runtime.Round(time.Millisecond), res.Opt.Iterations, res.Opt.Status, 1e3*res.PoseRMS)
	for k, n := range res.Free {
		fmt.Fprintf(w, "  %-3s = %8.4g ± %.2g   truth %6.4g   error %+6.1f %%\n", n, res.Value[k], res.Std[k], want[k], 100*(res.Value[k]/want[k]-1))
	}
	fmt.Fprintf(w, "  %-14s %12s %14s %24s\n", "maneuver", "nominal (mm)", "identified (mm)", "yaw rate cmd → model")
	var ss []figure.Series
	for i, mv := range mvs {
		nominal, err := pathRMS(tire.Jackal(), runs[i])
		if err != nil {
			return err
		}
		fit, err := pathRMS(res.Params, runs[i])
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-14s %12.1f %14.1f %24s\n", mv.Name, 1e3*nominal, 1e3*fit, understeer(res.Params, runs[i]))
		st, _ := tire.Simulate(res.Params, runs[i])
		var mx, my, px, py []float64
		for k := range runs[i].T {
			if k%5 == 0 {
				mx, my = append(mx, runs[i].X[k]+3*float64(i%4)), append(my, runs[i].Y[k]-3*float64(i/4))
			}
			px, py = append(px, st[k][0]+3*float64(i%4)), append(py, st[k][1]-3*float64(i/4))
		}
		name, pname := "", ""
		if i == 0 {
			name, pname = "measured", "identified Dugoff model"
		}
		ss = append(ss, figure.Series{Name: name, X: mx, Y: my, Points: true}, figure.Series{Name: pname, X: px, Y: py})
	}
	fmt.Fprintln(w)
	return figure.XY(filepath.Join(out, "paths-"+s.name+".png"), s.name+": Table I maneuvers, measured and predicted", "x (m, offset per maneuver)", "y (m)", true, ss)
}

// understeer compares the yaw rate the wheel speeds command by nominal
// kinematics, R·(wr − wl)/W, with the model's, averaged over the second
// half of a run (steady turning on the circles).
func understeer(p tire.Params, r *tire.Run) string {
	st, err := tire.Simulate(p, r)
	if err != nil {
		return "-"
	}
	var cmd, real float64
	n := 0
	for k := len(r.T) / 2; k < len(r.T); k++ {
		cmd += p.R * (r.WR[k] - r.WL[k]) / p.W
		real += st[k][5]
		n++
	}
	cmd, real = cmd/float64(n), real/float64(n)
	if math.Abs(cmd) < 0.05 {
		return "-"
	}
	return fmt.Sprintf("%.3f → %.3f rad/s", cmd, real)
}

func online(w io.Writer, out string, quick bool) error {
	ss := surfaces()
	lino, carpet := ss[0].p, ss[1].p
	carpet.Kx, carpet.Ky = lino.Kx, lino.Ky // μ alone changes: the others come from lino's identification
	mv := tire.Maneuvers()[4]
	mv.Duration = 24
	if quick {
		mv.Duration = 12
	}
	change := mv.Duration / 2
	r, err := tire.SynthesizeSwitch(trueRobot(lino, 0), trueRobot(carpet, 0), change, mv, tire.SynthConfig{Seed: 5, WheelStd: encoderStd})
	if err != nil {
		return err
	}
	const batch = 2.0
	bs, err := tire.Online(lino, r, batch, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "== online μ, %g-s batches, paperclip driven onto carpet at %g s (true μ %g → %g) ==\n", batch, change, lino.Mu, carpet.Mu)
	var xs, ys []float64
	var worst time.Duration
	for _, b := range bs {
		fmt.Fprintf(w, "  %5.1f–%5.1f s  μ = %.3f  (RMS %.2f mm, %v)\n", b.Start, b.End, b.Mu, 1e3*b.PoseRMS, b.Elapsed.Round(time.Microsecond))
		xs, ys = append(xs, b.End), append(ys, b.Mu)
		worst = max(worst, b.Elapsed)
	}
	fmt.Fprintf(w, "  slowest batch: %v for %g s of data\n", worst.Round(time.Microsecond), batch)
	return figure.XY(filepath.Join(out, "online-mu.png"), "online μ (lino → carpet)", "time (s)", "μ", false,
		[]figure.Series{{Name: "estimate per batch", X: xs, Y: ys, Points: true}, {X: xs, Y: ys},
			{Name: "true", X: []float64{0, change, change, mv.Duration}, Y: []float64{lino.Mu, lino.Mu, carpet.Mu, carpet.Mu}, Dashed: true}})
}
