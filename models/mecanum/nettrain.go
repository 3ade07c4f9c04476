package mecanum

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/graph"
	"github.com/wheelgrad/wheelgrad/opt"
)

// netParams is the layout of a FrictionNet as optimisation variables.
func netParams(h int) []ad.Param {
	return []ad.Param{{Name: "W1", Shape: []int{h, 4}}, {Name: "b1", Shape: []int{h}}, {Name: "W2", Shape: []int{4, h}}, {Name: "b2", Shape: []int{4}}}
}

func (n *FrictionNet) flatten() []float64 {
	var x []float64
	for _, r := range n.W1 {
		x = append(x, r...)
	}
	x = append(x, n.B1...)
	for _, r := range n.W2 {
		x = append(x, r...)
	}
	return append(x, n.B2...)
}

func (n *FrictionNet) unflatten(x []float64) {
	h := len(n.B1)
	k := 0
	for i := range h {
		copy(n.W1[i], x[k:k+4])
		k += 4
	}
	copy(n.B1, x[k:k+h])
	k += h
	for o := range 4 {
		copy(n.W2[o], x[k:k+h])
		k += h
	}
	copy(n.B2, x[k:k+4])
}

func newNet(h int, scale, muMax float64, seed uint64) *FrictionNet {
	rng := rand.New(rand.NewPCG(seed, 16))
	n := &FrictionNet{Scale: scale, MuMax: muMax, B1: make([]float64, h), B2: make([]float64, 4)}
	for range h {
		r := make([]float64, 4)
		for j := range r {
			r[j] = rng.NormFloat64() / 2
		}
		n.W1 = append(n.W1, r)
	}
	for range 4 {
		r := make([]float64, h)
		for j := range r {
			r[j] = rng.NormFloat64() / 4
		}
		n.W2 = append(n.W2, r)
	}
	return n
}

// netLoss builds the mean squared error of the network's μ against the
// targets over N samples, plus decay·|w|²/2 (the few trajectories of the
// paper — 8 — leave a 148-weight network underdetermined). The network
// itself is the graph of FrictionNet.Predict, one [N, ·] matrix per layer.
func netLoss(g *ad.Graph, p []*G.Node, in, target []float64, n, h int, scale, muMax, decay float64) (loss *G.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			loss, err = nil, fmt.Errorf("mecanum: friction network graph: %v", r)
		}
	}()
	must := G.Must
	xs := make([]float64, len(in))
	for i, v := range in {
		xs[i] = v / scale
	}
	X := g.Const(xs, n, 4)
	ones := g.Const(onesN(n), n, 1)
	A := must(G.Add(must(G.Mul(X, must(G.Transpose(p[0])))), must(G.Mul(ones, must(G.Reshape(p[1], tensor.Shape{1, h}))))))
	H := must(G.Tanh(A))
	Z := must(G.Add(must(G.Mul(H, must(G.Transpose(p[2])))), must(G.Mul(ones, must(G.Reshape(p[3], tensor.Shape{1, 4}))))))
	mu, err := graph.Bounded(Z, 0, muMax)
	if err != nil {
		return nil, err
	}
	g.Watch("mu", mu)
	e := must(G.Sub(mu, g.Const(target, n, 4)))
	loss = must(G.Mul(g.Scalar(1/float64(n)), must(G.Sum(must(G.Square(e))))))
	if decay > 0 {
		var reg *G.Node
		for _, w := range []*G.Node{p[0], p[2]} {
			s := must(G.Sum(must(G.Square(must(G.Reshape(w, tensor.Shape{w.Shape().TotalSize()}))))))
			if reg == nil {
				reg = s
			} else {
				reg = must(G.Add(reg, s))
			}
		}
		loss = must(G.Add(loss, must(G.Mul(g.Scalar(decay/2), reg))))
	}
	return loss, nil
}

