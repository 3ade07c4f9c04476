package sbmpo

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/skidsteer/terra"
)

// Obstacle is a circular obstacle (a cone): centre and radius (m).
type Obstacle struct{ X, Y, R float64 }

// EnergyPlanner is Sampling Based Model Predictive Optimization (SBMPO,
// Ordonez et al. §3.3.3 and §4.3) for a skid-steered robot: an A*-type search
// whose edges hold one of Samples commanded yaw rates (a Halton sequence over
// the rates the minimum turn radius allows) for Dt seconds at the fixed
// forward speed of Table, forward-simulated with the slip-calibrated
// kinematics A (eqs. 2–3), costed by the energy of the torque look-up
// Table (eqs. 25–26), with the straight-line energy to the goal as the
// heuristic. Refine then lowers the plan's energy by gradient.
type EnergyPlanner struct {
	A           [9]float64   // slip coefficients the plan predicts with
	Table       *terra.Table // power look-up at the forward speed Table.Vc
	Obstacles   []Obstacle
	RobotRadius float64    // added to every obstacle's radius [0.25 m]
	Bounds      [4]float64 // xmin, xmax, ymin, ymax of the area; all zero: unbounded
	Samples     int        // Halton samples of the yaw rate [20]
	Dt          float64    // edge duration [1 s]
	SubSteps    int        // Euler steps per edge, also the collision checks [10]
	GoalRadius  float64    // the goal is reached within this distance [0.3 m]
	Cell        float64    // grid of the closed set, position [Dt·Vc/2]
	HeadingBins int        // grid of the closed set, heading: at least [32] and two bins per largest turn of an edge
	MaxExpand   int        // [50000]
	// Admissible makes the heuristic the smallest energy per metre over
	// the samples (optimal plans, more nodes) instead of the paper's
	// straight-line energy.
	Admissible bool
}

// EnergyPlan is a planned trajectory: the commanded yaw rate of each segment
// (forward speed Table.Vc) held for its duration, and the predicted poses at
// the segment boundaries (len(Wc)+1).
type EnergyPlan struct {
	Vc       float64
	Wc, Dt   []float64
	Poses    []skidsteer.Pose
	Energy   float64 // predicted (J)
	Length   float64 // path length (m)
	Time     float64 // s
	Expanded int     // search nodes expanded (SBMPO)
	Elapsed  time.Duration
}

func (p *EnergyPlanner) defaults() EnergyPlanner {
	q := *p
	if q.RobotRadius == 0 {
		q.RobotRadius = 0.25
	}
	if q.Samples == 0 {
		q.Samples = 20
	}
	if q.Dt == 0 {
		q.Dt = 1
	}
	if q.SubSteps == 0 {
		q.SubSteps = 10
	}
	if q.GoalRadius == 0 {
		q.GoalRadius = 0.3
	}
	if q.Cell == 0 && q.Table != nil {
		q.Cell = q.Dt * q.Table.Vc / 2
	}
	if q.HeadingBins == 0 {
		q.HeadingBins = 32
	}
	if q.MaxExpand == 0 {
		q.MaxExpand = 50000
	}
	return q
}

// Steps is the number of Euler steps per segment (SubSteps or its default).
func (p *EnergyPlanner) Steps() int {
	q := p.defaults()
	return q.SubSteps
}

// MaxYawRate is the largest commanded yaw rate the plan may use: the
// table's range, limited by the minimum turn radius (|ω_c| ≤ v/MTR).
func (p *EnergyPlanner) MaxYawRate() float64 {
	w := p.Table.Wmax
	if p.Table.MTR > 0 {
		w = math.Min(w, p.Table.Vc/p.Table.MTR)
	}
	return w
}

