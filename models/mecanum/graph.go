package mecanum

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
	"github.com/wheelgrad/wheelgrad/losses"
)

// graphFit is the loss of a Fit as one compiled gorgonia graph over the
// whole batch (Fit.compile, or the primitive reference Fit.compilePrimitive
// described here): the runs are the rows of [B, T] matrices (padded with
// dt = 0 and mask = 0), and time is integrated by graph.CumSum in a handful
// of nodes, whatever the horizon:
//
//	ω     = ω_s ⊙ (1 − K·μ)                       (eq. 3, as W·(B_r ⊙ (1 − K·μ)))
//	v     = B·ω                                    (eq. 4)
//	θ     = θ0 + CumSum_excl(ω_z·Δt)               (eq. 5, angle at the start of the step)
//	(x,y) = (x0,y0) + CumSum_excl(R(θ)·(v_x,v_y)·Δt)
//
// The closest points of the spline term come from a native search at the
// predicted positions before each run (SplineNodes), so Eval first rolls the
// native model forward, then runs the graph.
type graphFit struct {
	fit  *Fit
	Prog *ad.Program
	b, t int
	sd   *losses.SplineData
	// base mask (camera rows counted) and the per-term masks that also drop
	// rows whose distance is exactly zero at the current x: the norm has no
	// gradient there (the graph would give 0·∞ = NaN), and the native loss
	// takes the subgradient 0, which a dropped row reproduces.
	mask, mgt, msp, mhd []float64
	// fused: the graph of compile (see fused.go); slot maps run si's camera
	// sample k to its column in the [2, K] camera arrays (−1: not counted).
	fused bool
	slot  [][]int
	cam   *camData
}