// TrainFrictionNet fits the 4-16-4 network of §VI (end) to per-trajectory
// friction estimates: cmds[i] is trajectory i's constant command, mus[i] its
// identified μ. The graph is compiled once and L-BFGS-B minimises the mean
// squared error with a small weight decay from a seeded start.
func TrainFrictionNet(cmds, mus [][4]float64, decay float64, seed uint64) (*FrictionNet, *opt.Result, error) {
	n := len(cmds)
	if n == 0 || len(mus) != n {
		return nil, nil, fmt.Errorf("mecanum: %d commands and %d μ estimates", n, len(mus))
	}
	var in, tg []float64
	scale := 0.0
	for i := range n {
		in = append(in, cmds[i][:]...)
		tg = append(tg, mus[i][:]...)
		for _, w := range cmds[i] {
			scale = max(scale, abs(w))
		}
	}
	if scale == 0 {
		scale = 1
	}
	const muMax = 2
	net := newNet(NetHidden, scale, muMax, seed)
	prog, err := ad.Compile(netParams(NetHidden), func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		return netLoss(g, p, in, tg, n, NetHidden, scale, muMax, decay)
	})
	if err != nil {
		return nil, nil, err
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval}, net.flatten(), opt.Settings{MaxIterations: 2000, GradientTol: 1e-9})
	if err != nil {
		return nil, nil, err
	}
	net.unflatten(res.X)
	return net, res, nil
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// NetOptions configure TrainNet.
type NetOptions struct {
	Hidden int       // hidden units; 0: NetHidden (16)
	Decays []float64 // candidate weight decays; nil: 0.1, 1, 10
	Init   [4]float64
	Seed   uint64
	// MaxIterations bounds each L-BFGS-B stage of the held-out check; 0:
	// 1500. The final training on all runs gets four times as many.
	MaxIterations int
	// LeaveOneOut adds the leave-one-command-out report (NetReport.LOCO):
	// for every command, the network trained without its runs (at the
	// chosen decay) and one constant μ fitted without them predict them.
	LeaveOneOut bool
	// Progress, when not nil, is told each stage's name and iterations.
	Progress func(stage string, it opt.Iteration)
	// OnIteration, when not nil, is told each stage's name, iteration
	// number and loss (Progress for a caller that names no opt type).
	OnIteration func(stage string, iter int, loss float64)
}

// NetLOCO is one command left out: its runs' position RMS (m, their start
// poses fitted) under the network trained without them and under one
// constant μ fitted without them.
type NetLOCO struct {
	Command    [4]float64
	Runs       []string
	Net, Const float64
}

// NetReport is the outcome of TrainNet.
type NetReport struct {
	*NetResult
	Decay float64 // chosen
	// Held-out check: the runs of every held-out command, fitted (start
	// poses only) by the network trained without them, per candidate decay,
	// and by one constant μ trained the same way. Position RMS (m).
	HeldOut      []string // ids of the held-out runs
	ValNet       []float64
	ValConst     float64
	Iterations   int  // all stages
	Overfits     bool // no decay beat the constant μ on the held-out runs
	ConstMu      [4]float64
	ConstTrainMu [4]float64
	// The per-command fits the network starts from: one constant μ per
	// command (Commands, in order of appearance), fitted over that
	// command's runs alone (IdentifySquared). PerCommandRMS is their
	// position RMS over the runs (RMS of the runs' RMS), NetRMS the trained
	// network's, ConstRMS one constant μ's over all runs: the network is at
	// its optimum when NetRMS is near PerCommandRMS (issue 25.5: within
	// 1.2×), which it can represent.
	Commands      [][4]float64
	PerCommandMu  [][4]float64
	PerCommandRMS float64
	NetRMS        float64
	ConstRMS      float64
	// LOCO is the leave-one-command-out report (NetOptions.LeaveOneOut),
	// one entry per command; nil without it or with one command.
	LOCO []NetLOCO
}

// commandGroups returns the distinct command keys of runs (commandKey, in
// order of appearance) and each run's group.
func commandGroups(runs []Run) (keys [][4]float64, group []int) {
	group = make([]int, len(runs))
	for i := range runs {
		k := commandKey(&runs[i])
		g := -1
		for j, kk := range keys {
			if kk == k {
				g = j
			}
		}
		if g < 0 {
			keys, g = append(keys, k), len(keys)
		}
		group[i] = g
	}
	return keys, group
}

// perCommand is one constant μ per command group, each fitted over its
// runs alone (the per-run fits a network is measured against), with every
// run's fitted start pose and position RMS.
type perCommand struct {
	mu    [][4]float64 // per group
	pose  [][3]float64 // per run
	rms   []float64    // per run
	iters int
}

