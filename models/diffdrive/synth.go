package diffdrive

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Drive is the kind of command signal of a synthetic log.
type Drive int

const (
	// Training mixes steps, sinusoids and random steps of varying magnitude,
	// like the paper's 2,250-s training set (§III-A, Figs. 3–5).
	Training Drive = iota
	// Robot is a navigation planner's smooth commands: ramps between cruise
	// speeds with gentle turns and stops (the 500-s test set, Figs. 6–8).
	Robot
	// Human is a person's joystick: noisier, with jitter and quick
	// corrections (the 350-s test set, Figs. 9–10).
	Human
)

// SynthConfig configures a synthetic wheelchair log.
type SynthConfig struct {
	Drive   Drive
	Seconds float64 // duration
	Noise   float64 // encoder noise σ on each wheel speed (m/s)
	// HangupEvery is the mean time between castor hang-ups (s; 0: none):
	// for 1–2.5 s the castors resist, modelled as friction μ raised fivefold,
	// which delays and slows the chair as in the paper's Fig. 7.
	HangupEvery float64
	// SpikeRate is the probability per sample of an encoder spike of
	// 0.3–1 m/s on one wheel (0: none).
	SpikeRate float64
	// Scale multiplies the joystick commands (0: 1), e.g. about 2 for a
	// robot with a ±100 joystick and a smaller gain a = α/β.
	Scale float64
	Seed  uint64
}

// Log is a synthetic log in the units of FORMATS.md, with the truth kept for
// evaluation.
type Log struct {
	T, UF, UL, VR, VL []float64
	TrueVR, TrueVL    []float64 // noise-free wheel speeds of the true plant
	Hangup, Spike     []bool    // corrupted rows
}

