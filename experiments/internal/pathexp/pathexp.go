// Package pathexp is the common runner of the figure8 and circle
// experiments (Luo et al. §VII-B, Figs. 8–9): identify the robot from logs,
// plan open loop, re-plan in closed loop against the "true" robot, and
// compare with the paper's data-driven network.
package pathexp

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/experiments/internal/baseline"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/robots"
)

// TrueFriction is the simulated real robot's friction: it depends on the
// command, as the paper found (§VI, end), μ_j = a_j + b·tanh(|ω_s,j|/15):
// faster wheels slip more.
type TrueFriction struct{ A [4]float64 }

// DefaultTruth has μ between about 0.55 and 1.1 over the commands used.
var DefaultTruth = TrueFriction{A: [4]float64{0.55, 0.65, 0.75, 0.85}}

func (f TrueFriction) Mu(ws [4]float64) [4]float64 {
	var mu [4]float64
	for j := range mu {
		mu[j] = f.A[j] + 0.25*math.Tanh(math.Abs(ws[j])/15)
	}
	return mu
}

// Graph is the same law on vectors (not used for planning — the planner does
// not know it — but the interface asks for it).
func (f TrueFriction) Graph(g *ad.Graph, ws [4]*G.Node) ([4]*G.Node, error) {
	var mu [4]*G.Node
	for j := range mu {
		t, err := G.Tanh(G.Must(G.Mul(G.Must(G.Abs(ws[j])), g.Scalar(1.0/15))))
		if err != nil {
			return mu, err
		}
		mu[j] = G.Must(G.Add(G.Must(G.Mul(t, g.Scalar(0.25))), g.Scalar(f.A[j])))
	}
	return mu, nil
}

// Commands of the identification logs: 8 constant commands of 7 s, as the
// paper's 8 trajectories.
var Commands = [][4]float64{
	{10, 10, 10, 10}, {-10, -10, -10, -10}, {10, -10, 10, -10}, {-8, 8, -8, 8},
	{12, 6, 12, 6}, {6, 12, 6, 12}, {8, -8, -8, 8}, {15, 5, 5, 15},
}

// Logs simulates the identification logs on the true robot: each constant
// command acts with the truth's μ for that command; 240-Hz rows, 60-Hz camera,
// σ = 3 mm (and 0.01 rad).
func Logs(base mecanum.Params, truth TrueFriction) []mecanum.Run {
	var runs []mecanum.Run
	for i, c := range Commands {
		p := base
		mu := truth.Mu(c)
		p.Mu = mu[:]
		r, _ := mecanum.Synthesize(p, mecanum.SynthSpec{ID: fmt.Sprint(i + 1), Command: c, Duration: 7, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(100 + i)})
		runs = append(runs, r)
	}
	return runs
}

// Config of one experiment.
type Config struct {
	Name    string
	Path    control.Path
	Heading control.HeadingMode
	Theta0  float64
	Out     string
	Quick   bool // fewer re-plans, for the smoke test
}

// Row is one line of the result table.
type Row struct {
	Method        string
	RMS, Max      float64
	OnTime        float64
	Reversed, Fwd float64
	Time          time.Duration
}