// CompilePrimitive builds and compiles the graph of f's loss from
// gorgonia's elementwise primitives over the padded [B, T] rows, with the
// camera rows selected by 0/1 masks and the distances of eqs. 6–7 written
// out as losses.GroundTruth and losses.SplineTerm. It is the reference form
// of compile (the same loss and gradient, about four times the nodes and
// twice the evaluation time).
func (f *Fit) compilePrimitive(opts ...ad.Option) (*graphFit, error) {
	nb := len(f.segs)
	T := 0
	for _, s := range f.segs {
		T = max(T, s.n)
	}
	N := nb * T
	gf := &graphFit{fit: f, b: nb, t: T, sd: losses.NewSplineData(N)}
	gf.mgt, gf.msp, gf.mhd = make([]float64, N), make([]float64, N), make([]float64, N)
	W := make([]float64, N*4)
	dt := make([]float64, N)
	mask := make([]float64, N)
	gx, gy, qx, qy := make([]float64, N), make([]float64, N), make([]float64, N), make([]float64, N)
	for si, s := range f.segs {
		for i := 0; i < s.n; i++ {
			copy(W[(si*T+i)*4:], s.w[i][:])
			dt[si*T+i] = s.dt[i]
		}
		for k, i := range s.cam {
			if i == 0 && f.Cfg.Pose == PoseFixed {
				continue
			}
			m := si*T + i
			mask[m] = 1
			gx[m], gy[m], qx[m], qy[m] = s.gx[k], s.gy[k], s.qx[k], s.qy[k]
		}
	}
	params := []ad.Param{{Name: "mu", Shape: []int{4}}}
	free := f.Cfg.Pose == PoseFree
	if free {
		params = append(params, ad.Param{Name: "x0", Shape: []int{nb}}, ad.Param{Name: "y0", Shape: []int{nb}}, ad.Param{Name: "th0", Shape: []int{nb}})
	}
	Bm := f.P.BMatrix()
	build := func(g *ad.Graph, p []*G.Node) (loss *G.Node, err error) {
		defer func() {
			if r := recover(); r != nil {
				loss, err = nil, fmt.Errorf("mecanum: building the graph: %v", r)
			}
		}()
		mu := p[0]
		var x0, y0, th0 *G.Node
		if free {
			x0, y0, th0 = p[1], p[2], p[3]
		} else {
			v := make([][]float64, 3)
			for _, s := range f.segs {
				for c := range 3 {
					v[c] = append(v[c], s.pose0[c])
				}
			}
			x0, y0, th0 = g.Const(v[0]), g.Const(v[1]), g.Const(v[2])
		}
		must := G.Must
		bt := tensor.Shape{nb, T}
		s := must(G.Sub(g.Scalar(1), must(G.Mul(g.Scalar(f.P.K()), mu))))
		Wn := g.Const(W, N, 4)
		var v [3]*G.Node
		for r := range 3 {
			c := must(G.HadamardProd(g.Const(Bm[r][:]), s))
			v[r] = must(G.Reshape(must(G.Mul(Wn, c)), bt))
		}
		dtn := g.Const(dt, nb, T)
		// a start value per run spread along time, as the product [B,1]·[1,T]
		// (gorgonia 0.9.17's OuterProd fails in its backward pass)
		ones := g.Const(onesN(T), 1, T)
		bcast := func(a *G.Node) *G.Node { return must(G.Mul(must(G.Reshape(a, tensor.Shape{nb, 1})), ones)) }
		H, err := graph.CumSum(must(G.HadamardProd(v[2], dtn)), true)
		if err != nil {
			return nil, err
		}
		th := must(G.Add(H, bcast(th0)))
		cs, sn := must(G.Cos(th)), must(G.Sin(th))
		dx := must(G.HadamardProd(must(G.Sub(must(G.HadamardProd(cs, v[0])), must(G.HadamardProd(sn, v[1])))), dtn))
		dy := must(G.HadamardProd(must(G.Add(must(G.HadamardProd(sn, v[0])), must(G.HadamardProd(cs, v[1])))), dtn))
		X, err := graph.CumSum(dx, true)
		if err != nil {
			return nil, err
		}
		Y, err := graph.CumSum(dy, true)
		if err != nil {
			return nil, err
		}
		X = must(G.Add(X, bcast(x0)))
		Y = must(G.Add(Y, bcast(y0)))
		g.Watch("x", X)
		g.Watch("y", Y)
		g.Watch("theta", th)
		in := func(name string, v []float64) *G.Node {
			n, err := g.Input(name, v, nb, T)
			if err != nil {
				panic(err)
			}
			return n
		}
		lgt, err := losses.GroundTruth(X, Y, g.Const(gx, nb, T), g.Const(gy, nb, T), in("mgt", mask))
		if err != nil {
			return nil, err
		}
		sd := gf.sd
		sn2 := losses.SplineNodes{CX: in("cx", sd.CX), CY: in("cy", sd.CY)}
		if f.Cfg.Mode == losses.ImplicitClosest {
			sn2.PX, sn2.PY, sn2.TX, sn2.TY, sn2.KX, sn2.KY = in("px", sd.PX), in("py", sd.PY), in("tx", sd.TX), in("ty", sd.TY), in("kx", sd.KX), in("ky", sd.KY)
		}
		lsp, err := losses.SplineTerm(X, Y, sn2, f.Cfg.Mode, in("msp", mask))
		if err != nil {
			return nil, err
		}
		L, err := losses.Weighted(f.Cfg.Weights, lsp, lgt)
		if err != nil {
			return nil, err
		}
		if f.Cfg.Heading != 0 {
			QX := must(G.Sub(X, must(G.Mul(g.Scalar(f.ell), sn))))
			QY := must(G.Add(Y, must(G.Mul(g.Scalar(f.ell), cs))))
			lh, err := losses.GroundTruth(QX, QY, g.Const(qx, nb, T), g.Const(qy, nb, T), in("mhd", mask))
			if err != nil {
				return nil, err
			}
			L = must(G.Add(L, must(G.Mul(g.Scalar(f.Cfg.Heading), lh))))
		}
		if f.Cfg.Prior > 0 {
			L = must(G.Add(L, must(f.priorTerm(g, mu))))
		}
		return L, nil
	}
	prog, err := ad.Compile(params, build, opts...)
	if err != nil {
		return nil, err
	}
	gf.Prog = prog
	gf.mask = mask
	return gf, nil
}

