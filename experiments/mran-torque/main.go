// Command mran-torque reproduces the online learning of the wheel-terrain
// frictional term of Ordonez et al. §3.1 and §4 (Figs. 16–18, Table 3) with a
// synthetic torque-vs-turn-radius curve (the terramechanic model arrives in a
// later issue): two RBF networks (inner and outer side) are initialised
// offline from 30 samples of a vinyl curve (§4.1), then adapted online by MRAN
// to the torques measured on asphalt, concrete and grass while the robot
// drives the diagnostic trajectory (72 commands × 5 s, torques at 100 Hz).
// The minimum turn radius (MTR) is read off the learned outer-side curve as the
// largest radius needing more than 95 % of the maximum motor torque (4.6 N·m).
//
// The network input is log10 of the commanded turn radius (the radii span
// 0.56 m to 750 m; Gaussian units of one width cover that range evenly only
// on a log scale).
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/wheelgrad/wheelgrad/figure"
	"github.com/wheelgrad/wheelgrad/models/rbf"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

func main() {
	out := flag.String("out", filepath.Join("out", "mran-torque"), "output directory")
	quick := flag.Bool("quick", false, "1-s commands instead of 5-s (smoke test)")
	flag.Parse()
	if err := run(os.Stdout, *out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "mran-torque:", err)
		os.Exit(1)
	}
}

const (
	tauMax  = 4.6 // maximum motor torque per side (N·m, §2)
	tauRoll = 0.5 // rolling and drive-train resistance (N·m)
	rhoS    = 1.0 // turn radius (m) where the turning torque halves
)

// surface is a synthetic torque curve: the turning resistance K/(1 + ρ/ρs)
// adds to the outer side's torque and (60 %) subtracts from the inner side's
// (the inner wheels skid, Fig. 6). K is set so that the outer torque reaches
// 95 % of tauMax at the paper's Table 3 MTR.
type surface struct {
	name  string
	mtr   float64 // Table 3 (vinyl: no restriction within the radii driven)
	noise float64 // torque measurement spread (N·m); grass is non-uniform
}

func (s surface) k() float64 { return (0.95*tauMax - tauRoll) * (1 + s.mtr/rhoS) }

// torques returns the true inner and outer torque at turn radius ρ > 0,
// before motor saturation.
func (s surface) torques(rho float64) (inner, outer float64) {
	turn := s.k() / (1 + rho/rhoS)
	return tauRoll - 0.6*turn, tauRoll + turn
}

var (
	vinyl   = surface{"vinyl", 0.3, 0.1}
	targets = []surface{{"asphalt", 1.8, 0.15}, {"concrete", 2.4, 0.15}, {"grass", 1.2, 0.4}}
)

// MRAN tuning. Offline, the noise-free vinyl samples are fitted closely with
// units spread over the radii; online, a unit is added only where the error
// is well above the torque noise (E1 ≈ 3σ, E2 ≈ 2σ of asphalt's 0.15 N·m), and
// the small process noise Q keeps the EKF from forgetting the radii it is not
// currently driving (each radius is held for 15 s).
var (
	offlineCfg = rbf.MRANConfig{E1: 0.05, E2: 0.05, EpsMax: 1, EpsMin: 0.2, Gamma: 0.98, Kappa: 0.87, P0: 1, Q: 1e-4, R: 0.01}
	onlineCfg  = rbf.MRANConfig{E1: 0.45, E2: 0.3, Window: 5, EpsMax: 0.3, EpsMin: 0.1, Gamma: 0.999, Kappa: 0.87, P0: 1, Q: 1e-6, R: 0.5, PruneThreshold: 0.005, PruneWindow: 5000}
)

