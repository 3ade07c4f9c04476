package tire

import (
	"fmt"
	"math"
	"strings"

	"github.com/wheelgrad/wheelgrad/dyn"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// Run is one run of a log (FORMATS.md model "tire"): row times, the
// measured wheel speeds (rad/s) held from a row to the next, and optional
// motion-capture poses and body velocities (NaN where a row has none; nil
// slices where the log has no such column).
type Run struct {
	T, WL, WR []float64
	X, Y, Psi []float64
	U, V, R   []float64
	// Origin locates the run's rows in the file it was read from (zero
	// for a run built in code), for errors naming the file and line.
	dataset.Origin
}

// MaxSteps bounds the integration steps of one run (its duration over dt):
// 10⁹ steps are about 90 s of rollout at 11.6 million steps per second.
const MaxSteps = 1_000_000_000

// MaxIdentifySteps bounds what identify holds at once: runs (lanes) times
// the longest run's steps, about 170 bytes each (states, inputs, outputs and
// their adjoints): 5·10⁶ lane-steps are near 1 GB.
const MaxIdentifySteps = 5_000_000

// plan is how a run maps onto integration steps of dt: row i is the state
// at step index at[i] (before the step that row's wheel speeds start), and
// step k is driven by the wheel speeds of the last row with at[row] ≤ k.
type plan struct {
	at    []int
	steps int
}

func (r *Run) plan(dt float64) (plan, error) {
	n := len(r.T)
	if n == 0 {
		return plan{}, &dataset.RowError{Row: 0, Column: "t", Msg: "the run has no rows"}
	}
	if err := r.shapes(); err != nil {
		return plan{}, err
	}
	if steps := (r.T[n-1] - r.T[0]) / dt; !(steps <= MaxSteps) {
		return plan{}, &dataset.RowError{Row: n - 1, Column: "t", Msg: fmt.Sprintf("the run lasts %.6g s: %.3g integration steps of dt = %g s, above the limit of %.0e (about 90 s of computing per rollout); use a larger dt or split the log", r.T[n-1]-r.T[0], steps, dt, float64(MaxSteps))}
	}
	pl := plan{at: make([]int, n)}
	for i, t := range r.T {
		k := int(math.Round((t - r.T[0]) / dt))
		if i > 0 && k <= pl.at[i-1] {
			return plan{}, &dataset.RowError{Row: i, Column: "t", Msg: fmt.Sprintf("%g s after the previous row, less than one integration step dt = %g s", t-r.T[i-1], dt)}
		}
		pl.at[i] = k
	}
	pl.steps = pl.at[n-1]
	return pl, nil
}

// shapes checks that the run's columns are as long as T: WL, WR always,
// X, Y, Psi and U, V, R each all nil or all present (a library caller's
// mismatched slices are an error, not an index panic; issue 26.6).
func (r *Run) shapes() error {
	n := len(r.T)
	for _, g := range []struct {
		names    string
		cols     [][]float64
		optional bool
	}{{"wl, wr", [][]float64{r.WL, r.WR}, false}, {"x, y, psi", [][]float64{r.X, r.Y, r.Psi}, true}, {"u, v, r", [][]float64{r.U, r.V, r.R}, true}} {
		var lens []string
		bad, none := false, true
		for _, c := range g.cols {
			lens = append(lens, fmt.Sprint(len(c)))
			bad = bad || len(c) != n
			none = none && c == nil
		}
		if bad && !(g.optional && none) {
			return fmt.Errorf("tire: a run of %d times has columns %s of lengths %s", n, g.names, strings.Join(lens, ", "))
		}
	}
	return nil
}

// hasPose reports whether row i carries a full pose.
func (r *Run) hasPose(i int) bool {
	return r.X != nil && !math.IsNaN(r.X[i]) && !math.IsNaN(r.Y[i]) && !math.IsNaN(r.Psi[i])
}

// Initial is the run's initial state (FORMATS.md): its first pose (or zero),
// u = R·(wl + wr)/2 of the first row and v = r = 0, unless the first row
// carries u, v, r.
func (r *Run) Initial(p Params) [6]float64 {
	var s [6]float64
	for i := range r.T {
		if r.hasPose(i) {
			s[0], s[1], s[2] = r.X[i], r.Y[i], r.Psi[i]
			break
		}
	}
	s[3] = p.R * (r.WL[0] + r.WR[0]) / 2
	if r.U != nil && !math.IsNaN(r.U[0]) && !math.IsNaN(r.V[0]) && !math.IsNaN(r.R[0]) {
		s[3], s[4], s[5] = r.U[0], r.V[0], r.R[0]
	}
	return s
}

// inputs writes the wheel speeds of every step of lane j of B into u
// ([T][2][B]), holding the last row's speeds to the end (T ≥ steps).
func (r *Run) inputs(pl plan, u []float64, j, B, T int) {
	row := 0
	for k := range T {
		for row+1 < len(r.T) && pl.at[row+1] <= k {
			row++
		}
		u[(k*2)*B+j], u[(k*2+1)*B+j] = r.WL[row], r.WR[row]
	}
}

// SimulateChunk is the number of integration steps Simulate holds at once:
// a long run is rolled chunk by chunk, each from the last chunk's final
// state, so memory does not grow with the run (about 60 bytes per row).
const SimulateChunk = 1 << 16

// Simulate rolls p's model over the run and returns the state at every
// row's time: x, y, psi, u, v, r.
func Simulate(p Params, r *Run) ([][6]float64, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	pl, err := r.plan(p.Dt)
	if err != nil {
		return nil, err
	}
	m := p.Body()
	T := max(pl.steps, 1)
	chunk := min(T, SimulateChunk)
	sim := m.NewSim(1, chunk)
	u := make([]float64, chunk*2)
	x0 := r.Initial(p)
	x := x0[:]
	out := make([][6]float64, len(r.T))
	in, next := 0, 0 // row driving the current step; next row to output
	for k0 := 0; k0 < T; k0 += chunk {
		n := min(chunk, T-k0)
		if n < chunk {
			sim, u = m.NewSim(1, n), u[:2*n]
		}
		for k := range n {
			for in+1 < len(r.T) && pl.at[in+1] <= k0+k {
				in++
			}
			u[2*k], u[2*k+1] = r.WL[in], r.WR[in]
		}
		if _, err := sim.Forward(p.free(), p.settings(), x, u, nil); err != nil {
			return nil, err
		}
		for next < len(r.T) && pl.at[next] < k0+n {
			copy(out[next][:], sim.State(pl.at[next]-k0))
			next++
		}
		x = append(x[:0:0], sim.Final()...)
	}
	for ; next < len(r.T); next++ { // rows at the final step
		copy(out[next][:], x)
	}
	return out, nil
}

// simOf is a Sim of B lanes over T steps for p's tyre law.
func simOf(p Params, B, T int) *dyn.Sim { return p.Body().NewSim(B, T) }
