package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

// Synthetic logs of a given size for every model, from the models' own
// generators (seeded; noise as in their tests), written as FORMATS.md CSV.

// csvFile writes rows of numbers (NaN as an empty cell) and text.
type csvFile struct {
	f *os.File
	w *bufio.Writer
	b []byte
}

func create(path, header string) (*csvFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	c.w.WriteString(header + "\n")
	return c, nil
}

func (c *csvFile) row(tail string, v ...float64) {
	c.b = c.b[:0]
	for i, x := range v {
		if i > 0 {
			c.b = append(c.b, ',')
		}
		if !math.IsNaN(x) {
			c.b = strconv.AppendFloat(c.b, x, 'g', 10, 64)
		}
	}
	if tail != "" {
		c.b = append(c.b, ',')
		c.b = append(c.b, tail...)
	}
	c.b = append(c.b, '\n')
	c.w.Write(c.b)
}

func (c *csvFile) close() error {
	if err := c.w.Flush(); err != nil {
		c.f.Close()
		return err
	}
	return c.f.Close()
}

var mecanumTrue = []float64{0.45, 0.62, 0.38, 0.55}

// mecanumRuns writes n runs of secs seconds each (traj column), 240-Hz
// commands, a 60-Hz camera with 3 mm and 5 mrad noise, a different random
// constant command per run.
func mecanumRuns(path string, n int, secs float64, seed uint64) (rows int, err error) {
	c, err := create(path, "t,w1,w2,w3,w4,x,y,theta,traj")
	if err != nil {
		return 0, err
	}
	p := mecanum.DefaultParams()
	p.Mu = mecanumTrue
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		var cmd [4]float64
		for j := range cmd {
			cmd[j] = 12 * (2*rng.Float64() - 1)
		}
		r, _ := mecanum.Synthesize(p, mecanum.SynthSpec{Command: cmd, Duration: secs, Noise: 0.003, HeadNoise: 0.005, Seed: seed + uint64(i),
			Pose0: [3]float64{rng.NormFloat64(), rng.NormFloat64(), math.Pi * (2*rng.Float64() - 1)}})
		id := fmt.Sprintf("run%d", i)
		for k := range r.T {
			c.row(id, r.T[k], r.W[k][0], r.W[k][1], r.W[k][2], r.W[k][3], r.X[k], r.Y[k], r.Theta[k])
			rows++
		}
	}
	return rows, c.close()
}

// mecanumLong writes one run of n rows at 240 Hz whose command changes to a
// new random one every 2 s (camera as mecanumRuns); with pose false it is a
// controls file for simulate.
func mecanumLong(path string, n int, pose bool, seed uint64) error {
	p := mecanum.DefaultParams()
	p.Mu = mecanumTrue
	rng := rand.New(rand.NewPCG(seed, 2))
	cmds := make([][4]float64, n/480+2)
	for i := range cmds {
		for j := range 4 {
			cmds[i][j] = 10 * (2*rng.Float64() - 1)
		}
	}
	r, _ := mecanum.Synthesize(p, mecanum.SynthSpec{Duration: float64(n-1) / 240, Noise: 0.003, HeadNoise: 0.005, Seed: seed,
		Commands: func(t float64) [4]float64 { return cmds[int(t/2)] }})
	head := "t,w1,w2,w3,w4"
	if pose {
		head += ",x,y,theta"
	}
	c, err := create(path, head)
	if err != nil {
		return err
	}
	for k := range r.T {
		if pose {
			c.row("", r.T[k], r.W[k][0], r.W[k][1], r.W[k][2], r.W[k][3], r.X[k], r.Y[k], r.Theta[k])
		} else {
			c.row("", r.T[k], r.W[k][0], r.W[k][1], r.W[k][2], r.W[k][3])
		}
	}
	return c.close()
}

// diffdriveLog writes a wheelchair training log of n rows at h = 0.06 s
// (encoder noise, castor hang-ups, spikes: the demo's corruptions).
func diffdriveLog(path string, n int, seed uint64) error {
	l, err := diffdrive.Synthesize(diffdrive.Paper(), diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: float64(n) * diffdrive.DefaultH,
		Noise: 0.01, HangupEvery: 60, SpikeRate: 0.002, Seed: seed})
	if err != nil {
		return err
	}
	c, err := create(path, "t,uf,ul,vr,vl")
	if err != nil {
		return err
	}
	for k := range l.T {
		c.row("", l.T[k], l.UF[k], l.UL[k], l.VR[k], l.VL[k])
	}
	return c.close()
}

// skidsteerLog writes n rows at 50 Hz of random-step commands on asphalt
// with 10-Hz visual odometry.
func skidsteerLog(path string, n int, seed uint64) error {
	s, err := skidsteer.SurfaceByName("asphalt")
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	t, vc, wc := make([]float64, n), make([]float64, n), make([]float64, n)
	var v, w float64
	for i := range n {
		if i%100 == 0 {
			v, w = 0.2+0.6*rng.Float64(), 1.2*(2*rng.Float64()-1)
		}
		t[i], vc[i], wc[i] = float64(i)/50, v, w
	}
	l, _ := skidsteer.Generate(s.A[:], t, vc, wc, 5, skidsteer.SurfaceNoise("asphalt"), seed)
	c, err := create(path, "t,vc,wc,x,y,psi")
	if err != nil {
		return err
	}
	for k := range l.T {
		x, y, psi := math.NaN(), math.NaN(), math.NaN()
		if l.HasPose[k] {
			x, y, psi = l.Pose[k].X, l.Pose[k].Y, l.Pose[k].Psi
		}
		c.row("", l.T[k], l.Vc[k], l.Wc[k], x, y, psi)
	}
	return c.close()
}

// tireLog writes n rows at 100 Hz of the Jackal (Dugoff tyres) driving
// turns of changing radius, motion capture on every row.
func tireLog(path string, n int, seed uint64) error {
	p := tire.Jackal()
	mv := tire.Maneuver{Name: "weave", Duration: float64(n-1) / 100, Wheels: func(t, R, W float64) (float64, float64) {
		v := math.Min(t, 0.4)
		w := 0.8 * math.Sin(2*math.Pi*t/7)
		return (v - w*W/2) / R, (v + w*W/2) / R
	}}
	r, err := tire.Synthesize(p, mv, tire.SynthConfig{Seed: seed})
	if err != nil {
		return err
	}
	c, err := create(path, "t,wl,wr,x,y,psi")
	if err != nil {
		return err
	}
	for k := range r.T {
		c.row("", r.T[k], r.WL[k], r.WR[k], r.X[k], r.Y[k], r.Psi[k])
	}
	return c.close()
}