func fitPerCommand(p Params, runs []Run, keys [][4]float64, group []int, init [4]float64, set func(string) opt.Settings) (*perCommand, error) {
	pc := &perCommand{mu: make([][4]float64, len(keys)), pose: make([][3]float64, len(runs)), rms: make([]float64, len(runs))}
	for g := range keys {
		var rs []Run
		var idx []int
		for i := range runs {
			if group[i] == g {
				rs, idx = append(rs, runs[i]), append(idx, i)
			}
		}
		mu, r, f, err := IdentifySquared(p, rs, init, false, set(fmt.Sprintf("per-command fit %d/%d", g+1, len(keys))))
		if err != nil {
			return nil, err
		}
		pc.iters += r.Opt.Iterations
		pc.mu[g] = mu
		for k, i := range idx {
			pc.pose[i] = f.StartPose(r.X, k)
			pc.rms[i] = f.RMS(r.X, k)
		}
	}
	return pc, nil
}

// startFrom is a start for f (over runs[idx]): the network fitted to the
// per-command μ of the groups that f's runs belong to (TrainFrictionNet,
// the paper's second stage, its input scale carried over to f's), and
// each run's start pose from its per-command fit.
func (f *NetFit) startFrom(pc *perCommand, keys [][4]float64, group, idx []int, seed uint64) []float64 {
	var cmds, mus [][4]float64
	seen := map[int]bool{}
	for _, i := range idx {
		if g := group[i]; !seen[g] {
			seen[g] = true
			cmds, mus = append(cmds, keys[g]), append(mus, pc.mu[g])
		}
	}
	x := f.X0(pc.mu[group[idx[0]]], seed)
	if net, _, err := TrainFrictionNet(cmds, mus, 1e-3, seed); err == nil && net.Validate() == nil && len(net.B1) == f.H {
		for i := range net.W1 {
			for j := range net.W1[i] {
				net.W1[i][j] *= f.Scale / net.Scale
			}
		}
		copy(x, net.flatten())
	}
	nw, B := f.NetWeights(), len(f.runs)
	for k, i := range idx {
		x[nw+k], x[nw+B+k], x[nw+2*B+k] = pc.pose[i][0], pc.pose[i][1], pc.pose[i][2]
	}
	return x
}

// constNet is a network vector of h hidden units whose μ is mu everywhere.
func constNet(h int, muMax float64, mu [4]float64) []float64 {
	x := make([]float64, netWeights(h))
	for o := range 4 {
		m := math.Min(math.Max(mu[o], 1e-6), muMax-1e-6) / muMax
		x[9*h+o] = math.Log(m / (1 - m))
	}
	return x
}

func rmsOf(v []float64) float64 {
	var s float64
	for _, e := range v {
		s += e * e
	}
	return math.Sqrt(s / float64(len(v)))
}