// Synthesize drives the exact model with parameters p (the truth) and the
// configured commands and corruptions. Rows are at t = k·h; the measured
// speeds of row k are the plant's state at that time plus noise.
func Synthesize(p Params, cfg SynthConfig) (*Log, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n := int(math.Round(cfg.Seconds / p.H))
	if n < 2 {
		return nil, fmt.Errorf("diffdrive.Synthesize: %v s at h = %v is fewer than 2 rows", cfg.Seconds, p.H)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	uf, ul := commands(cfg.Drive, n, p.H, rng)
	if cfg.Scale != 0 {
		for k := range uf {
			uf[k] *= cfg.Scale
			ul[k] *= cfg.Scale
		}
	}
	lg := &Log{T: make([]float64, n), UF: uf, UL: ul, VR: make([]float64, n), VL: make([]float64, n),
		TrueVR: make([]float64, n), TrueVL: make([]float64, n), Hangup: make([]bool, n), Spike: make([]bool, n)}
	if cfg.HangupEvery > 0 {
		for k := 0; k < n; {
			k += int(rng.ExpFloat64() * cfg.HangupEvery / p.H)
			d := int((1 + 1.5*rng.Float64()) / p.H)
			for i := k; i < min(k+d, n); i++ {
				lg.Hangup[i] = true
			}
			k += d
		}
	}
	s := State{}
	for k := range n {
		lg.T[k] = float64(k) * p.H
		lg.TrueVR[k], lg.TrueVL[k] = s.SdR, s.SdL
		lg.VR[k] = s.SdR + cfg.Noise*rng.NormFloat64()
		lg.VL[k] = s.SdL + cfg.Noise*rng.NormFloat64()
		if cfg.SpikeRate > 0 && rng.Float64() < cfg.SpikeRate {
			lg.Spike[k] = true
			sp := (0.3 + 0.7*rng.Float64()) * float64(1-2*rng.IntN(2))
			if rng.IntN(2) == 0 {
				lg.VR[k] += sp
			} else {
				lg.VL[k] += sp
			}
		}
		q := p
		if lg.Hangup[k] {
			q.Mu *= 5
		}
		s, _ = q.Step(s, uf[k], ul[k])
	}
	return lg, nil
}

// commands generates joystick commands in the paper's units (|u| ≲ 45; the
// ζ* deadband is about 3, top speed about 1.5 m/s).
func commands(d Drive, n int, h float64, rng *rand.Rand) (uf, ul []float64) {
	uf, ul = make([]float64, n), make([]float64, n)
	steps := func(s float64) int { return max(1, int(s/h)) }
	k := 0
	switch d {
	case Training:
		for k < n {
			blk := min(n, k+steps(20+20*rng.Float64()))
			switch rng.IntN(3) {
			case 0: // steps: hold, then release to zero
				for k < blk {
					f := (10 + 30*rng.Float64()) * sign(rng)
					l := 0.0
					if rng.IntN(2) == 0 {
						l = (5 + 35*rng.Float64()) * sign(rng)
					}
					if rng.IntN(4) == 0 {
						f = 0
					}
					e := min(blk, k+steps(3+4*rng.Float64()))
					for ; k < e; k++ {
						uf[k], ul[k] = f, l
					}
					e = min(blk, k+steps(1+2*rng.Float64()))
					for ; k < e; k++ {
						uf[k], ul[k] = 0, 0
					}
				}
			case 1: // sinusoids
				af, al := 10+25*rng.Float64(), 10+30*rng.Float64()
				pf, pl := 4+10*rng.Float64(), 3+8*rng.Float64()
				off := 15 * rng.Float64() * sign(rng)
				ph := 2 * math.Pi * rng.Float64()
				for k0 := k; k < blk; k++ {
					t := float64(k-k0) * h
					uf[k] = off + af*math.Sin(2*math.Pi*t/pf)
					ul[k] = al * math.Sin(2*math.Pi*t/pl+ph)
				}
			default: // random steps
				for k < blk {
					f, l := 40*(2*rng.Float64()-1), 40*(2*rng.Float64()-1)
					e := min(blk, k+steps(0.5+1.5*rng.Float64()))
					for ; k < e; k++ {
						uf[k], ul[k] = f, l
					}
				}
			}
		}
	case Robot:
		f, l := 0.0, 0.0
		for k < n {
			tf, tl := 15+20*rng.Float64(), 15*rng.NormFloat64()
			if rng.IntN(6) == 0 {
				tf, tl = 0, 0
			}
			e := min(n, k+steps(4+8*rng.Float64()))
			for ; k < e; k++ {
				// A planner's rate-limited ramp towards its target.
				f += math.Max(-8*h, math.Min(8*h, tf-f)) * 3
				l += math.Max(-8*h, math.Min(8*h, tl-l)) * 3
				uf[k], ul[k] = f, l
			}
		}
	case Human:
		f, l := 0.0, 0.0
		for k < n {
			tf, tl := 35*rng.Float64()-5, 25*rng.NormFloat64()
			if rng.IntN(5) == 0 {
				tf, tl = 0, 0
			}
			e := min(n, k+steps(1+5*rng.Float64()))
			for ; k < e; k++ {
				f += 0.3 * (tf - f)
				l += 0.3 * (tl - l)
				uf[k] = f + 2*rng.NormFloat64()
				ul[k] = l + 3*rng.NormFloat64()
				if tf == 0 && tl == 0 && math.Abs(f) < 1 {
					uf[k], ul[k] = 0, 0
				}
			}
		}
	}
	return uf, ul
}

func sign(rng *rand.Rand) float64 { return float64(1 - 2*rng.IntN(2)) }

// NewBatch cuts a log into the calibration segments of §III-A. Segment j
// starts at row starts[j] from the initial state of eq. 24: the wheel speeds
// vr, vl of that row and the motor accelerations ar, al (the caller's
// numerical derivative of the speeds, e.g. dataset.Derivative5, possibly of
// a robustly filtered series); it is driven by the commands of its N rows and
// compared with v and ω of the N rows after (eq. 19 with axle length l).
func NewBatch(uf, ul, vr, vl, ar, al []float64, l float64, starts []int, N int) (*Batch, error) {
	rows := len(uf)
	for _, c := range [][]float64{ul, vr, vl, ar, al} {
		if len(c) != rows {
			return nil, fmt.Errorf("diffdrive.NewBatch: columns of %d and %d rows", rows, len(c))
		}
	}
	m := len(starts)
	if m == 0 || N < 1 {
		return nil, fmt.Errorf("diffdrive.NewBatch: %d segments of %d steps", m, N)
	}
	b := &Batch{M: m, N: N, UF: make([]float64, m*N), UL: make([]float64, m*N), V: make([]float64, m*N), W: make([]float64, m*N)}
	for i := range b.Init {
		b.Init[i] = make([]float64, m)
	}
	for j, k := range starts {
		if k < 0 || k+N >= rows {
			return nil, fmt.Errorf("diffdrive.NewBatch: segment %d at row %d needs rows up to %d, the log has %d", j, k, k+N, rows)
		}
		b.Init[iSdR][j], b.Init[iSddR][j], b.Init[iSdL][j], b.Init[iSddL][j] = vr[k], ar[k], vl[k], al[k]
		for n := range N {
			i := n*m + j
			b.UF[i], b.UL[i] = uf[k+n], ul[k+n]
			r := k + n + 1
			b.V[i] = (vr[r] + vl[r]) / 2
			b.W[i] = (vr[r] - vl[r]) / l
		}
	}
	return b, b.Check()
}