func run(w io.Writer, dir string, quick bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	hold := 5.0
	if quick {
		hold = 1
	}
	// §4.1: 30 (ρ, τ_i, τ_o) triplets of the vinyl model, sharp to shallow,
	// presented sequentially (20 passes) to MRAN.
	var init [2]*rbf.Network
	for side := range 2 {
		m, err := rbf.NewMRAN(nil, 1, 1, offlineCfg)
		if err != nil {
			return err
		}
		for range 20 {
			for i := range 30 {
				rho := math.Pow(10, -0.7+3.7*float64(i)/29)
				ti, to := vinyl.torques(rho)
				y := []float64{ti, to}[side]
				if _, _, err := m.Update([]float64{math.Log10(rho)}, []float64{y}); err != nil {
					return err
				}
			}
		}
		init[side] = m.Net.Clone()
	}
	fmt.Fprintf(w, "Offline initialisation on vinyl: inner network %d units, outer %d units\n\n", init[0].Units(), init[1].Units())
	fmt.Fprintf(w, "%-9s %8s %8s %12s %14s %10s %12s\n", "surface", "units", "samples", "µs/update", "RMS vs truth", "MTR (m)", "true MTR (m)")
	for si, s := range targets {
		rng := rand.New(rand.NewPCG(uint64(40+si), 9))
		var ms [2]*rbf.MRAN
		for side := range 2 {
			var err error
			if ms[side], err = rbf.NewMRAN(init[side], 1, 1, onlineCfg); err != nil {
				return err
			}
		}
		// Measured torques while driving the diagnostic trajectory at 100 Hz.
		var mx [2][]float64
		var my [2][]float64
		n := 0
		start := time.Now()
		for _, r := range skidsteer.DiagnosticRadii {
			for range skidsteer.DiagnosticSpeeds {
				rho := math.Abs(r)
				ti, to := s.torques(rho)
				for k := 0; k < int(hold*100); k++ {
					for side, tau := range []float64{ti, to} {
						meas := math.Max(math.Min(tau+s.noise*rng.NormFloat64(), tauMax), -tauMax)
						if _, _, err := ms[side].Update([]float64{math.Log10(rho)}, []float64{meas}); err != nil {
							return err
						}
						if k%25 == 0 {
							mx[side] = append(mx[side], rho)
							my[side] = append(my[side], meas)
						}
					}
					n++
				}
			}
		}
		per := time.Since(start) / time.Duration(2*n)
		// Learned vs true curves on the driven range, and the MTR.
		var xs, learnedI, learnedO, initI, initO []float64
		rms := 0.0
		mtr := math.NaN()
		for i := range 400 {
			rho := math.Pow(10, math.Log10(0.5)+(math.Log10(800)-math.Log10(0.5))*float64(i)/399)
			x := math.Log10(rho)
			li, lo := ms[0].Net.Predict(x), ms[1].Net.Predict(x)
			ti, to := s.torques(rho)
			to = math.Min(to, tauMax)
			xs = append(xs, rho)
			learnedI, learnedO = append(learnedI, li), append(learnedO, lo)
			initI, initO = append(initI, init[0].Predict(x)), append(initO, init[1].Predict(x))
			rms += (li-ti)*(li-ti) + (lo-to)*(lo-to)
			if lo > 0.95*tauMax {
				mtr = rho
			}
		}
		rms = math.Sqrt(rms / 800)
		fmt.Fprintf(w, "%-9s %4d/%-3d %8d %12.2f %14.3f %10.2f %12.2f\n", s.name, ms[0].Net.Units(), ms[1].Net.Units(), 2*n,
			float64(per.Nanoseconds())/1e3, rms, mtr, s.mtr)
		// Figs. 16–18: log10 radius on the x axis.
		lg := func(v []float64) []float64 {
			o := make([]float64, len(v))
			for i := range v {
				o[i] = math.Log10(v[i])
			}
			return o
		}
		ss := []figure.Series{
			{Name: "measured outer", X: lg(mx[1]), Y: my[1], Points: true, Color: figure.Palette[5]},
			{Name: "measured inner", X: lg(mx[0]), Y: my[0], Points: true, Color: figure.Palette[4]},
			{Name: "learned outer", X: lg(xs), Y: learnedO, Color: figure.Palette[0]},
			{Name: "learned inner", X: lg(xs), Y: learnedI, Color: figure.Palette[1]},
			{Name: "initial (vinyl)", X: lg(xs), Y: initO, Color: figure.Palette[3], Dashed: true},
			{Name: "", X: lg(xs), Y: initI, Color: figure.Palette[3], Dashed: true},
			{Name: "95% max torque", X: []float64{lg(xs)[0], lg(xs)[len(xs)-1]}, Y: []float64{0.95 * tauMax, 0.95 * tauMax}, Color: figure.Palette[2], Dashed: true},
		}
		if err := figure.XY(filepath.Join(dir, "torque-"+s.name+".png"), s.name+": learned wheel torques (Figs. 16–18)",
			"log10 turn radius (m)", "torque (N·m)", false, ss); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nMTR: largest turn radius whose learned outer torque exceeds 95% of 4.6 N·m (Table 3: asphalt 1.8, concrete 2.4, grass 1.2 m)")
	return nil
}