// TrainNet trains the friction network jointly over runs (issue 25.5):
//
//  1. one constant μ per command, fitted over that command's runs alone by
//     least squares (IdentifySquared): the per-command fits;
//  2. the network fitted to their (command, μ) pairs (TrainFrictionNet),
//     with the start poses of the per-command fits, as the start of
//  3. the joint training through the trajectory loss (NetFit, L-BFGS-B on
//     NetModel's and MuModel's generated reverse passes), with the weight
//     decay chosen on held-out commands: every fourth distinct command
//     (with all its repeats) is left out, the network is trained on the
//     rest for each candidate decay, and the largest decay whose network
//     predicts the held-out runs (their start poses fitted, the network
//     fixed) within DecayMargin of the best is used to train on all runs. The same check is made for one
//     constant μ, and Overfits says when no network beat it. With fewer
//     than three distinct commands there is nothing to hold out and the
//     largest decay is used;
//  4. with LeaveOneOut, every command left out in turn (LOCO).
func TrainNet(p Params, runs []Run, o NetOptions) (*NetReport, error) {
	start := time.Now()
	h := o.Hidden
	if h == 0 {
		h = NetHidden
	}
	decays := o.Decays
	if decays == nil {
		decays = []float64{0.1, 1, 10}
	}
	rep := &NetReport{}
	maxIt := o.MaxIterations
	if maxIt == 0 {
		maxIt = 1500
	}
	progress := func(stage string) opt.Settings {
		return opt.Settings{MaxIterations: maxIt, Callback: func(it opt.Iteration) bool {
			if o.Progress != nil {
				o.Progress(stage, it)
			}
			if o.OnIteration != nil {
				o.OnIteration(stage, it.Iter, it.F)
			}
			return true
		}}
	}
	lsq := func(stage string) opt.Settings {
		s := progress(stage)
		s.MaxIterations = 0
		return s
	}
	keys, group := commandGroups(runs)
	pc, err := fitPerCommand(p, runs, keys, group, o.Init, lsq)
	if err != nil {
		return nil, err
	}
	rep.Iterations += pc.iters
	rep.Commands, rep.PerCommandMu, rep.PerCommandRMS = keys, pc.mu, rmsOf(pc.rms)
	// train fits the network over runs[idx] with decay d from the
	// per-command fits; it returns the fit and its result.
	train := func(idx []int, d float64, set opt.Settings) (*NetFit, *NetResult, error) {
		rs := make([]Run, len(idx))
		for k, i := range idx {
			rs[k] = runs[i]
		}
		f, err := NewNetFit(p, rs, h, d)
		if err != nil {
			return nil, nil, err
		}
		r, err := f.Train(f.startFrom(pc, keys, group, idx, o.Seed), nil, set)
		if err != nil {
			return nil, nil, err
		}
		rep.Iterations += r.Opt.Iterations
		return f, r, nil
	}
	// constant fits one μ over runs[idx] and returns it as a network
	constant := func(idx []int, stage string) ([4]float64, error) {
		rs := make([]Run, len(idx))
		for k, i := range idx {
			rs[k] = runs[i]
		}
		mu, r, _, err := IdentifySquared(p, rs, o.Init, false, lsq(stage))
		if err != nil {
			return mu, err
		}
		rep.Iterations += r.Opt.Iterations
		return mu, nil
	}
	// heldOut is the position RMS of runs[idx] under the network xnet of
	// input scale scale, their start poses fitted
	heldOut := func(idx []int, scale float64, xnet []float64) (float64, error) {
		val := make([]Run, len(idx))
		for k, i := range idx {
			val[k] = runs[i]
		}
		return validateScaled(p, val, h, scale, xnet, o, rep, progress("held-out start poses"))
	}
	split := func(out func(g int) bool) (in, held []int) {
		for i := range runs {
			if out(group[i]) {
				held = append(held, i)
			} else {
				in = append(in, i)
			}
		}
		return in, held
	}
	chosen := decays[len(decays)-1]
	if len(keys) >= 3 {
		tr, val := split(func(g int) bool { return g%4 == 3 || (len(keys) < 4 && g == len(keys)-1) })
		for _, i := range val {
			rep.HeldOut = append(rep.HeldOut, runs[i].ID)
		}
		mu, err := constant(tr, "constant μ, training commands")
		if err != nil {
			return nil, err
		}
		rep.ConstTrainMu = mu
		if rep.ValConst, err = heldOut(val, 1, constNet(h, 2, mu)); err != nil {
			return nil, err
		}
		for _, d := range decays {
			tf, r, err := train(tr, d, progress(fmt.Sprintf("network, decay %g", d)))
			if err != nil {
				return nil, err
			}
			v, err := heldOut(val, tf.Scale, r.X[:tf.NetWeights()])
			if err != nil {
				return nil, err
			}
			rep.ValNet = append(rep.ValNet, v)
		}
		var best float64
		chosen, best = chooseDecay(decays, rep.ValNet)
		rep.Overfits = !(best < rep.ValConst)
	}
	rep.Decay = chosen
	all := make([]int, len(runs))
	for i := range all {
		all[i] = i
	}
	mu, err := constant(all, "constant μ, all runs")
	if err != nil {
		return nil, err
	}
	rep.ConstMu = mu
	final := progress("network, all runs")
	final.MaxIterations = 4 * maxIt
	f, r, err := train(all, chosen, final)
	if err != nil {
		return nil, err
	}
	rep.NetResult = r
	per := make([]float64, len(runs))
	for i := range runs {
		per[i] = f.RMS(r.X, i)
	}
	rep.NetRMS = rmsOf(per)
	if cf, cr, _, err := identifySquaredFit(p, runs, o.Init); err == nil {
		for i := range runs {
			per[i] = cf.RMS(cr.X, i)
		}
		rep.ConstRMS = rmsOf(per)
	}
	if o.LeaveOneOut && len(keys) >= 2 {
		for g := range keys {
			tr, val := split(func(k int) bool { return k == g })
			l := NetLOCO{Command: keys[g]}
			for _, i := range val {
				l.Runs = append(l.Runs, runs[i].ID)
			}
			tf, r, err := train(tr, chosen, progress(fmt.Sprintf("leave out command %d/%d: network", g+1, len(keys))))
			if err != nil {
				return nil, err
			}
			if l.Net, err = heldOut(val, tf.Scale, r.X[:tf.NetWeights()]); err != nil {
				return nil, err
			}
			mu, err := constant(tr, fmt.Sprintf("leave out command %d/%d: constant μ", g+1, len(keys)))
			if err != nil {
				return nil, err
			}
			if l.Const, err = heldOut(val, 1, constNet(h, 2, mu)); err != nil {
				return nil, err
			}
			rep.LOCO = append(rep.LOCO, l)
		}
	}
	rep.Wall = time.Since(start)
	return rep, nil
}