// Halton returns the n yaw-rate samples: the base-2 Halton (van der Corput)
// sequence from index 1 mapped onto [−wmax, wmax] (its first sample is 0,
// straight ahead).
func Halton(n int, wmax float64) []float64 {
	out := make([]float64, n)
	for i := range n {
		u, f := 0.0, 0.5
		for k := i + 1; k > 0; k /= 2 {
			u += f * float64(k%2)
			f /= 2
		}
		out[i] = wmax * (2*u - 1)
	}
	return out
}

// ErrNoPath is returned when the search exhausts its nodes.
var ErrNoPath = errors.New("sbmpo: no collision-free path to the goal")

func (p *EnergyPlanner) check() error {
	if p.Table == nil {
		return errors.New("sbmpo: no power table")
	}
	for i, o := range p.Obstacles {
		if math.IsNaN(o.X+o.Y+o.R) || math.IsInf(o.X+o.Y+o.R, 0) || o.R < 0 {
			return fmt.Errorf("sbmpo: obstacle %d is not a finite circle", i+1)
		}
	}
	return nil
}

// collides says whether the robot's disc at (x, y) touches an obstacle or
// leaves the area.
func (p *EnergyPlanner) collides(x, y float64) bool {
	b := p.Bounds
	if b != [4]float64{} && (x < b[0] || x > b[1] || y < b[2] || y > b[3]) {
		return true
	}
	for _, o := range p.Obstacles {
		r := o.R + p.RobotRadius
		dx, dy := x-o.X, y-o.Y
		if dx*dx+dy*dy < r*r {
			return true
		}
	}
	return false
}

type sbNode struct {
	pose   skidsteer.Pose
	g, f   float64
	parent int
	wc, dt float64
}

// sbHeap is a binary min-heap of node indices by f (ties: larger g first),
// typed to avoid container/heap's boxing of every push.
type sbHeap struct {
	nodes []sbNode
	order []int
}

func (h *sbHeap) less(i, j int) bool {
	a, b := &h.nodes[h.order[i]], &h.nodes[h.order[j]]
	if a.f != b.f {
		return a.f < b.f
	}
	return a.g > b.g // ties: the deeper node
}

func (h *sbHeap) Len() int { return len(h.order) }

func (h *sbHeap) push(v int) {
	h.order = append(h.order, v)
	for i := len(h.order) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.order[i], h.order[p] = h.order[p], h.order[i]
		i = p
	}
}

func (h *sbHeap) pop() int {
	n := len(h.order) - 1
	top := h.order[0]
	h.order[0] = h.order[n]
	h.order = h.order[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r := l + 1; r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h.order[i], h.order[m] = h.order[m], h.order[i]
		i = m
	}
	return top
}

