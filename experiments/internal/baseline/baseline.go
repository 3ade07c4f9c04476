package baseline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"

	"github.com/wheelgrad/wheelgrad/ad"
	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/opt"
)

// Net is Luo et al.'s purely data-driven comparison (§VII-B): a 3-32-4
// network from the pose change over one control segment to the command
// that produced it, trained on the identification logs; outputs are
// normalised to [−1, 1] by the wheel-speed limit during training and rescaled
// for use. The paper says "the difference in generalized position values";
// we express it in the robot frame at the start of the segment, which can
// only help the network (the world-frame difference depends on where the
// robot points).
type Net struct {
	W1   [][]float64 // [32][3]
	B1   []float64   // [32]
	W2   [][]float64 // [4][32]
	B2   []float64   // [4]
	Mean [3]float64  // input standardisation
	Std  [3]float64
	Wmax float64
	Loss float64 // final training loss (mean squared normalised error)
	N    int     // training pairs
}

const hidden = 32

// Samples extracts training pairs from logs: for every stride-th
// camera row i whose row i+lag also has a camera pose and the same command
// throughout, the pose change (robot frame at row i) and the command.
func Samples(runs []mecanum.Run, lag, stride int) (in [][3]float64, out [][4]float64) {
	stride = max(stride, 1)
	for _, r := range runs {
		if r.X == nil {
			continue
		}
		for i := 0; i+lag < r.Len(); i += stride {
			j := i + lag
			if math.IsNaN(r.X[i]) || math.IsNaN(r.X[j]) || math.IsNaN(r.Theta[i]) || math.IsNaN(r.Theta[j]) || r.W[i] != r.W[j-1] {
				continue
			}
			c, s := math.Cos(r.Theta[i]), math.Sin(r.Theta[i])
			dx, dy := r.X[j]-r.X[i], r.Y[j]-r.Y[i]
			in = append(in, [3]float64{c*dx + s*dy, -s*dx + c*dy, r.Theta[j] - r.Theta[i]})
			out = append(out, r.W[i])
		}
	}
	return in, out
}

// Train fits the network by L-BFGS on the mean squared error of the
// normalised outputs (plus a small weight decay), from seeded random weights.
func Train(in [][3]float64, out [][4]float64, wmax float64, seed uint64) (*Net, error) {
	n := len(in)
	if n < 10 || len(out) != n {
		return nil, fmt.Errorf("baseline: %d training pairs for the data-driven baseline (need ≥ 10)", n)
	}
	if !(wmax > 0) {
		return nil, errors.New("baseline: wmax must be positive")
	}
	b := &Net{Wmax: wmax, N: n}
	for k := range 3 {
		var m, v float64
		for _, x := range in {
			m += x[k]
		}
		m /= float64(n)
		for _, x := range in {
			v += (x[k] - m) * (x[k] - m)
		}
		b.Mean[k], b.Std[k] = m, math.Max(math.Sqrt(v/float64(n)), 1e-9)
	}
	X := make([]float64, 0, 3*n)
	Y := make([]float64, 0, 4*n)
	for i := range n {
		for k := range 3 {
			X = append(X, (in[i][k]-b.Mean[k])/b.Std[k])
		}
		for j := range 4 {
			Y = append(Y, out[i][j]/wmax)
		}
	}
	prog, err := program(X, Y, n)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 32))
	x0 := make([]float64, prog.Dim())
	for i := range x0 {
		x0[i] = 0.5 * r.NormFloat64()
	}
	res, err := opt.LBFGSB{}.Minimize(opt.Problem{Objective: prog.Eval}, x0, opt.Settings{MaxIterations: 600, GradientTol: 1e-7})
	if err != nil {
		return nil, err
	}
	b.unpack(res.X)
	// Report the data term alone.
	var mse float64
	for i := range n {
		c := b.predictNormalised(in[i])
		for j := range 4 {
			d := c[j] - out[i][j]/wmax
			mse += d * d
		}
	}
	b.Loss = mse / float64(4*n)
	return b, nil
}

const decay = 1e-4