func onesN(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// refresh runs the native closest-point search at the predicted camera
// positions under x and loads the results into the graph's inputs.
func (gf *graphFit) refresh(x []float64) error {
	if gf.fused {
		return gf.refreshFused(x)
	}
	f := gf.fit
	copy(gf.mgt, gf.mask)
	copy(gf.msp, gf.mask)
	copy(gf.mhd, gf.mask)
	for si := range f.segs {
		s := &f.segs[si]
		f.rollCamera(x, si, func(k int, px, py, th float64) {
			m := si*gf.t + s.cam[k]
			c := s.spline.ClosestWithin(px, py, s.tcam[k], f.Cfg.window())
			gf.sd.Set(m, px, py, c)
			sn, cs := math.Sincos(th)
			if px == s.gx[k] && py == s.gy[k] {
				gf.mgt[m] = 0
			}
			if c.Dist == 0 {
				gf.msp[m] = 0
			}
			if px-f.ell*sn == s.qx[k] && py+f.ell*cs == s.qy[k] {
				gf.mhd[m] = 0
			}
		})
	}
	names := []string{"cx", "cy", "mgt", "msp"}
	vals := [][]float64{gf.sd.CX, gf.sd.CY, gf.mgt, gf.msp}
	if f.Cfg.Heading != 0 {
		names, vals = append(names, "mhd"), append(vals, gf.mhd)
	}
	if f.Cfg.Mode == losses.ImplicitClosest {
		names = append(names, "px", "py", "tx", "ty", "kx", "ky")
		vals = append(vals, gf.sd.PX, gf.sd.PY, gf.sd.TX, gf.sd.TY, gf.sd.KX, gf.sd.KY)
	}
	for i, n := range names {
		if err := gf.Prog.SetInput(n, vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// Eval has the signature of opt.Objective: the loss and its gorgonia
// gradient.
func (gf *graphFit) Eval(x, grad []float64) (float64, error) {
	if err := gf.refresh(x); err != nil {
		return 0, err
	}
	if grad == nil {
		return gf.Prog.Value(x)
	}
	return gf.Prog.ValueAndGradInto(x, grad)
}

// Poses returns the graph's predicted poses of run i at its fitted rows
// (from the first to the last camera row), as of the last Eval.
func (gf *graphFit) Poses(i int) (x, y, th []float64) {
	n := gf.fit.segs[i].n
	if gf.fused {
		p := gf.Prog.Output("pose")
		N := gf.b * gf.t
		get := func(c int) []float64 {
			return append([]float64(nil), p[c*N+i*gf.t:c*N+i*gf.t+n]...)
		}
		return get(0), get(1), get(2)
	}
	get := func(name string) []float64 {
		return append([]float64(nil), gf.Prog.Output(name)[i*gf.t:i*gf.t+n]...)
	}
	return get("x"), get("y"), get("theta")
}

// rollCamera calls fn with the predicted pose at each camera row of run
// si (the same recursion as eval, positions only).
func (f *Fit) rollCamera(x []float64, si int, fn func(k int, px, py, th float64)) {
	B := f.P.BMatrix()
	K := f.P.K()
	s := &f.segs[si]
	p0 := f.pose(x, si)
	px, py, th := p0[0], p0[1], p0[2]
	ci := 0
	for i := 0; i < s.n; i++ {
		if ci < len(s.cam) && s.cam[ci] == i {
			fn(ci, px, py, th)
			ci++
		}
		if s.dt[i] == 0 {
			continue
		}
		var vx, vy, wz float64
		for j := range 4 {
			om := s.w[i][j] * (1 - x[j]*K)
			vx += B[0][j] * om
			vy += B[1][j] * om
			wz += B[2][j] * om
		}
		sn, cs := math.Sincos(th)
		px += s.dt[i] * (cs*vx - sn*vy)
		py += s.dt[i] * (sn*vx + cs*vy)
		th += s.dt[i] * wz
	}
}

// priorTerm is Prior·Σ_j (μ_j − PriorMu_j)², the pull toward -init, as a
// graph piece shared by the fused graph and its primitive reference.
func (f *Fit) priorTerm(g *ad.Graph, mu *G.Node) (*G.Node, error) {
	e, err := G.Sub(mu, g.Const(f.Cfg.PriorMu[:]))
	if err != nil {
		return nil, err
	}
	sq, err := G.Square(e)
	if err != nil {
		return nil, err
	}
	sum, err := G.Sum(sq)
	if err != nil {
		return nil, err
	}
	return G.Mul(g.Scalar(f.Cfg.Prior), sum)
}