// Run performs the experiment, prints the table to w and writes PNGs into
// cfg.Out. It returns the rows.
func Run(cfg Config, w io.Writer) ([]Row, error) {
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	base := mecanum.DefaultParams()
	truthM := mecanum.Drive{Params: base, Friction: DefaultTruth}
	truthM.Params.Mu = []float64{0, 0, 0, 0}

	// 1. Identify constant μ from the logs (all runs jointly).
	runs := Logs(base, DefaultTruth)
	t0 := time.Now()
	fit, err := mecanum.NewFit(base, runs, mecanum.DefaultConfig())
	if err != nil {
		return nil, err
	}
	id, err := mecanum.Identify(fit, mecanum.IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "%s: identified μ = [%.3f %.3f %.3f %.3f] from %d logs in %s (the true μ depends on the command)\n",
		cfg.Name, id.Mu[0], id.Mu[1], id.Mu[2], id.Mu[3], len(runs), time.Since(t0).Round(time.Millisecond))
	ident := base
	ident.Mu = id.Mu[:]
	model := mecanum.Drive{Params: ident}

	// 2. Open loop: plan with the identified model, execute on the truth
	// (the follow pipeline of `wheelgrad follow`).
	f, err := robots.PlanWheelFollow(robots.WheelFollowRequest{Model: model, Path: cfg.Path, Mode: cfg.Heading,
		Start: control.Pose{Theta: cfg.Theta0}, Rate: 4, Dt: 1.0 / 240, Wmax: 30})
	if err != nil {
		return nil, err
	}
	if err := f.Synthesize(); err != nil {
		return nil, err
	}
	plan, res := f.Plan, f.Synthesis
	var rows []Row
	track := func(method string, poses []control.Pose, vel [][2]float64, d time.Duration) Row {
		t := control.Track(cfg.Path, 0, plan.Dt, poses, vel)
		r := Row{Method: method, RMS: t.RMS, Max: t.Max, OnTime: t.OnTimeRMS, Reversed: t.ReversedRight, Fwd: t.ForwardLeft, Time: d}
		rows = append(rows, r)
		return r
	}
	predP, predV := res.Predicted.Poses, res.Predicted.Velocity
	track("synthesis, predicted by the model", predP, predV, res.Synthesis.Runtime)
	ol, err := f.OpenLoop(truthM)
	if err != nil {
		return nil, err
	}
	olP := ol.Poses
	track("synthesis, open loop, executed", olP, ol.Velocity, res.Synthesis.Runtime)

	// 3. MPC against the truth.
	ms := control.MPCSettings{Noise: 0.003, Seed: 1}
	if cfg.Quick {
		ms.Opt.MaxIterations = 30
	}
	if _, err := f.RunMPC(truthM, ms); err != nil {
		return nil, err
	}
	m := f.MPC
	track(fmt.Sprintf("MPC (%d re-plans), executed", m.Replans), m.Poses, m.Velocity, m.Runtime)

	// 4. The paper's data-driven 3-32-4 network.
	t1 := time.Now()
	in, out := baseline.Samples(runs, plan.N, 16)
	b, err := baseline.Train(in, out, 30, 1)
	if err != nil {
		return nil, err
	}
	bP, bV := control.Execute(truthM, plan.Start, b.Controls(plan), plan.N, plan.Dt)
	track("data-driven 3-32-4 network, executed", bP, bV, time.Since(t1))

	fmt.Fprintf(w, "\n%-42s %9s %9s %10s", "method", "RMS (m)", "max (m)", "on time")
	rev := cfg.Heading == control.Figure8ReverseRight
	if rev {
		fmt.Fprintf(w, " %9s %9s", "rev. R", "fwd. L")
	}
	fmt.Fprintf(w, " %9s\n", "time")
	for _, r := range rows {
		fmt.Fprintf(w, "%-42s %9.4f %9.4f %10.4f", r.Method, r.RMS, r.Max, r.OnTime)
		if rev {
			fmt.Fprintf(w, " %8.1f%% %8.1f%%", 100*r.Reversed, 100*r.Fwd)
		}
		fmt.Fprintf(w, " %9s\n", r.Time.Round(time.Millisecond))
	}

	rfx, rfy := control.Dense(cfg.Path, 2000)
	xy := func(p []control.Pose) ([]float64, []float64) {
		x := make([]float64, len(p))
		y := make([]float64, len(p))
		for i := range p {
			x[i], y[i] = p[i].X, p[i].Y
		}
		return x, y
	}
	px, py := xy(predP)
	ox, oy := xy(olP)
	mx, my := xy(m.Poses)
	bx, by := xy(bP)
	main := filepath.Join(cfg.Out, cfg.Name+".png")
	if err := figure.XY(main, fmt.Sprintf("%s: reference, predicted, executed", cfg.Name), "x (m)", "y (m)", true, []figure.Series{
		{Name: "reference", X: rfx, Y: rfy, Color: figure.Palette[5], Width: 6},
		{Name: "predicted (identified model)", X: px, Y: py, Color: figure.Palette[0]},
		{Name: "open loop, executed", X: ox, Y: oy, Color: figure.Palette[3], Dashed: true},
		{Name: "MPC, executed", X: mx, Y: my, Color: figure.Palette[2]},
	}); err != nil {
		return nil, err
	}
	nn := filepath.Join(cfg.Out, cfg.Name+"-baseline.png")
	if err := figure.XY(nn, fmt.Sprintf("%s: the data-driven network drives off", cfg.Name), "x (m)", "y (m)", true, []figure.Series{
		{Name: "reference", X: rfx, Y: rfy, Color: figure.Palette[5], Width: 6},
		{Name: "3-32-4 network, executed", X: bx, Y: by, Color: figure.Palette[1]},
		{Name: "MPC, executed", X: mx, Y: my, Color: figure.Palette[2]},
	}); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nwrote %s and %s\n", main, nn)
	return rows, nil
}
