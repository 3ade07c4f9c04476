package cli

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

// mecanumSources are the -data logs with their -poses files and offsets:
// -offset auto estimates each log's offset from the motion onset
// (mecanum.EstimateOnset) of its first run and reports it.
func mecanumSources(e env, a IdentifyArgs, p mecanum.Params, rep io.Writer) ([]logSource, error) {
	return mecanumSourcesLag(e, a, p, rep, true)
}

// mecanumSourcesLag is mecanumSources; without lag the model's time to move
// is not counted (the wiring is not known yet).
func mecanumSourcesLag(e env, a IdentifyArgs, p mecanum.Params, rep io.Writer, lag bool) ([]logSource, error) {
	if a.Offset != "auto" {
		off, err := parseOffset(a.Offset)
		if err != nil {
			return nil, err
		}
		return a.sources(off), nil
	}
	srcs := a.sources(0)
	for i := range srcs {
		on, err := mecanumOnset(srcs[i], p, lag)
		if err != nil {
			return nil, err
		}
		srcs[i].Offset = on.Offset
		fmt.Fprintf(rep, "%s: offset %+.4f s added to the pose times (motion onset at pose time %.4f s, commands start at %.4f s, the model needs %.4f s to move %.3g m)\n",
			srcs[i].Path, on.Offset, on.MotionOnset, on.CommandOnset, on.Lag, on.Threshold)
	}
	return srcs, nil
}

// mecanumOnset estimates the offset of one log from its first run.
func mecanumOnset(src logSource, p mecanum.Params, lag bool) (mecanum.Onset, error) {
	st, err := mecanum.ReadStreams(src.Path, mecanum.LogOptions{Map: p.CommandMap, Sensors: src.Poses, Columns: src.Columns})
	if err != nil {
		return mecanum.Onset{}, err
	}
	if len(st.CmdT) == 0 {
		return mecanum.Onset{}, fmt.Errorf("%s: -offset auto: no command rows", src.Path)
	}
	estimate := mecanum.EstimateOnset
	if !lag {
		estimate = mecanum.EstimateOnsetNoLag
	}
	on, err := estimate(p, st.CmdT, st.W, st.CamT, st.X, st.Y, st.Theta)
	if err != nil {
		file := src.Path
		if src.Poses != "" {
			file = src.Poses
		}
		return on, fmt.Errorf("%s: -offset auto: %w", file, err)
	}
	return on, nil
}

// identifyMecanumSquared identifies with NetFit's squared-error loss: one
// constant μ (-loss squared) or the friction network (-friction net).
func identifyMecanumSquared(e env, a IdentifyArgs, p mecanum.Params, runs []mecanum.Run, rep io.Writer, net bool) error {
	init := [4]float64(p.Mu)
	start := time.Now()
	out := p
	out.Model = "mecanum"
	prog := func(stage string, it opt.Iteration) {
		a.Prog.printf("identify %s: iteration %d, loss %.6g", stage, it.Iter, it.F)
	}
	var x []float64
	var nf *mecanum.NetFit
	var optRes *opt.Result // the constant-μ fit's (the network's stages report their own)
	if net {
		r, err := mecanum.TrainNet(p, runs, mecanum.NetOptions{Init: init, Seed: 1, Progress: prog, Decays: mecanumDecays()})
		a.Prog.done()
		if err != nil {
			return err
		}
		if nf, err = mecanum.NewNetFit(p, runs, mecanum.NetHidden, r.Decay); err != nil {
			return err
		}
		x = r.X
		out.Mu, out.Friction = nil, r.Net
		fmt.Fprintf(rep, "mecanum identify: friction network %d-%d-4 trained jointly over %d run(s), start poses free; %d L-BFGS-B iterations in all stages, %s\n",
			4, mecanum.NetHidden, len(runs), r.Iterations, time.Since(start).Round(time.Millisecond))
		if len(r.HeldOut) == 0 {
			fmt.Fprintf(rep, "  fewer than 3 distinct commands: no held-out check; weight decay %g\n", r.Decay)
		} else {
			fmt.Fprintf(rep, "  held-out check (runs %v, their start poses fitted): position RMS %s for weight decay %s; one constant μ: %.4f m; decay %g chosen\n",
				r.HeldOut, fmtMetres(r.ValNet), fmtFloats(mecanumDecays()), r.ValConst, r.Decay)
			if r.Overfits {
				fmt.Fprintf(rep, "  WARNING: no network predicted the held-out commands better than one constant μ: the runs do not support a network (use -friction constant, or record more distinct commands)\n")
			}
		}
		fmt.Fprintf(rep, "  constant μ over the same runs for comparison: %.4f %.4f %.4f %.4f\n", r.ConstMu[0], r.ConstMu[1], r.ConstMu[2], r.ConstMu[3])
	} else {
		mu, r, f, err := mecanum.IdentifySquared(p, runs, init, false, a.Fit.Apply(opt.Settings{Callback: func(it opt.Iteration) bool { prog("squared loss", it); return true }}))
		a.Prog.done()
		if err != nil {
			return err
		}
		nf, x, optRes = f, r.X, r.Opt
		out.Mu, out.Friction = mu[:], nil
		fmt.Fprintf(rep, "mecanum identify: %d run(s), squared position and marker errors, μ and free start poses: %d least-squares iterations, %d evaluations, %s, %v\n",
			len(runs), r.Opt.Iterations, r.Opt.FuncEvaluations, time.Since(start).Round(time.Millisecond), r.Opt.Status)
		fmt.Fprintf(rep, "  μ = %.4f %.4f %.4f %.4f\n", mu[0], mu[1], mu[2], mu[3])
	}
	var ss float64
	for i := range runs {
		e := nf.RMS(x, i)
		ss += e * e
	}
	fmt.Fprintf(rep, "  position RMS over the runs' camera samples: %.4f m\n", math.Sqrt(ss/float64(len(runs))))
	if a.Plot != "" {
		var series []figure.Series
		for i := range runs {
			r := &runs[i]
			var gx, gy []float64
			for _, k := range r.Camera() {
				gx, gy = append(gx, r.X[k]), append(gy, r.Y[k])
			}
			px, py := nf.Predict(x, i)
			name := func(s string) string {
				if i == 0 {
					return s
				}
				return ""
			}
			series = append(series,
				figure.Series{Name: name("ground truth (camera)"), X: gx, Y: gy, Points: true, Color: figure.Palette[1]},
				figure.Series{Name: name("identified model"), X: px, Y: py, Color: figure.Palette[0]})
		}
		stage, err := e.stagePath(a.Plot)
		if err != nil {
			return err
		}
		if err := figure.XY(stage, "Mecanum identification", "x (m)", "y (m)", true, series); err != nil {
			return err
		}
	}
	if optRes == nil {
		return e.writeParams(a.Out, out, nil)
	}
	if err := e.writeParams(a.Out, out, fit.NewStatus("least-squares", optRes)); err != nil {
		return err
	}
	return checkFit(e, a.Fit, "mecanum identify (squared loss)", optRes)
}

func mecanumDecays() []float64 { return []float64{0.1, 1, 10} }

func fmtMetres(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.4f", x)
	}
	return s + " m"
}

func fmtFloats(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%g", x)
	}
	return s
}
