package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/sbmpo"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/terra"
	"github.com/wheelgrad/wheelgrad/robots"
)

// `wheelgrad plan` (README, "Contract additions"): energy-efficient motion
// planning for the skid-steer (Ordonez et al. §4.3): SBMPO on the
// slip-calibrated kinematics and the terramechanic power look-up table,
// then a gradient refinement of the plan.
func init() {
	register(command{
		name:    "plan",
		usage:   "plan -model skidsteer -params P.json -start X,Y,PSI -goal X,Y [-obstacles OBS.csv] [-payload KG] [-speed V] [-area XMIN,XMAX,YMIN,YMAX] [-refine=false] [-out PLAN.csv] [-plot F.png]",
		summary: "Energy-efficient path of a skid-steer to a goal around circular obstacles (SBMPO, then gradient refinement); writes the plan CSV.",
		flags: func(fs *flag.FlagSet, reg *robots.Registry) func(env) error {
			var a planArgs
			fs.StringVar(&a.model, "model", "", "robot model: skidsteer")
			fs.StringVar(&a.params, "params", "", "parameter JSON: slip coefficients \"a\", optional \"surface\", \"vehicle\"")
			fs.StringVar(&a.start, "start", "", "start pose X,Y,PSI (m, m, rad)")
			fs.StringVar(&a.goal, "goal", "", "goal position X,Y (m)")
			fs.StringVar(&a.obstacles, "obstacles", "", "obstacles CSV: x,y,r (m)")
			fs.Float64Var(&a.payload, "payload", 0, "extra payload (kg) at the CG")
			fs.Float64Var(&a.speed, "speed", 0.6, "forward speed (m/s)")
			fs.StringVar(&a.area, "area", "", "bounding area XMIN,XMAX,YMIN,YMAX (m); default unbounded")
			fs.BoolVar(&a.refine, "refine", true, "refine the SBMPO plan by gradient")
			fs.StringVar(&a.out, "out", "-", "plan CSV file (- for stdout)")
			fs.StringVar(&a.plot, "plot", "", "PNG file: the planned path and the obstacles")
			return func(e env) error { return runPlan(e, a) }
		},
	})
}

type planArgs struct {
	model, params, start, goal, obstacles, area, out, plot string
	payload, speed                                         float64
	refine                                                 bool
}

// planParams is the parameter file of `plan`: the skidsteer parameter file
// (FORMATS.md) with two optional objects, "surface" ([μ_o μ_i K], default
// Table 1's vinyl) and "vehicle" (Table 1's constants, each key optional).
type planParams struct {
	Model   string         `json:"model"`
	A       [3][3]float64  `json:"a"`
	Cov     *[9][9]float64 `json:"cov,omitempty"`
	Std     *[3][3]float64 `json:"std,omitempty"`
	Surface terra.Surface  `json:"surface"`
	Vehicle terra.Vehicle  `json:"vehicle"`
}

func parseFloats(flagName, s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, usagef("-%s wants %d comma-separated numbers, got %q", flagName, n, s)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, usagef("-%s: %q is not a finite number", flagName, p)
		}
		out[i] = v
	}
	return out, nil
}

var obstacleSpec = dataset.Spec{Columns: []dataset.Column{{Name: "x"}, {Name: "y"}, {Name: "r"}}}

// readObstacles reads the obstacles CSV (x,y,r per row; r ≥ 0).
func readObstacles(path string) ([]sbmpo.Obstacle, error) {
	tab, err := dataset.ReadFile(path, obstacleSpec)
	if err != nil {
		return nil, err
	}
	x, y, r := tab.Col("x"), tab.Col("y"), tab.Col("r")
	obs := make([]sbmpo.Obstacle, tab.Len())
	for i := range obs {
		if r[i] < 0 {
			return nil, tab.Errorf(i, "r", "radius %g is negative", r[i])
		}
		obs[i] = sbmpo.Obstacle{X: x[i], Y: y[i], R: r[i]}
	}
	return obs, nil
}

