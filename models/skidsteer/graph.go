package skidsteer

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
)

// BuildWindows adds to a graph the Euler rollout of eqs. 2–3 over a batch of
// windows, every node a vector over the windows (DESIGN.md: batch, don't
// unroll scalars; a window is short, e.g. the 10 commands between two 10-Hz
// pose samples, so its steps are unrolled). a holds the nine coefficient
// nodes a11..a33, each a scalar shared by all windows or a vector with one
// value per window (a lane's own coefficients, see GraphJacobian). Step s
// takes dv[s] = dt·vc, dw[s] = dt·wc and dvw[s] = dt·vc·wc (the commands
// pre-multiplied by the step length, which saves a product per velocity).
// It returns the end pose of every window relative to its start.
func BuildWindows(a, dv, dw, dvw []*G.Node) (x, y, psi *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("skidsteer: building the window graph: %v", r)
		}
	}()
	if len(a) != NumCoeffs {
		return nil, nil, nil, fmt.Errorf("skidsteer: %d coefficient nodes, want 9", len(a))
	}
	if len(dv) == 0 || len(dw) != len(dv) || len(dvw) != len(dv) {
		return nil, nil, nil, fmt.Errorf("skidsteer: step inputs of lengths %d, %d, %d", len(dv), len(dw), len(dvw))
	}
	mul := func(c, v *G.Node) *G.Node {
		if c.IsScalar() {
			return G.Must(G.Mul(c, v))
		}
		return G.Must(G.HadamardProd(c, v))
	}
	add := func(u, v *G.Node) *G.Node { return G.Must(G.Add(u, v)) }
	// lin is Σ_k a[row,k]·feature_k (eq. 3), plus base when not nil.
	lin := func(row int, base *G.Node, s int) *G.Node {
		r := add(mul(a[3*row], dv[s]), mul(a[3*row+1], dw[s]))
		r = add(r, mul(a[3*row+2], dvw[s]))
		if base != nil {
			r = add(base, r)
		}
		return r
	}
	for s := range dv {
		fwd := lin(0, dv[s], s) // dt·forward
		lat := lin(1, nil, s)   // dt·lateral
		yaw := lin(2, dw[s], s) // dt·yawrate
		if s == 0 {
			// ψ = 0 at the window's start: the rotation is the identity.
			x, y, psi = fwd, lat, yaw
			continue
		}
		c, sn := G.Must(G.Cos(psi)), G.Must(G.Sin(psi))
		x = add(x, G.Must(G.Sub(G.Must(G.HadamardProd(c, fwd)), G.Must(G.HadamardProd(sn, lat)))))
		y = add(y, add(G.Must(G.HadamardProd(sn, fwd)), G.Must(G.HadamardProd(c, lat))))
		psi = add(psi, yaw)
	}
	return x, y, psi, nil
}

// stepInputs declares the per-step data inputs of a window graph over n
// lanes and S steps: dv<s>, dw<s>, dvw<s>.
func stepInputs(g *ad.Graph, n, steps int) (dv, dw, dvw []*G.Node, err error) {
	zero := make([]float64, n)
	for s := range steps {
		for _, d := range []struct {
			name string
			dst  *[]*G.Node
		}{{"dv", &dv}, {"dw", &dw}, {"dvw", &dvw}} {
			node, err := g.Input(fmt.Sprintf("%s%d", d.name, s), zero)
			if err != nil {
				return nil, nil, nil, err
			}
			*d.dst = append(*d.dst, node)
		}
	}
	return dv, dw, dvw, nil
}

// setStepInputs loads windows (whose W must equal the program's lanes, or
// divide them: lanes repeat the windows) into a program built by stepInputs.
func setStepInputs(p *ad.Program, ws *Windows, lanes int, buf []float64) error {
	rep := lanes / ws.W
	for s := range ws.S {
		for k, name := range []string{"dv", "dw", "dvw"} {
			for l := range lanes {
				i := s*ws.W + l/rep
				h := ws.Dt[i]
				switch k {
				case 0:
					buf[l] = h * ws.Vc[i]
				case 1:
					buf[l] = h * ws.Wc[i]
				default:
					buf[l] = h * ws.Vc[i] * ws.Wc[i]
				}
			}
			if err := p.SetInput(fmt.Sprintf("%s%d", name, s), buf[:lanes]); err != nil {
				return err
			}
		}
	}
	return nil
}

