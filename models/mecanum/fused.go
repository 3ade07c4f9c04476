package mecanum

import (
	"fmt"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
	"github.com/wheelgrad/wheelgrad/losses"
)

// camData holds the [2, K] inputs of the spline term at the K counted camera
// samples (row 0 x, row 1 y), refreshed before each run.
type camData struct {
	c, p, t, k []float64 // closest points, query points, tangents, ∂U/∂P
}

// compile builds and compiles the graph of f's loss in about thirty nodes,
// whatever the number of runs and steps:
//
//	s = 1 − K·μ                                            (eq. 3)
//	d = C·s, C[(c,b,t), j] = Δt_bt·ω_s,btj·B_cj            (eqs. 3–4 times Δt; graph.MatVecConst)
//	P = graph.PlanarPath(d, p0)                            (eq. 5: x, y, θ of every step)
//	L = w1·SumDist(P_cam, c*) + w2·SumDist(P_cam, p_gt)    (eqs. 6–8)
//	    (+ w3·SumDist(marker, q_gt), + prior)
//
// P_cam = graph.Take(P, camera rows): the losses see the K camera samples
// only, not every control row under a mask. The fused ops PlanarPath and
// SumDist carry their own adjoints (tested against finite differences in
// package graph); the rest is gorgonia's autodiff. CompilePrimitive is the
// same loss from primitives, kept as the reference the tests compare with.
func (f *Fit) compile(opts ...ad.Option) (*graphFit, error) {
	nb := len(f.segs)
	T := 0
	for _, s := range f.segs {
		T = max(T, s.n)
	}
	N := nb * T
	gf := &graphFit{fit: f, b: nb, t: T, fused: true, slot: make([][]int, nb)}
	Bm := f.P.BMatrix()
	C := make([]float64, 3*N*4)
	var rows []int // flat [B, T] index of each counted camera sample
	var gxy, qxy [2][]float64
	for si, s := range f.segs {
		for i := 0; i < s.n; i++ {
			for c := range 3 {
				for j := range 4 {
					C[(c*N+si*T+i)*4+j] = s.dt[i] * s.w[i][j] * Bm[c][j]
				}
			}
		}
		gf.slot[si] = make([]int, len(s.cam))
		for k, i := range s.cam {
			gf.slot[si][k] = -1
			if i == 0 && f.Cfg.Pose == PoseFixed {
				continue
			}
			gf.slot[si][k] = len(rows)
			rows = append(rows, si*T+i)
			gxy[0], gxy[1] = append(gxy[0], s.gx[k]), append(gxy[1], s.gy[k])
			qxy[0], qxy[1] = append(qxy[0], s.qx[k]), append(qxy[1], s.qy[k])
		}
	}
	K := len(rows)
	if K == 0 {
		return nil, fmt.Errorf("mecanum: no camera sample enters the loss")
	}
	gf.cam = &camData{make([]float64, 2*K), make([]float64, 2*K), make([]float64, 2*K), make([]float64, 2*K)}
	// flat indices into P [3, B, T] (the camera rows of x, y and θ), then
	// into that [3, K] (positions; θ twice) and into a [K] vector (twice)
	idxCam := make([]int, 3*K)
	idxXY, idxTh, dup := make([]int, 2*K), make([]int, 2*K), make([]int, 2*K)
	for k, m := range rows {
		idxCam[k], idxCam[K+k], idxCam[2*K+k] = m, N+m, 2*N+m
		idxXY[k], idxXY[K+k] = k, K+k
		idxTh[k], idxTh[K+k] = 2*K+k, 2*K+k
		dup[k], dup[K+k] = k, k
	}
	params := []ad.Param{{Name: "mu", Shape: []int{4}}}
	free := f.Cfg.Pose == PoseFree
	if free {
		// x = (μ, x0 of every run, y0 of every run, θ0 of every run) is
		// exactly a [3, B] start-pose block after μ
		params = append(params, ad.Param{Name: "pose0", Shape: []int{3, nb}})
	}
	build := func(g *ad.Graph, p []*G.Node) (loss *G.Node, err error) {
		defer func() {
			if r := recover(); r != nil {
				loss, err = nil, fmt.Errorf("mecanum: building the graph: %v", r)
			}
		}()
		must := G.Must
		mu := p[0]
		var p0 *G.Node
		if free {
			p0 = p[1]
		} else {
			v := make([]float64, 3*nb)
			for si, s := range f.segs {
				for c := range 3 {
					v[c*nb+si] = s.pose0[c]
				}
			}
			p0 = g.Const(v, 3, nb)
		}
		s := must(G.Sub(g.Scalar(1), must(G.Mul(g.Scalar(f.P.K()), mu))))
		d := must(G.Reshape(must(graph.MatVecConst(C, 3*N, 4, s)), []int{3, nb, T}))
		P, err := graph.PlanarPath(d, p0)
		if err != nil {
			return nil, err
		}
		g.Watch("pose", P)
		in := func(name string, v []float64) *G.Node {
			n, err := g.Input(name, v, 2, K)
			if err != nil {
				panic(err)
			}
			return n
		}
		// one Take from the [3, B, T] poses: its adjoint, a Put into a
		// [3, B, T] zero array, is the only backward node of that size
		Pcam := must(graph.Take(P, idxCam, 3, K))
		take := func(idx []int) *G.Node { return must(graph.Take(Pcam, idx, 2, K)) }
		Pxy := take(idxXY)
		lgt := must(graph.SumDistTo(Pxy, g.Const(append(gxy[0], gxy[1]...), 2, K)))
		cd := gf.cam
		c := in("c", cd.c)
		if f.Cfg.Mode == losses.ImplicitClosest {
			// c(P) = c* + c′·(∂U/∂P)·(P − P*): value c* at P*, derivative the
			// implicit one (see losses.SplineTerm)
			du := must(G.Sum(must(G.HadamardProd(in("k", cd.k), must(G.Sub(Pxy, in("p", cd.p))))), 0))
			c = must(G.Add(c, must(G.HadamardProd(in("t", cd.t), must(graph.Take(du, dup, 2, K))))))
		}
		var lsp *G.Node
		if f.Cfg.Mode == losses.ImplicitClosest {
			lsp = must(graph.SumDist(Pxy, c))
		} else {
			lsp = must(graph.SumDistTo(Pxy, c))
		}
		L, err := losses.Weighted(f.Cfg.Weights, lsp, lgt)
		if err != nil {
			return nil, err
		}
		if f.Cfg.Heading != 0 {
			// marker q = (x, y) + ℓ·(−sin θ, cos θ), rows x and y at once
			th := take(idxTh)
			a, b := make([]float64, 2*K), make([]float64, 2*K)
			for k := range K {
				a[k], b[K+k] = -f.ell, f.ell
			}
			Q := must(G.Add(Pxy, must(G.Add(must(G.HadamardProd(g.Const(a, 2, K), must(G.Sin(th)))), must(G.HadamardProd(g.Const(b, 2, K), must(G.Cos(th))))))))
			lh := must(graph.SumDistTo(Q, g.Const(append(qxy[0], qxy[1]...), 2, K)))
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
	return gf, nil
}

// refreshFused runs the native closest-point search at the predicted camera
// positions under x and loads the spline term's inputs.
func (gf *graphFit) refreshFused(x []float64) error {
	f := gf.fit
	cd := gf.cam
	K := len(cd.c) / 2
	implicit := f.Cfg.Mode == losses.ImplicitClosest
	for si := range f.segs {
		s := &f.segs[si]
		f.rollCamera(x, si, func(k int, px, py, _ float64) {
			j := gf.slot[si][k]
			if j < 0 {
				return
			}
			c := s.spline.ClosestWithin(px, py, s.tcam[k], f.Cfg.window())
			cd.c[j], cd.c[K+j] = c.X, c.Y
			if implicit {
				cd.p[j], cd.p[K+j] = px, py
				cd.t[j], cd.t[K+j] = c.DX, c.DY
				cd.k[j], cd.k[K+j] = c.DParam(px, py)
			}
		})
	}
	if err := gf.Prog.SetInput("c", cd.c); err != nil {
		return err
	}
	if implicit {
		for _, in := range []struct {
			name string
			v    []float64
		}{{"p", cd.p}, {"t", cd.t}, {"k", cd.k}} {
			if err := gf.Prog.SetInput(in.name, in.v); err != nil {
				return err
			}
		}
	}
	return nil
}