// program is the training loss: mean squared error of the
// normalised outputs plus weight decay, over standardised inputs X [n,3] and
// targets Y [n,4].
func program(X, Y []float64, n int) (*ad.Program, error) {
	return ad.Compile([]ad.Param{
		{Name: "W1", Shape: []int{3, hidden}}, {Name: "b1", Shape: []int{hidden}},
		{Name: "W2", Shape: []int{hidden, 4}}, {Name: "b2", Shape: []int{4}},
	}, func(g *ad.Graph, p []*G.Node) (*G.Node, error) {
		x := g.Const(X, n, 3)
		y := g.Const(Y, n, 4)
		var eb errBuilder
		h := eb.do(G.Tanh(eb.do(G.BroadcastAdd(eb.do(G.Mul(x, p[0])), p[1], nil, []byte{0}))))
		o := eb.do(G.BroadcastAdd(eb.do(G.Mul(h, p[2])), p[3], nil, []byte{0}))
		mse := eb.do(G.Mul(eb.do(G.Sum(eb.do(G.Square(eb.do(G.Sub(o, y)))))), g.Scalar(1/float64(4*n))))
		reg := eb.do(G.Add(eb.do(G.Sum(eb.do(G.Square(p[0])))), eb.do(G.Sum(eb.do(G.Square(p[2]))))))
		return eb.do(G.Add(mse, eb.do(G.Mul(reg, g.Scalar(decay))))), eb.err
	})
}

// unpack reads the flat parameter vector (W1 [3,32], b1, W2 [32,4], b2, row-major).
func (b *Net) unpack(x []float64) {
	at := func(i int) float64 { return x[i] }
	off := 0
	b.W1 = make([][]float64, hidden)
	for h := range hidden {
		b.W1[h] = []float64{at(0*hidden + h), at(1*hidden + h), at(2*hidden + h)}
	}
	off = 3 * hidden
	b.B1 = append([]float64(nil), x[off:off+hidden]...)
	off += hidden
	b.W2 = make([][]float64, 4)
	for j := range 4 {
		b.W2[j] = make([]float64, hidden)
		for h := range hidden {
			b.W2[j][h] = x[off+h*4+j]
		}
	}
	off += 4 * hidden
	b.B2 = append([]float64(nil), x[off:off+4]...)
}

func (b *Net) predictNormalised(d [3]float64) [4]float64 {
	var z [3]float64
	for k := range 3 {
		z[k] = (d[k] - b.Mean[k]) / b.Std[k]
	}
	var o [4]float64
	h := make([]float64, hidden)
	for i := range h {
		a := b.B1[i]
		for k := range 3 {
			a += b.W1[i][k] * z[k]
		}
		h[i] = math.Tanh(a)
	}
	for j := range o {
		a := b.B2[j]
		for i := range h {
			a += b.W2[j][i] * h[i]
		}
		o[j] = a
	}
	return o
}

// Command returns the network's command for a pose change (robot frame),
// rescaled and clipped to ±Wmax.
func (b *Net) Command(dx, dy, dth float64) [4]float64 {
	o := b.predictNormalised([3]float64{dx, dy, dth})
	for j := range o {
		o[j] = math.Max(-b.Wmax, math.Min(b.Wmax, o[j]*b.Wmax))
	}
	return o
}

// Controls drives the plan's reference with the network, waypoint to
// waypoint (the pose change between consecutive segment boundaries of the
// reference, in the frame of the desired heading), as the paper did.
func (b *Net) Controls(p *control.Plan) [][4]float64 {
	ref, _ := p.SegmentReference()
	c := make([][4]float64, p.K)
	for i := range c {
		th := ref.Theta[i]
		x0, y0 := ref.X[i], ref.Y[i]
		if i == 0 {
			th, x0, y0 = p.Start.Theta, p.Start.X, p.Start.Y
		}
		dx, dy := ref.X[i+1]-x0, ref.Y[i+1]-y0
		cs, sn := math.Cos(th), math.Sin(th)
		c[i] = b.Command(cs*dx+sn*dy, -sn*dx+cs*dy, ref.Theta[i+1]-th)
	}
	return c
}

// errBuilder threads the first error through a chain of gorgonia calls.
type errBuilder struct{ err error }

func (b *errBuilder) do(n *G.Node, err error) *G.Node {
	if b.err == nil && err != nil {
		b.err = err
	}
	if b.err != nil {
		return nil
	}
	return n
}
