package robots

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/sbmpo"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/terra"
)

// Planner is a model that plans a path to a goal around obstacles (the
// command line's plan).
type Planner interface {
	Plan(req PlanRequest) (*Planned, error)
}

// Obstacle is a circular obstacle: centre X, Y and radius R (m).
type Obstacle = sbmpo.Obstacle

// PlanRequest is one plan: the model's parameters, where from and to,
// around what, how fast.
type PlanRequest struct {
	// Params are the planner's parameters (the skid-steer's: a
	// terra.Model), nil to read them from ParamsPath.
	Params     Params
	ParamsPath string
	Start      [3]float64 // x, y (m), heading (rad)
	Goal       [2]float64 // x, y (m)
	// Obstacles, and more read from ObstaclesPath (a CSV x,y,r; "" for
	// none).
	Obstacles     []Obstacle
	ObstaclesPath string
	Payload       float64    // extra payload at the centre of gravity (kg)
	Speed         float64    // forward speed (m/s)
	Area          [4]float64 // XMIN, XMAX, YMIN, YMAX (m); all zero: unbounded
	Refine        bool       // refine the plan by gradient
	Plot          bool       // asks for Planned.Figure
}

// Planned is a plan: the summary lines a face prints, the plan's CSV and,
// when asked for, its figure.
type Planned struct {
	Lines  []string
	Write  func(w io.Writer) error
	Figure *Figure
	// Energy (J) and Length (m) of the plan written: the refined one when
	// the refinement was accepted.
	Energy, Length float64
}

var _ Planner = SkidSteer{}

// SkidSteerPlanParams is the parameter file of a skid-steer plan: the
// skid-steer parameter file (FORMATS.md) with two optional objects,
// "surface" ([μ_o μ_i K], default Table 1's vinyl) and "vehicle" (Table 1's
// constants, each key optional).
type SkidSteerPlanParams struct {
	Model   string         `json:"model"`
	A       [3][3]float64  `json:"a"`
	Cov     *[9][9]float64 `json:"cov,omitempty"`
	Std     *[3][3]float64 `json:"std,omitempty"`
	Surface terra.Surface  `json:"surface"`
	Vehicle terra.Vehicle  `json:"vehicle"`
}