func readPlanParams(path string) (terra.Model, error) {
	p := planParams{Surface: terra.Vinyl, Vehicle: terra.FSUBot}
	if err := dataset.ReadJSONFile(path, &p, true); err != nil {
		return terra.Model{}, err
	}
	sp := skidsteer.Params{Model: p.Model, A: p.A}
	if err := sp.Validate(); err != nil {
		return terra.Model{}, fmt.Errorf("%s: %w", path, err)
	}
	m := terra.Model{Vehicle: p.Vehicle, Surface: p.Surface}
	copy(m.A[:], sp.Coeffs())
	if err := m.Validate(); err != nil {
		return terra.Model{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func runPlan(e env, a planArgs) error {
	if a.model == "" {
		return usagef("-model is required (skidsteer)")
	}
	if a.model != "skidsteer" {
		return usagef("plan supports -model skidsteer only, not %q", a.model)
	}
	for _, r := range [][2]string{{"params", a.params}, {"start", a.start}, {"goal", a.goal}} {
		if err := required(r[0], r[1]); err != nil {
			return err
		}
	}
	if err := e.declareFiles([]flagPath{{"params", a.params}, {"obstacles", a.obstacles}}, []flagPath{{"out", a.out}, {"plot", a.plot}}); err != nil {
		return err
	}
	st, err := parseFloats("start", a.start, 3)
	if err != nil {
		return err
	}
	gl, err := parseFloats("goal", a.goal, 2)
	if err != nil {
		return err
	}
	if !(a.speed > 0 && a.speed <= 2) {
		return usagef("-speed %g out of range (0, 2] m/s", a.speed)
	}
	if !(a.payload >= 0 && a.payload <= 100) {
		return usagef("-payload %g out of range [0, 100] kg", a.payload)
	}
	var area [4]float64
	if a.area != "" {
		b, err := parseFloats("area", a.area, 4)
		if err != nil {
			return err
		}
		if !(b[0] < b[1] && b[2] < b[3]) {
			return usagef("-area wants XMIN < XMAX and YMIN < YMAX")
		}
		copy(area[:], b)
	}
	m, err := readPlanParams(a.params)
	if err != nil {
		return err
	}
	m.Vehicle = m.Vehicle.WithPayload(a.payload)
	var obs []sbmpo.Obstacle
	if a.obstacles != "" {
		if obs, err = readObstacles(a.obstacles); err != nil {
			return err
		}
	}
	t0 := time.Now()
	p, err := sbmpo.NewEnergyPlanner(m, a.speed, 0.5)
	if err != nil {
		return err
	}
	tables := time.Since(t0)
	p.Obstacles, p.Bounds = obs, area
	start := skidsteer.Pose{X: st[0], Y: st[1], Psi: st[2]}
	goal := [2]float64{gl[0], gl[1]}
	plan, err := p.Plan(start, goal)
	if err != nil {
		return err
	}
	mtr := "none"
	if p.Table.MTR > 0 {
		mtr = fmt.Sprintf("%.2f m", p.Table.MTR)
	}
	fmt.Fprintf(e.stderr, "plan: surface [mu_o mu_i K] = [%.4g %.4g %.4g], payload %g kg, speed %g m/s, MTR %s (tables %v)\n",
		m.Surface.MuO, m.Surface.MuI, m.Surface.K, a.payload, a.speed, mtr, tables.Round(time.Millisecond))
	fmt.Fprintf(e.stderr, "SBMPO:   energy %.1f J, length %.2f m, time %.1f s, planning %.1f ms (%d nodes expanded)\n",
		plan.Energy, plan.Length, plan.Time, ms(plan.Elapsed), plan.Expanded)
	final := plan
	if a.refine {
		ref, info, err := p.Refine(plan, goal, sbmpo.RefineWeights{})
		if err != nil {
			return err
		}
		if info.Accepted {
			final = ref
			fmt.Fprintf(e.stderr, "refined: energy %.1f J, length %.2f m, time %.1f s, refinement %.1f ms (%d iterations, clearance %.2f m)\n",
				ref.Energy, ref.Length, ref.Time, ms(info.Elapsed), info.Iterations, info.Clearance)
		} else {
			fmt.Fprintf(e.stderr, "refined: not accepted (energy %.1f J, clearance %.2f m); the SBMPO plan is kept\n", info.After, info.Clearance)
		}
	}
	if err := e.writeOut(a.out, func(w io.Writer) error { return writePlan(w, m, p, final) }); err != nil {
		return err
	}
	if a.plot != "" {
		stage, err := e.stagePath(a.plot)
		if err != nil {
			return err
		}
		if err := plotPlan(stage, p, []*sbmpo.EnergyPlan{plan, final}, goal); err != nil {
			return err
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// writePlan writes t,vc,wc,x,y,psi at every Euler step of the plan (the
// integration step of its collision checks), so that `simulate -model
// skidsteer` reproduces the predicted path exactly, plus the predicted power
// of the row's command (W) and the cumulative energy (J) at the row's time.
func writePlan(w io.Writer, m terra.Model, p *sbmpo.EnergyPlanner, plan *sbmpo.EnergyPlan) error {
	cw := dataset.NewWriter(w)
	if err := cw.WriteHeader("t", "vc", "wc", "x", "y", "psi", "power", "energy"); err != nil {
		return err
	}
	t, e := 0.0, 0.0
	ps := plan.Poses[0]
	n := p.Steps()
	for k, wc := range plan.Wc {
		r, err := m.TorquesValue(terra.Command{Vc: plan.Vc, Wc: wc})
		if err != nil {
			return err
		}
		_, _, pw := m.Power(r)
		h := plan.Dt[k] / float64(n)
		for range n {
			if err := cw.WriteFloats(t, plan.Vc, wc, ps.X, ps.Y, ps.Psi, pw, e); err != nil {
				return err
			}
			ps = skidsteer.Step(p.A[:], ps, plan.Vc, wc, h)
			t += h
			e += pw * h
		}
	}
	if err := cw.WriteFloats(t, plan.Vc, 0, ps.X, ps.Y, ps.Psi, 0, e); err != nil {
		return err
	}
	return cw.Flush()
}

func plotPlan(path string, p *sbmpo.EnergyPlanner, plans []*sbmpo.EnergyPlan, goal [2]float64) error {
	if len(plans) == 0 {
		return errors.New("plan: nothing to plot")
	}
	var ss []figure.Series
	for i, o := range p.Obstacles {
		var cx, cy []float64
		for k := range 41 {
			a := 2 * math.Pi * float64(k) / 40
			cx, cy = append(cx, o.X+o.R*math.Cos(a)), append(cy, o.Y+o.R*math.Sin(a))
		}
		name := ""
		if i == 0 {
			name = "obstacles"
		}
		ss = append(ss, figure.Series{Name: name, X: cx, Y: cy, Color: figure.Palette[1]})
	}
	names := []string{"SBMPO", "refined"}
	for i, pl := range plans {
		if i > 0 && pl == plans[0] {
			continue
		}
		x, y := p.Path(pl)
		ss = append(ss, figure.Series{Name: fmt.Sprintf("%s (%.0f J)", names[min(i, 1)], pl.Energy), X: x, Y: y,
			Color: figure.Palette[[]int{0, 2}[min(i, 1)]], Dashed: i == 0 && len(plans) > 1})
	}
	ss = append(ss, figure.Series{Name: "goal", X: []float64{goal[0]}, Y: []float64{goal[1]}, Points: true, Color: figure.Palette[3]})
	return figure.XY(path, "skid-steer energy-efficient plan", "x (m)", "y (m)", true, ss)
}
