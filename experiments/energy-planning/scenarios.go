package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/sbmpo"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/terra"
)

// The 10 m × 10 m area with cones (radius 0.15 m) of every scenario.
var (
	area  = [4]float64{0, 10, 0, 10}
	cones = []sbmpo.Obstacle{{X: 3.5, Y: 2.3, R: 0.15}, {X: 5.2, Y: 4.6, R: 0.15}, {X: 3.6, Y: 6.2, R: 0.15}, {X: 7.4, Y: 3.4, R: 0.15},
		{X: 7.0, Y: 6.6, R: 0.15}}
	start = skidsteer.Pose{X: 1, Y: 1.5}
	goal  = [2]float64{9, 7}
)

// executed is a plan driven open loop by the true robot.
type executed struct {
	x, y      []float64
	energy    float64 // J
	miss      float64 // distance from the goal at the end (m)
	clearance float64 // smallest clearance to a cone (m; < 0: collision)
}

// execute drives the plan's commands on the true robot's kinematics at
// 100 Hz and integrates the power its torques draw.
func execute(plan *sbmpo.EnergyPlan, tr terra.Model, robotRadius float64) (executed, error) {
	var e executed
	ps := plan.Poses[0]
	e.x, e.y = []float64{ps.X}, []float64{ps.Y}
	e.clearance = math.Inf(1)
	for k, wc := range plan.Wc {
		r, err := tr.TorquesValue(terra.Command{Vc: plan.Vc, Wc: wc})
		if err != nil {
			return e, err
		}
		_, _, p := tr.Power(r)
		e.energy += p * plan.Dt[k]
		n := max(1, int(math.Round(plan.Dt[k]*100)))
		for range n {
			ps = skidsteer.Step(tr.A[:], ps, plan.Vc, wc, plan.Dt[k]/float64(n))
			e.x, e.y = append(e.x, ps.X), append(e.y, ps.Y)
			for _, c := range cones {
				e.clearance = math.Min(e.clearance, math.Hypot(ps.X-c.X, ps.Y-c.Y)-c.R-robotRadius)
			}
		}
	}
	e.miss = math.Hypot(ps.X-goal[0], ps.Y-goal[1])
	return e, nil
}

type scenario struct {
	fig, title string
	kin        string     // the kinematics the plan uses
	slip       [9]float64 // its slip coefficients
	power      terra.Surface
	powerSlip  [9]float64 // the slip calibration the power model was identified with
	powerName  string
	kg         float64 // payload the planner's model carries
	world      surface
	worldKg    float64
}