// ReadSkidSteerPlanParams reads a plan's parameter file strictly into the
// terramechanic model SBMPO plans with.
func ReadSkidSteerPlanParams(path string) (terra.Model, error) {
	p := SkidSteerPlanParams{Surface: terra.Vinyl, Vehicle: terra.FSUBot}
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

var obstacleSpec = dataset.Spec{Columns: []dataset.Column{{Name: "x"}, {Name: "y"}, {Name: "r"}}}

// ReadObstacles reads an obstacles CSV (x,y,r per row; r ≥ 0); errors name
// the file, line and column.
func ReadObstacles(path string) ([]Obstacle, error) {
	tab, err := dataset.ReadFile(path, obstacleSpec)
	if err != nil {
		return nil, err
	}
	x, y, r := tab.Col("x"), tab.Col("y"), tab.Col("r")
	obs := make([]Obstacle, tab.Len())
	for i := range obs {
		if r[i] < 0 {
			return nil, tab.Errorf(i, "r", "radius %g is negative", r[i])
		}
		obs[i] = Obstacle{X: x[i], Y: y[i], R: r[i]}
	}
	return obs, nil
}

// Plan is the skid-steer's energy-efficient plan (Ordonez et al. §4.3):
// SBMPO on the slip-calibrated kinematics and the terramechanic power
// look-up table (models/skidsteer/sbmpo), then, with Refine, a gradient
// refinement kept when it is collision-free and costs less. A speed outside
// (0, 2] m/s or a payload outside [0, 100] kg is a UsageError.
func (SkidSteer) Plan(req PlanRequest) (*Planned, error) {
	if !(req.Speed > 0 && req.Speed <= 2) {
		return nil, Usagef("-speed %g out of range (0, 2] m/s", req.Speed)
	}
	if !(req.Payload >= 0 && req.Payload <= 100) {
		return nil, Usagef("-payload %g out of range [0, 100] kg", req.Payload)
	}
	var m terra.Model
	switch v := req.Params.(type) {
	case nil:
		var err error
		if m, err = ReadSkidSteerPlanParams(req.ParamsPath); err != nil {
			return nil, err
		}
	case terra.Model:
		m = v
	default:
		return nil, fmt.Errorf("skidsteer plan: parameters of type %T, want terra.Model", req.Params)
	}
	m.Vehicle = m.Vehicle.WithPayload(req.Payload)
	obs := req.Obstacles
	if req.ObstaclesPath != "" {
		more, err := ReadObstacles(req.ObstaclesPath)
		if err != nil {
			return nil, err
		}
		obs = append(obs[:len(obs):len(obs)], more...)
	}
	t0 := time.Now()
	p, err := sbmpo.NewEnergyPlanner(m, req.Speed, 0.5)
	if err != nil {
		return nil, err
	}
	tables := time.Since(t0)
	p.Obstacles, p.Bounds = obs, req.Area
	start := skidsteer.Pose{X: req.Start[0], Y: req.Start[1], Psi: req.Start[2]}
	plan, err := p.Plan(start, req.Goal)
	if err != nil {
		return nil, err
	}
	mtr := "none"
	if p.Table.MTR > 0 {
		mtr = fmt.Sprintf("%.2f m", p.Table.MTR)
	}
	lines := []string{
		fmt.Sprintf("plan: surface [mu_o mu_i K] = [%.4g %.4g %.4g], payload %g kg, speed %g m/s, MTR %s (tables %v)",
			m.Surface.MuO, m.Surface.MuI, m.Surface.K, req.Payload, req.Speed, mtr, tables.Round(time.Millisecond)),
		fmt.Sprintf("SBMPO:   energy %.1f J, length %.2f m, time %.1f s, planning %.1f ms (%d nodes expanded)",
			plan.Energy, plan.Length, plan.Time, ms(plan.Elapsed), plan.Expanded),
	}
	final := plan
	if req.Refine {
		ref, info, err := p.Refine(plan, req.Goal, sbmpo.RefineWeights{})
		if err != nil {
			return nil, err
		}
		if info.Accepted {
			final = ref
			lines = append(lines, fmt.Sprintf("refined: energy %.1f J, length %.2f m, time %.1f s, refinement %.1f ms (%d iterations, clearance %.2f m)",
				ref.Energy, ref.Length, ref.Time, ms(info.Elapsed), info.Iterations, info.Clearance))
		} else {
			lines = append(lines, fmt.Sprintf("refined: not accepted (energy %.1f J, clearance %.2f m); the SBMPO plan is kept", info.After, info.Clearance))
		}
	}
	out := &Planned{Lines: lines, Energy: final.Energy, Length: final.Length,
		Write: func(w io.Writer) error { return writeSkidSteerPlan(w, m, p, final) }}
	if req.Plot {
		out.Figure = skidSteerPlanFigure(p, []*sbmpo.EnergyPlan{plan, final}, req.Goal)
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// writeSkidSteerPlan writes t,vc,wc,x,y,psi at every Euler step of the plan
// (the integration step of its collision checks), so that simulate
// reproduces the predicted path exactly, plus the predicted power of the
// row's command (W) and the cumulative energy (J) at the row's time.
func writeSkidSteerPlan(w io.Writer, m terra.Model, p *sbmpo.EnergyPlanner, plan *sbmpo.EnergyPlan) error {
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

// skidSteerPlanFigure draws the obstacles, the SBMPO plan (dashed when a
// refined one follows), the refined plan and the goal.
func skidSteerPlanFigure(p *sbmpo.EnergyPlanner, plans []*sbmpo.EnergyPlan, goal [2]float64) *Figure {
	f := &Figure{Title: "skid-steer energy-efficient plan", XLabel: "x (m)", YLabel: "y (m)", Equal: true}
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
		f.Series = append(f.Series, Series{Name: name, X: cx, Y: cy, Color: 2})
	}
	names := []string{"SBMPO", "refined"}
	for i, pl := range plans {
		if i > 0 && pl == plans[0] {
			continue
		}
		x, y := p.Path(pl)
		f.Series = append(f.Series, Series{Name: fmt.Sprintf("%s (%.0f J)", names[min(i, 1)], pl.Energy), X: x, Y: y,
			Color: []int{1, 3}[min(i, 1)], Dashed: i == 0 && len(plans) > 1})
	}
	f.Series = append(f.Series, Series{Name: "goal", X: []float64{goal[0]}, Y: []float64{goal[1]}, Points: true, Color: 4})
	return f
}
