// Command real-logs runs the whole "Bring your own robot" path (README) on a
// real-like recording set of a low-cost Mecanum robot (issue 10): raw PWM
// commands at ~244 Hz in the robot's own channel order and signs, a separate
// 60-fps camera file with its own clock, timestamp jitter and headings in
// degrees, a motor dead time and spin-up the model does not have, and
// friction that depends on the command (mecanum.TrueMu, not the network's
// form). Eight training commands and three unseen ones, each driven twice.
//
// It reads every recording through dataset.ReadLog (command map, -poses,
// degrees), estimates each camera offset from the motion onset, identifies
// one constant μ jointly over the first repeats of the training commands,
// trains the 4-16-4 friction network jointly over the same runs, and reports
// the prediction errors on the repeats (against the run-to-run spread) and
// on the unseen commands. The recordings (cmd-NAME.csv, cam-NAME.csv) are
// written into -out DIR (default ./out/real-logs) for the README's
// walk-through.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// Recording is one generated recording on disk.
type Recording struct {
	Name    string
	Command [4]float64
	Repeat  int
	Train   bool
	Cmd     string
	Cam     string
	Shift   float64 // true camera clock shift
}

// Generate writes the recording set into dir.
func Generate(dir string, seed uint64) ([]Recording, error) {
	p := mecanum.DefaultParams()
	var recs []Recording
	add := func(ws [][4]float64, train bool, prefix string) error {
		for i, w := range ws {
			for rep := range 2 {
				name := fmt.Sprintf("%s%d-%c", prefix, i+1, 'a'+rep)
				r := mecanum.SynthesizeRealLike(p, mecanum.RealLikeRecording(w, rep, seed+uint64(100*i)+uint64(len(prefix))))
				ch, c, mh, m := r.Columns()
				rec := Recording{Name: name, Command: w, Repeat: rep, Train: train,
					Cmd: filepath.Join(dir, "cmd-"+name+".csv"), Cam: filepath.Join(dir, "cam-"+name+".csv"), Shift: r.Shift}
				for _, f := range []struct {
					path string
					head []string
					cols [][]float64
				}{{rec.Cmd, ch, c}, {rec.Cam, mh, m}} {
					err := stage.WriteFileAtomic(f.path, func(w io.Writer) error { return dataset.WriteCSV(w, f.head, f.cols) })
					if err != nil {
						return err
					}
				}
				recs = append(recs, rec)
			}
		}
		return nil
	}
	if err := add(mecanum.RealLikeTrain, true, "train"); err != nil {
		return nil, err
	}
	if err := add(mecanum.RealLikeUnseen, false, "new"); err != nil {
		return nil, err
	}
	return recs, nil
}

// Wiring is the command map of the generated robot (what `wheelgrad
// inspect` finds): ω = 0.1·(p3, −p4, −p2, p1).
var Wiring = &dataset.CommandMap{Columns: []string{"p3", "p4", "p2", "p1"}, Scale: []float64{0.1, -0.1, -0.1, 0.1}}

// Load reads one recording as a run, with the camera offset estimated from
// the motion onset.
func Load(rec Recording, p mecanum.Params) (mecanum.Run, mecanum.Onset, error) {
	o := dataset.LogOptions{Commands: mecanum.Commands, Angles: []string{"theta"}, Map: Wiring, Sensors: rec.Cam}
	c, s, err := dataset.ReadStreams(rec.Cmd, mecanum.LogSpec(true), o)
	if err != nil {
		return mecanum.Run{}, mecanum.Onset{}, err
	}
	var w [][4]float64
	for i := range c.Len() {
		w = append(w, [4]float64{c.Col("w1")[i], c.Col("w2")[i], c.Col("w3")[i], c.Col("w4")[i]})
	}
	on, err := mecanum.EstimateOnset(p, c.Col("t"), w, s.Col("t"), s.Col("x"), s.Col("y"), s.Col("theta"))
	if err != nil {
		return mecanum.Run{}, on, fmt.Errorf("%s: %w", rec.Cam, err)
	}
	o.Offset = on.Offset
	t, err := dataset.ReadLog(rec.Cmd, mecanum.LogSpec(true), o)
	if err != nil {
		return mecanum.Run{}, on, err
	}
	runs, err := mecanum.RunsFromTable(t)
	if err != nil {
		return mecanum.Run{}, on, err
	}
	runs[0].ID = rec.Name
	return runs[0], on, nil
}