// GraphJacobian computes, with one forward and one backward pass of a
// compiled graph, the end poses of W windows and their Jacobians with
// respect to the nine coefficients. The graph has 3·W lanes: lane 3w+c
// integrates window w with its own copy of the coefficients and contributes
// its output c (x, y or ψ) to the scalar loss with unit weight, so the
// gradient of the loss with respect to lane 3w+c's coefficients is row c of
// window w's Jacobian.
type GraphJacobian struct {
	prog  *ad.Program
	W, S  int
	x     []float64
	grad  []float64
	buf   []float64
	lanes int
}

// NewGraphJacobian compiles the Jacobian graph for batches of w windows of
// at most s steps.
func NewGraphJacobian(w, s int) (*GraphJacobian, error) {
	if w < 1 || s < 1 {
		return nil, fmt.Errorf("skidsteer: Jacobian graph needs at least one window and one step (got %d, %d)", w, s)
	}
	lanes := 3 * w
	params := make([]ad.Param, NumCoeffs)
	for j := range params {
		params[j] = ad.Param{Name: CoeffNames[j], Shape: []int{lanes}}
	}
	sel := make([][]float64, 3)
	for c := range sel {
		sel[c] = make([]float64, lanes)
		for l := c; l < lanes; l += 3 {
			sel[c][l] = 1
		}
	}
	prog, err := ad.Compile(params, func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		dv, dw, dvw, err := stepInputs(g, lanes, s)
		if err != nil {
			return nil, err
		}
		x, y, psi, err := BuildWindows(p, dv, dw, dvw)
		if err != nil {
			return nil, err
		}
		g.Watch("x", x)
		g.Watch("y", y)
		g.Watch("psi", psi)
		sum := G.Must(G.Add(G.Must(G.HadamardProd(g.Const(sel[0]), x)), G.Must(G.HadamardProd(g.Const(sel[1]), y))))
		sum = G.Must(G.Add(sum, G.Must(G.HadamardProd(g.Const(sel[2]), psi))))
		return G.Sum(sum)
	}, ad.WithUnusedParams())
	if err != nil {
		return nil, err
	}
	return &GraphJacobian{prog: prog, W: w, S: s, lanes: lanes,
		x: make([]float64, NumCoeffs*lanes), grad: make([]float64, NumCoeffs*lanes), buf: make([]float64, lanes)}, nil
}

// Nodes is the node count of the compiled graph.
func (j *GraphJacobian) Nodes() int { return j.prog.Nodes() }

// Jacobian evaluates the windows ws (ws.W == j.W, ws.S ≤ j.S: shorter
// windows are padded) at the coefficients a and writes window w's 3×9
// Jacobian (rows x, y, ψ) into jac[27w : 27w+27]; it returns the end poses.
func (j *GraphJacobian) Jacobian(a []float64, ws *Windows, jac []float64) ([]Pose, error) {
	if ws.W != j.W || ws.S > j.S || len(jac) < 27*j.W || len(a) != NumCoeffs {
		return nil, fmt.Errorf("skidsteer: Jacobian graph for %d windows × %d steps got %d × %d", j.W, j.S, ws.W, ws.S)
	}
	pad := ws
	if ws.S < j.S {
		pad = NewWindows(ws.W, j.S)
		copy(pad.Vc, ws.Vc)
		copy(pad.Wc, ws.Wc)
		copy(pad.Dt, ws.Dt)
	}
	if err := setStepInputs(j.prog, pad, j.lanes, j.buf); err != nil {
		return nil, err
	}
	for k := range NumCoeffs {
		for l := range j.lanes {
			j.x[k*j.lanes+l] = a[k]
		}
	}
	if _, err := j.prog.ValueAndGradInto(j.x, j.grad); err != nil {
		return nil, err
	}
	out := make([]Pose, j.W)
	xs, ys, ps := j.prog.Output("x"), j.prog.Output("y"), j.prog.Output("psi")
	for w := range j.W {
		out[w] = Pose{X: xs[3*w], Y: ys[3*w], Psi: ps[3*w]}
		for c := range 3 {
			for k := range NumCoeffs {
				jac[27*w+9*c+k] = j.grad[k*j.lanes+3*w+c]
			}
		}
	}
	return out, nil
}