// Plan searches from start to the goal.
func (p *EnergyPlanner) Plan(start skidsteer.Pose, goal [2]float64) (*EnergyPlan, error) {
	t0 := time.Now()
	if err := p.check(); err != nil {
		return nil, err
	}
	q := p.defaults()
	if q.collides(start.X, start.Y) {
		return nil, errors.New("sbmpo: the start is inside an obstacle or outside the area")
	}
	vc := q.Table.Vc
	wmax := q.MaxYawRate()
	ws := Halton(q.Samples, wmax)
	// Edge costs from the look-up table. The heuristic is the energy of
	// driving straight to the goal (§4.3), optimistic when no turn costs
	// less per metre than a straight line; Admissible takes the smallest
	// energy per metre over the samples instead, which never overestimates.
	cost := make([]float64, len(ws))
	p0, _, err := q.Table.Power(0)
	if err != nil {
		return nil, err
	}
	f0, l0, _ := skidsteer.Velocity(q.A[:], vc, 0)
	perMetre := p0 / math.Hypot(f0, l0)
	for i, w := range ws {
		pw, _, err := q.Table.Power(w)
		if err != nil {
			return nil, err
		}
		cost[i] = pw * q.Dt
		if q.Admissible {
			f, l, _ := skidsteer.Velocity(q.A[:], vc, w)
			perMetre = math.Min(perMetre, pw/math.Hypot(f, l))
		}
	}
	hfun := func(ps skidsteer.Pose) float64 {
		d := math.Hypot(goal[0]-ps.X, goal[1]-ps.Y) - q.GoalRadius
		return math.Max(d, 0) * perMetre
	}
	// Heading bins at most half the largest turn of an edge: coarser bins
	// merge every turning child with the straight one (they share a
	// position cell), and a robot with a large MTR could never turn.
	bins := q.HeadingBins
	dpsi := 0.0
	for _, w := range ws {
		_, _, y := skidsteer.Velocity(q.A[:], vc, w)
		dpsi = math.Max(dpsi, math.Abs(y)*q.Dt)
	}
	if dpsi > 0 {
		bins = max(bins, int(math.Ceil(4*math.Pi/dpsi)))
	}
	type key struct{ ix, iy, ih int32 }
	keyOf := func(ps skidsteer.Pose) key {
		h := skidsteer.Wrap(ps.Psi)
		return key{int32(math.Floor(ps.X / q.Cell)), int32(math.Floor(ps.Y / q.Cell)),
			int32(math.Floor((h + math.Pi) / (2 * math.Pi) * float64(bins)))}
	}
	closed := make(map[key]bool, 4096)
	hp := &sbHeap{nodes: make([]sbNode, 0, 1<<15), order: make([]int, 0, 1<<14)}
	hp.nodes = append(hp.nodes, sbNode{pose: start, f: hfun(start), parent: -1})
	hp.push(0)
	// Motion primitives: by the model's rotation invariance, each sample's
	// Euler steps from (0, 0, 0) give every edge's poses after one rotation.
	h := q.Dt / float64(q.SubSteps)
	prim := make([]skidsteer.Pose, len(ws)*q.SubSteps)
	for i, w := range ws {
		var ps skidsteer.Pose
		for s := range q.SubSteps {
			ps = skidsteer.Step(q.A[:], ps, vc, w, h)
			prim[i*q.SubSteps+s] = ps
		}
	}
	expanded := 0
	for hp.Len() > 0 {
		ni := hp.pop()
		n := hp.nodes[ni]
		k := keyOf(n.pose)
		if closed[k] {
			continue
		}
		closed[k] = true
		if math.Hypot(goal[0]-n.pose.X, goal[1]-n.pose.Y) <= q.GoalRadius {
			plan := q.extract(hp.nodes, ni, vc)
			plan.Expanded = expanded
			plan.Elapsed = time.Since(t0)
			return plan, nil
		}
		expanded++
		if expanded > q.MaxExpand {
			break
		}
		c, sn := math.Cos(n.pose.Psi), math.Sin(n.pose.Psi)
	edges:
		for i, w := range ws {
			var ps skidsteer.Pose
			steps := q.SubSteps
			for s := range q.SubSteps {
				d := prim[i*q.SubSteps+s]
				ps = skidsteer.Pose{X: n.pose.X + c*d.X - sn*d.Y, Y: n.pose.Y + sn*d.X + c*d.Y, Psi: n.pose.Psi + d.Psi}
				if q.collides(ps.X, ps.Y) {
					continue edges
				}
				if dx, dy := goal[0]-ps.X, goal[1]-ps.Y; dx*dx+dy*dy <= q.GoalRadius*q.GoalRadius {
					steps = s + 1 // the edge ends where it reaches the goal
					break
				}
			}
			if closed[keyOf(ps)] {
				continue
			}
			frac := float64(steps) / float64(q.SubSteps)
			g := n.g + cost[i]*frac
			hp.nodes = append(hp.nodes, sbNode{pose: ps, g: g, f: g + hfun(ps), parent: ni, wc: w, dt: q.Dt * frac})
			hp.push(len(hp.nodes) - 1)
		}
	}
	return nil, ErrNoPath
}