// trackError is the RMS distance (m) between run b's camera positions and
// a trajectory (px, py) over b's rows.
func trackError(b *mecanum.Run, px, py []float64) float64 {
	var ss float64
	cam := b.Camera()
	for _, k := range cam {
		ss += (px[k]-b.X[k])*(px[k]-b.X[k]) + (py[k]-b.Y[k])*(py[k]-b.Y[k])
	}
	return math.Sqrt(ss / float64(len(cam)))
}

// spread is the run-to-run spread of two repeats: repeat a's camera track,
// moved to start at b's first camera pose (rigidly, in the frame of its own
// first pose), and compared with b's at b's camera times (a interpolated).
func spread(a, b *mecanum.Run) float64 {
	ca, cb := a.Camera(), b.Camera()
	ka, kb := ca[0], cb[0]
	da, db := a.Theta[ka], b.Theta[kb]
	px, py := make([]float64, b.Len()), make([]float64, b.Len())
	j := 0
	for _, k := range cb {
		t := b.T[k] - b.T[kb] + a.T[ka]
		for j+1 < len(ca)-1 && a.T[ca[j+1]] <= t {
			j++
		}
		i0, i1 := ca[j], ca[j+1]
		f := (t - a.T[i0]) / (a.T[i1] - a.T[i0])
		f = math.Max(0, math.Min(1, f))
		x := a.X[i0] + f*(a.X[i1]-a.X[i0]) - a.X[ka]
		y := a.Y[i0] + f*(a.Y[i1]-a.Y[i0]) - a.Y[ka]
		s, c := math.Sincos(db - da)
		px[k], py[k] = b.X[kb]+c*x-s*y, b.Y[kb]+s*x+c*y
	}
	return trackError(b, px, py)
}

// Result holds the experiment's numbers.
type Result struct {
	OffsetErr         []float64 // estimated − (true shift − dead time − spin-up), s
	ConstMu           [4]float64
	ConstIter         int
	ConstWall         time.Duration
	Spread            []float64 // per training command
	RepeatConst       []float64 // prediction error of the repeats, constant μ
	RepeatNet         []float64 // … network
	UnseenConst       []float64 // per unseen run
	UnseenNet         []float64
	Net               *mecanum.NetReport
	RatioConst, Ratio float64 // mean prediction error / mean spread on the repeats
}

