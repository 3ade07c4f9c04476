package tire

import (
	"fmt"
	"math"
)

// Params is FORMATS.md's parameter file of model "tire". The defaults are
// the Jackal of Table IV with the contract's tyre values.
type Params struct {
	Model string     `json:"model"`
	Tyre  string     `json:"tyre"` // "dugoff" or "pacejka"
	Mu    float64    `json:"mu"`
	Kx    float64    `json:"Kx"`
	Ky    float64    `json:"Ky"`
	Px    [4]float64 `json:"px"` // Pacejka B, C, D, E of Fx(κ)
	Py    [4]float64 `json:"py"` // Pacejka B, C, D, E of Fy(tan α)
	M     float64    `json:"m"`
	Izz   float64    `json:"Izz"`
	R     float64    `json:"R"`
	W     float64    `json:"W"`
	L1    float64    `json:"l1"`
	L2    float64    `json:"l2"`
	G     float64    `json:"g"`
	Veps  float64    `json:"veps"`
	Crr   float64    `json:"crr"`
	Vroll float64    `json:"vroll"`
	Dt    float64    `json:"dt"`
}

// Jackal returns the defaults of FORMATS.md (Table IV).
func Jackal() Params {
	return Params{Model: "tire", Tyre: "dugoff", Mu: 0.2, Kx: 100, Ky: 80,
		Px: [4]float64{10, 1.9, 1, 0.97}, Py: [4]float64{8, 1.3, 1, -1},
		M: 16.532, Izz: 0.4485, R: 0.09, W: 0.31, L1: 0.131, L2: 0.131,
		G: 9.81, Veps: 0.05, Crr: 0, Vroll: 0.05, Dt: 0.001}
}

// Fz is the normal load per wheel, m·g/4.
func (p Params) Fz() float64 { return p.M * p.G / 4 }

// MaxStiffness is the largest Kx or Ky that explicit integration at dt
// keeps stable near rest: a wheel's slip force changes by K/veps per m/s of
// hub speed there (the slip denominators sit at their floor veps), four
// wheels on mass m give a rate 4K/(veps·m), and Euler needs rate·dt < 2.
// Above it the rollout oscillates and its gradient overflows; a stiffer
// tyre needs a smaller dt. Identify bounds Kx and Ky by 0.9 of it.
func (p Params) MaxStiffness() float64 { return 0.9 * 2 * p.Veps * p.M / (4 * p.Dt) }

// PacejkaSlope is the magic formula's force per unit slip at zero slip,
// |B·C·D|·Fz (eq. 9: E does not enter the slope at the origin), Dugoff's
// Kx or Ky for the stability bound MaxStiffness.
func (p Params) PacejkaSlope(c [4]float64) float64 { return math.Abs(c[0]*c[1]*c[2]) * p.Fz() }

// Validate checks the tyre law and the physical ranges; the error names
// the key.
func (p Params) Validate() error {
	if p.Model != "" && p.Model != "tire" {
		return fmt.Errorf("model is %q, want \"tire\"", p.Model)
	}
	if p.Tyre != "dugoff" && p.Tyre != "pacejka" {
		return fmt.Errorf("key \"tyre\" is %q, want \"dugoff\" or \"pacejka\"", p.Tyre)
	}
	pos := []struct {
		name string
		v    float64
	}{{"m", p.M}, {"Izz", p.Izz}, {"R", p.R}, {"W", p.W}, {"g", p.G}, {"veps", p.Veps}, {"vroll", p.Vroll}, {"dt", p.Dt}}
	if p.Tyre == "dugoff" {
		pos = append(pos, struct {
			name string
			v    float64
		}{"mu", p.Mu}, struct {
			name string
			v    float64
		}{"Kx", p.Kx}, struct {
			name string
			v    float64
		}{"Ky", p.Ky})
	}
	for _, c := range pos {
		if !(c.v > 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("key %q = %v, want a finite value > 0", c.name, c.v)
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"l1", p.L1}, {"l2", p.L2}, {"crr", p.Crr}} {
		if !(c.v >= 0) || math.IsInf(c.v, 0) {
			return fmt.Errorf("key %q = %v, want a finite value ≥ 0", c.name, c.v)
		}
	}
	if p.L1+p.L2 == 0 {
		return fmt.Errorf("keys \"l1\" and \"l2\" are both 0: the wheels need a wheelbase")
	}
	for i := range 4 {
		for _, c := range []struct {
			name string
			v    float64
		}{{"px", p.Px[i]}, {"py", p.Py[i]}} {
			if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
				return fmt.Errorf("key %q[%d] = %v, want a finite value", c.name, i, c.v)
			}
		}
	}
	if p.Dt > 0.05 {
		return fmt.Errorf("key \"dt\" = %g s: the tyre forces are stiff (hundreds of N per unit slip); a step above 50 ms diverges", p.Dt)
	}
	return nil
}