func scenarios(w io.Writer, dir string, nn map[string]*nets) error {
	as, co := nn["asphalt"].mapped, nn["concrete"].mapped
	list := []scenario{
		{"fig20", "Scenario 1: asphalt, nominal kinematics (Fig. 20)", "nominal", [9]float64{}, as, asphalt.slip, "asphalt (mapped)", 0, asphalt, 0},
		{"fig21", "Scenario 1: asphalt, slip-calibrated kinematics (Fig. 21)", "asphalt", asphalt.slip, as, asphalt.slip, "asphalt (mapped)", 0, asphalt, 0},
		{"fig22", "Scenario 2: concrete, asphalt slip model (Fig. 22)", "asphalt", asphalt.slip, co, concrete.slip, "concrete (mapped)", 0, concrete, 0},
		{"fig23", "Scenario 2: concrete, concrete slip model (Fig. 23)", "concrete", concrete.slip, co, concrete.slip, "concrete (mapped)", 0, concrete, 0},
		{"fig24", "Scenario 3: asphalt, +8 kg, mapped model generalised (Fig. 24)", "asphalt", asphalt.slip, as, asphalt.slip, "asphalt (mapped) +8 kg", payload, asphalt, payload},
		{"", "Scenario 3 without generalisation: the 0-kg model for the +8-kg robot", "asphalt", asphalt.slip, as, asphalt.slip, "asphalt (mapped) 0 kg", 0, asphalt, payload},
	}
	// Payload generalisation (§3.2, Scenario 3): the torques the mapped
	// asphalt model predicts for +8 kg against the true robot's.
	fmt.Fprintf(w, "Payload +%.0f kg on asphalt, torques at 0.6 m/s (N·m): true robot, mapped model with the payload, mapped model without it\n\n", payload)
	fmt.Fprintf(w, "%9s %17s %17s %17s\n", "radius m", "true (o, i)", "mapped +8 kg", "mapped 0 kg")
	tr8 := truth(asphalt, payload)
	m8, m0 := model(as, asphalt.slip, payload), model(as, asphalt.slip, 0)
	for _, rho := range []float64{1.5, 2, 3, 5, 10, 50} {
		c := terra.Command{Vc: vPlan, Wc: vPlan / rho}
		var v [3]terra.Result
		for i, m := range []*terra.Model{&tr8, &m8, &m0} {
			r, err := m.TorquesValue(c)
			if err != nil {
				return err
			}
			v[i] = r
		}
		fmt.Fprintf(w, "%9.1f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", rho, v[0].TauO, v[0].TauI, v[1].TauO, v[1].TauI, v[2].TauO, v[2].TauI)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "3. SBMPO in a 10 m × 10 m area with %d cones, start (%.1f, %.1f, 0°), goal (%.1f, %.1f), 0.6 m/s, 20 Halton samples; executed open loop on the true robot\n\n",
		len(cones), start.X, start.Y, goal[0], goal[1])
	fmt.Fprintf(w, "%-6s %-9s %-24s %7s %8s %8s %8s %9s %9s %8s %8s %9s\n", "fig", "slip", "power model", "MTR m", "plan ms", "SBMPO J", "refin. J",
		"pred. J", "exec. J", "error", "miss m", "clear. m")
	for _, s := range list {
		// The power model (look-up table and MTR) is the mapped surface with
		// the slip calibration it was identified with; the kinematics the
		// plan predicts with are the scenario's.
		m := model(s.power, s.powerSlip, s.kg)
		p, err := sbmpo.NewEnergyPlanner(m, vPlan, 0.5)
		if err != nil {
			return err
		}
		p.A = s.slip
		p.Obstacles, p.Bounds = cones, area
		var plan *sbmpo.EnergyPlan
		best := time.Hour
		for range 5 { // planning time: best of 5 (shared machine)
			if plan, err = p.Plan(start, goal); err != nil {
				break
			}
			best = min(best, plan.Elapsed)
		}
		if err != nil {
			fmt.Fprintf(w, "%-6s %-9s %-24s %7.2f   %v\n", s.fig, s.kin, s.powerName, p.Table.MTR, err)
			continue
		}
		ref, info, err := p.Refine(plan, goal, sbmpo.RefineWeights{})
		if err != nil {
			return err
		}
		ex, err := execute(ref, truth(s.world, s.worldKg), p.RobotRadiusOrDefault())
		if err != nil {
			return err
		}
		errPct := 100 * (ref.Energy - ex.energy) / ex.energy
		mtr := p.Table.MTR
		fmt.Fprintf(w, "%-6s %-9s %-24s %7.2f %8.2f %8.1f %8.1f %9.1f %9.1f %+7.1f%% %8.2f %9.2f\n", s.fig, s.kin, s.powerName, mtr,
			ms(best), plan.Energy, info.After, ref.Energy, ex.energy, errPct, ex.miss, ex.clearance)
		if s.fig == "" {
			continue
		}
		px, py := p.Path(ref)
		sx, sy := p.Path(plan)
		ss := conesSeries()
		ss = append(ss,
			figure.Series{Name: fmt.Sprintf("SBMPO plan (%.0f J)", plan.Energy), X: sx, Y: sy, Color: figure.Palette[3], Dashed: true},
			figure.Series{Name: fmt.Sprintf("refined plan (%.0f J predicted)", ref.Energy), X: px, Y: py, Color: figure.Palette[0]},
			figure.Series{Name: fmt.Sprintf("executed (%.0f J)", ex.energy), X: ex.x, Y: ex.y, Color: figure.Palette[2]},
			figure.Series{Name: "goal", X: []float64{goal[0]}, Y: []float64{goal[1]}, Points: true, Color: figure.Palette[4]})
		if err := figure.XY(filepath.Join(dir, s.fig+".png"), s.title, "x (m)", "y (m)", true, ss); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nerror = (predicted − executed)/executed (positive: over-prediction); miss: distance of the executed end from the goal;")
	fmt.Fprintln(w, "clear.: smallest executed clearance between the robot's 0.25-m disc and a cone (negative: collision).")
	fmt.Fprintln(w, "plan ms: SBMPO search alone, best of 5 (the look-up tables are built once per model beforehand).")
	return nil
}

func conesSeries() []figure.Series {
	var ss []figure.Series
	for i, o := range cones {
		var cx, cy []float64
		for k := range 41 {
			a := 2 * math.Pi * float64(k) / 40
			cx, cy = append(cx, o.X+o.R*math.Cos(a)), append(cy, o.Y+o.R*math.Sin(a))
		}
		name := ""
		if i == 0 {
			name = "cones"
		}
		ss = append(ss, figure.Series{Name: name, X: cx, Y: cy, Color: figure.Palette[1]})
	}
	return ss
}