// Run generates the set in dir and runs the comparison.
func Run(dir string, seed uint64, w io.Writer) (*Result, error) {
	recs, err := Generate(dir, seed)
	if err != nil {
		return nil, err
	}
	p := mecanum.DefaultParams()
	res := &Result{}
	runs := map[string]*mecanum.Run{}
	var train []mecanum.Run
	for _, rec := range recs {
		r, on, err := Load(rec, p)
		if err != nil {
			return nil, err
		}
		runs[rec.Name] = &r
		fmt.Fprintf(w, "%-9s offset %+.3f s (camera clock shift %+.3f s; motion onset at camera t = %.3f s)\n", rec.Name, on.Offset, rec.Shift, on.MotionOnset)
		if rec.Train && rec.Repeat == 0 {
			train = append(train, r)
		}
	}
	// one constant μ, jointly
	f, err := mecanum.NewFit(p, train, mecanum.DefaultConfig())
	if err != nil {
		return nil, err
	}
	id, err := mecanum.Identify(f, mecanum.IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	if err != nil {
		return nil, err
	}
	res.ConstMu, res.ConstIter, res.ConstWall = id.Mu, id.Opt.Iterations, id.Wall
	fmt.Fprintf(w, "\nconstant μ, joint over %d runs: μ = %.3f %.3f %.3f %.3f, %d iterations, %v\n", len(train), id.Mu[0], id.Mu[1], id.Mu[2], id.Mu[3], id.Opt.Iterations, id.Wall.Round(time.Millisecond))
	nr, err := mecanum.TrainNet(p, train, mecanum.NetOptions{Init: id.Mu, Seed: 1, LeaveOneOut: true})
	if err != nil {
		return nil, err
	}
	res.Net = nr
	fmt.Fprintf(w, "friction network, joint over %d runs: decay %g chosen on held-out commands %v (held-out RMS: network %v, constant μ %.4f m), %d iterations in all, %v\n",
		len(train), nr.Decay, nr.HeldOut, fmtList(nr.ValNet), nr.ValConst, nr.Iterations, nr.Wall.Round(time.Millisecond))
	fmt.Fprintf(w, "position RMS over the training runs: network %.4f m, one fit per command %.4f m (network/per-command %.2f), one constant μ %.4f m\n",
		nr.NetRMS, nr.PerCommandRMS, nr.NetRMS/nr.PerCommandRMS, nr.ConstRMS)
	for _, l := range nr.LOCO {
		fmt.Fprintf(w, "leave out %v (%v): network %.4f m, constant μ %.4f m\n", l.Command, l.Runs, l.Net, l.Const)
	}
	pc := p
	pc.Mu = id.Mu[:]
	pn := p
	pn.Mu, pn.Friction = nil, nr.Net
	predict := func(q mecanum.Params, r *mecanum.Run) float64 {
		x, y, _ := mecanum.Simulate(q, r)
		return trackError(r, x, y)
	}
	fmt.Fprintf(w, "\n%-9s %9s %12s %12s\n", "repeat", "spread", "constant μ", "network")
	var ms, mc, mn float64
	for i := range mecanum.RealLikeTrain {
		a, b := runs[fmt.Sprintf("train%d-a", i+1)], runs[fmt.Sprintf("train%d-b", i+1)]
		s, c, n := spread(a, b), predict(pc, b), predict(pn, b)
		res.Spread, res.RepeatConst, res.RepeatNet = append(res.Spread, s), append(res.RepeatConst, c), append(res.RepeatNet, n)
		ms, mc, mn = ms+s, mc+c, mn+n
		fmt.Fprintf(w, "train%d-b %8.1f mm %9.1f mm %9.1f mm\n", i+1, 1e3*s, 1e3*c, 1e3*n)
	}
	res.RatioConst, res.Ratio = mc/ms, mn/ms
	fmt.Fprintf(w, "mean      %8.1f mm %9.1f mm %9.1f mm  (prediction / spread: constant μ %.2f, network %.2f)\n", 1e3*ms/8, 1e3*mc/8, 1e3*mn/8, res.RatioConst, res.Ratio)
	fmt.Fprintf(w, "\n%-9s %12s %12s\n", "unseen", "constant μ", "network")
	var uc, un float64
	for i := range mecanum.RealLikeUnseen {
		for _, rep := range []string{"a", "b"} {
			r := runs[fmt.Sprintf("new%d-%s", i+1, rep)]
			c, n := predict(pc, r), predict(pn, r)
			res.UnseenConst, res.UnseenNet = append(res.UnseenConst, c), append(res.UnseenNet, n)
			uc, un = uc+c, un+n
			fmt.Fprintf(w, "%-9s %9.1f mm %9.1f mm\n", r.ID, 1e3*c, 1e3*n)
		}
	}
	k := float64(len(res.UnseenNet))
	fmt.Fprintf(w, "mean      %9.1f mm %9.1f mm\n", 1e3*uc/k, 1e3*un/k)
	return res, nil
}

func fmtList(v []float64) string {
	s := "["
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.4f", x)
	}
	return s + "]"
}

func main() {
	out := flag.String("out", filepath.Join("out", "real-logs"), "directory for the recordings")
	seed := flag.Uint64("seed", 1, "seed of the recording set")
	flag.Parse()
	dir := *out
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := Run(dir, *seed, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "real-logs:", err)
		os.Exit(1)
	}
}