// Warnings lists values that are legal but unusual, each as "key: why";
// Validate has passed.
func (p Params) Warnings() []string {
	var w []string
	if p.Tyre == "dugoff" {
		for _, c := range []struct {
			k string
			v float64
		}{{"Kx", p.Kx}, {"Ky", p.Ky}} {
			if ks := p.MaxStiffness() / 0.9; c.v > ks {
				w = append(w, fmt.Sprintf("%s: %g exceeds the stiffness %.4g that a step of dt = %g s keeps stable near rest (2·veps·m/(4·dt)): the rollout oscillates; use a smaller dt", c.k, c.v, ks, p.Dt))
			}
		}
		if p.Mu > 2 {
			w = append(w, fmt.Sprintf("mu: %g is more grip than any tyre on any ground (about 1.2 at most)", p.Mu))
		}
	}
	if p.Tyre == "pacejka" {
		for _, c := range []struct {
			k string
			v [4]float64
		}{{"px", p.Px}, {"py", p.Py}} {
			if k, ks := p.PacejkaSlope(c.v), p.MaxStiffness()/0.9; k > ks {
				w = append(w, fmt.Sprintf("%s: the slope at zero slip B·C·D·Fz = %.4g N exceeds the stiffness %.4g that a step of dt = %g s keeps stable near rest (2·veps·m/(4·dt)): the rollout chatters at rest; use a smaller dt or softer coefficients", c.k, k, ks, p.Dt))
			}
		}
	}
	if p.G < 9.7 || p.G > 9.9 {
		w = append(w, fmt.Sprintf("g: %g m/s² is not the Earth's gravity (9.78–9.83)", p.G))
	}
	if p.M > 5000 {
		w = append(w, fmt.Sprintf("m: %g kg (grams given as kilograms?)", p.M))
	}
	if p.R > 2 || p.W > 10 || p.L1 > 10 || p.L2 > 10 {
		w = append(w, fmt.Sprintf("R: R = %g, W = %g, l1 = %g, l2 = %g m: millimetres given as metres?", p.R, p.W, p.L1, p.L2))
	}
	return w
}

// free returns the identified parameters of the tyre law, in the order of
// the step model's Params.
func (p Params) free() []float64 {
	if p.Tyre == "pacejka" {
		return append(append([]float64(nil), p.Px[:]...), append(p.Py[:], p.Crr)...)
	}
	return []float64{p.Mu, p.Kx, p.Ky, p.Crr}
}

// withFree is the inverse of free.
func (p Params) withFree(x []float64) Params {
	if p.Tyre == "pacejka" {
		copy(p.Px[:], x[:4])
		copy(p.Py[:], x[4:8])
		p.Crr = x[8]
		return p
	}
	p.Mu, p.Kx, p.Ky, p.Crr = x[0], x[1], x[2], x[3]
	return p
}

// settings are the known constants in the step model's Settings order.
func (p Params) settings() []float64 {
	return []float64{p.M, p.Izz, p.R, p.W, p.L1, p.L2, p.G, p.Veps, p.Vroll, p.Dt}
}