func (q *EnergyPlanner) extract(nodes []sbNode, ni int, vc float64) *EnergyPlan {
	var idx []int
	for i := ni; i >= 0; i = nodes[i].parent {
		idx = append(idx, i)
	}
	plan := &EnergyPlan{Vc: vc}
	for k := len(idx) - 1; k >= 0; k-- {
		n := nodes[idx[k]]
		plan.Poses = append(plan.Poses, n.pose)
		if n.parent >= 0 {
			plan.Wc = append(plan.Wc, n.wc)
			plan.Dt = append(plan.Dt, n.dt)
		}
	}
	q.evaluate(plan)
	return plan
}

// evaluate fills the plan's energy (look-up table), length and time, and
// re-simulates its poses.
func (q *EnergyPlanner) evaluate(plan *EnergyPlan) {
	plan.Energy, plan.Length, plan.Time = 0, 0, 0
	ps := plan.Poses[0]
	plan.Poses = plan.Poses[:1]
	for k, w := range plan.Wc {
		pw, _, _ := q.Table.Power(w)
		plan.Energy += pw * plan.Dt[k]
		plan.Time += plan.Dt[k]
		f, l, _ := skidsteer.Velocity(q.A[:], plan.Vc, w)
		plan.Length += math.Hypot(f, l) * plan.Dt[k]
		h := plan.Dt[k] / float64(q.SubSteps)
		for range q.SubSteps {
			ps = skidsteer.Step(q.A[:], ps, plan.Vc, w, h)
		}
		plan.Poses = append(plan.Poses, ps)
	}
}

// Collides says whether the plan's predicted path (every Euler step) touches
// an obstacle or leaves the area, and the smallest clearance (m) between the
// robot's disc and an obstacle.
func (p *EnergyPlanner) Collides(plan *EnergyPlan) (bool, float64) {
	q := p.defaults()
	ps := plan.Poses[0]
	hit := false
	clear := math.Inf(1)
	see := func(ps skidsteer.Pose) {
		if q.collides(ps.X, ps.Y) {
			hit = true
		}
		for _, o := range q.Obstacles {
			clear = math.Min(clear, math.Hypot(ps.X-o.X, ps.Y-o.Y)-o.R-q.RobotRadius)
		}
	}
	see(ps)
	for k, w := range plan.Wc {
		h := plan.Dt[k] / float64(q.SubSteps)
		for range q.SubSteps {
			ps = skidsteer.Step(q.A[:], ps, plan.Vc, w, h)
			see(ps)
		}
	}
	return hit, clear
}

// NewEnergyPlanner builds the planner for a terramechanic model at
// forward speed vc: the model's minimum turn radius and its power look-up
// table (81 nodes) over the yaw rates of turns no sharper than the MTR or
// minRadius (m), whichever is larger.
func NewEnergyPlanner(m terra.Model, vc, minRadius float64) (*EnergyPlanner, error) {
	if !(minRadius > 0) {
		return nil, errors.New("sbmpo: minimum radius must be > 0")
	}
	mtr, err := m.MTR(vc)
	if err != nil {
		return nil, err
	}
	tb, err := m.NewTable(vc, vc/math.Max(mtr, minRadius), 81)
	if err != nil {
		return nil, err
	}
	return &EnergyPlanner{A: m.A, Table: tb}, nil
}

// RobotRadiusOrDefault is the robot radius the planner uses (m).
func (p *EnergyPlanner) RobotRadiusOrDefault() float64 {
	q := p.defaults()
	return q.RobotRadius
}

// Path returns the x and y of a plan at every Euler step of its segments
// (SubSteps per segment), for figures.
func (p *EnergyPlanner) Path(plan *EnergyPlan) (xs, ys []float64) {
	ps := plan.Poses[0]
	xs, ys = []float64{ps.X}, []float64{ps.Y}
	n := p.Steps()
	for k, w := range plan.Wc {
		for range n {
			ps = skidsteer.Step(p.A[:], ps, plan.Vc, w, plan.Dt[k]/float64(n))
			xs, ys = append(xs, ps.X), append(ys, ps.Y)
		}
	}
	return
}