// DecayMargin is how much better (relative held-out RMS) a smaller weight
// decay must predict the held-out runs than the largest one within the
// margin for TrainNet to choose it: the held-out RMS of networks that
// differ only by decay are equal but for the training's last bits when
// the runs say nothing the decay could change (a chaotic function of
// them: a 1e-16 change in the per-command μ moved them by ~1e-6 relative
// and flipped the old choice, the smallest RMS, between decays 1 and 10).
// Measured: on the demo-like runs (one constant μ: no decay can help)
// 0.1, 1, 10 gave 4.1715, 4.1678, 4.1678 mm, a spread of 9e-4 relative; on
// experiments/real-logs' recordings, whose friction depends on the
// command, 8.7, 9.4, 13.4 mm, the best 8 % below the next. 1 % lies an
// order of magnitude above the first and well below the second.
const DecayMargin = 0.01

// chooseDecay returns the decay TrainNet uses and the best held-out RMS:
// of decays (any order) with held-out RMS val, the largest whose RMS is
// within DecayMargin of the best (the smallest): the most regularised
// network the held-out runs cannot tell from the best (the
// one-standard-error rule's preference for the simplest of the models
// the data do not separate, Hastie, Tibshirani & Friedman §7.10, with a
// fixed relative margin for the standard error). NaN RMS never win.
func chooseDecay(decays, val []float64) (chosen, best float64) {
	best = math.Inf(1)
	for _, v := range val {
		if v < best {
			best = v
		}
	}
	chosen = math.NaN()
	for i, d := range decays {
		if val[i] <= best*(1+DecayMargin) && !(d <= chosen) {
			chosen = d
		}
	}
	if math.IsNaN(chosen) {
		// every RMS NaN (or infinite): the largest decay
		chosen = slices.Max(decays)
	}
	return chosen, best
}

// identifySquaredFit is IdentifySquared with its fit, for RMS.
func identifySquaredFit(p Params, runs []Run, init [4]float64) (*NetFit, *NetResult, [4]float64, error) {
	mu, r, f, err := IdentifySquared(p, runs, init, false, opt.Settings{})
	return f, r, mu, err
}

// validateScaled fits the start poses of the held-out runs under the
// network xnet (trained with input scale) and returns their position RMS.
func validateScaled(p Params, val []Run, h int, scale float64, xnet []float64, o NetOptions, rep *NetReport, set opt.Settings) (float64, error) {
	vf, err := NewNetFit(p, val, h, 0)
	if err != nil {
		return 0, err
	}
	vf.Scale = scale
	x := vf.X0(o.Init, o.Seed)
	copy(x, xnet)
	free := make([]bool, vf.Dim())
	for i := vf.NetWeights(); i < len(free); i++ {
		free[i] = true
	}
	r, err := vf.Train(x, free, set)
	if err != nil {
		return 0, err
	}
	rep.Iterations += r.Opt.Iterations
	var ss float64
	var n int
	for i := range val {
		e := vf.RMS(r.X, i)
		m := len(vf.runs[i].cam)
		ss += e * e * float64(m)
		n += m
	}
	return math.Sqrt(ss / float64(n)), nil
}

// commandKey is a run's most frequent command, which names its group in
// the held-out split (repeats of one command are held out together).
func commandKey(r *Run) [4]float64 {
	count := map[[4]float64]int{}
	best, bn := [4]float64{}, -1
	for _, w := range r.W {
		count[w]++
		if count[w] > bn {
			best, bn = w, count[w]
		}
	}
	return best
}
