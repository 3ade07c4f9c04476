package robots_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
	"github.com/wheelgrad/wheelgrad/robots"
)

// lagTruth is a skid-steer on grass driven through a lag and a dead time.
func lagTruth(t *testing.T) skidsteer.Params {
	p := grassParams(t)
	p.A[0][0], p.A[2][1], p.A[1][2] = -0.1, -0.25, -0.3
	p.R, p.Track, p.Tau, p.Delay = 0.3, 1.08, 0.7, 0.137
	return p
}

// writeLagLog writes n runs of 2 s at 20 Hz (traj) in wheel-speed form:
// each run starts in steady state at random wheel speeds, then the commands
// step once or twice; the poses (noise poseSD, m and rad) are the exact
// commanded prediction of truth, the measured wl, wr the lagged and delayed
// commands (a fine Euler integration) plus encoder noise encSD (rad/s).
func writeLagLog(t *testing.T, truth skidsteer.Params, n int, poseSD, encSD float64, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("t,wl,wr,wl_cmd,wr_cmd,x,y,psi,traj\n")
	const rows, h = 40, 0.05
	for k := range n {
		tt := make([]float64, rows)
		cmd := [2][]float64{make([]float64, rows), make([]float64, rows)}
		w0 := [2]float64{16*rng.Float64() - 8, 16*rng.Float64() - 8}
		for s := range 2 {
			c := w0[s]
			for i := range rows {
				if i == 3+rng.IntN(10) || i == 20+rng.IntN(10) {
					c = 16*rng.Float64() - 8
				}
				cmd[s][i] = c
			}
		}
		for i := range rows {
			tt[i] = h * float64(i)
		}
		ps, err := skidsteer.SimulateCommanded(truth, skidsteer.Pose{}, w0, tt, cmd[0], cmd[1])
		if err != nil {
			t.Fatal(err)
		}
		// the measured speeds: the delayed commands through the lag
		var meas [2][]float64
		for s := range 2 {
			w := w0[s]
			meas[s] = make([]float64, rows)
			const sub = 200
			for i := range rows {
				meas[s][i] = w
				for j := range sub {
					tau := tt[i] + h*float64(j)/sub - truth.Delay
					u := w0[s]
					if tau >= 0 {
						u = cmd[s][int(tau/h+1e-9)]
					}
					w += h / sub * (u - w) / truth.Tau
				}
			}
		}
		for i, q := range ps {
			x, y, psi := q.X+poseSD*rng.NormFloat64(), q.Y+poseSD*rng.NormFloat64(), q.Psi+poseSD*rng.NormFloat64()
			if i == 0 {
				x, y, psi = 0, 0, 0
			}
			fmt.Fprintf(&b, "%.2f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,r%d\n", tt[i],
				meas[0][i]+encSD*rng.NormFloat64(), meas[1][i]+encSD*rng.NormFloat64(), cmd[0][i], cmd[1][i], x, y, psi, k)
		}
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("lag%d.csv", seed))
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// identify -inputs commanded (-dead-time) recovers the slip, τ and the dead
// time from commanded speeds with encoder and pose noise, σ covering the
// truth; the parameter file records the inputs; validate then predicts
// held-out runs from wl_cmd, wr_cmd better than the fit without the lag,
// and simulate predicts from the commands.
func TestSkidSteerIdentifyCommanded(t *testing.T) {
	truth := lagTruth(t)
	train := writeLagLog(t, truth, 120, 0.01, 0.2, 1)
	test := writeLagLog(t, truth, 40, 0.01, 0.2, 2)
	init := skidsteer.Params{Model: "skidsteer", R: truth.R, Track: truth.Track}
	req := robots.IdentifyRequest{Sources: []robots.Source{{Path: train}}, Init: init,
		Options: map[string]string{"inputs": "commanded", "dead-time": "true"}}
	out, err := robots.SkidSteer{}.Identify(req)
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused != nil || out.Outcome != nil {
		t.Fatalf("refused %v, outcome %v", out.Refused, out.Outcome)
	}
	p := out.Params.(skidsteer.Params)
	if !p.FromCommands() {
		t.Errorf("inputs %q", p.Inputs)
	}
	want := map[string]float64{"tau": truth.Tau, "delay": truth.Delay}
	for i, n := range skidsteer.CoeffNames {
		want[n] = truth.Coeffs()[i]
	}
	for _, q := range out.Report.Params {
		if !(q.Std > 0) {
			t.Errorf("%s = %g: σ %g", q.Name, q.Value, q.Std)
			continue
		}
		if z := math.Abs(q.Value-want[q.Name]) / q.Std; z > 4 {
			t.Errorf("%s = %g ± %g, truth %g (%.1f σ)", q.Name, q.Value, q.Std, want[q.Name], z)
		}
	}
	if math.Abs(p.Tau-truth.Tau) > 0.05 || math.Abs(p.Delay-truth.Delay) > 0.02 {
		t.Errorf("τ = %g ± %g, delay = %g ± %g; truth %g, %g", p.Tau, p.TauStd, p.Delay, p.DelayStd, truth.Tau, truth.Delay)
	}
	t.Logf("τ = %.4f ± %.4f (0.7), delay = %.4f ± %.4f (0.137); %s", p.Tau, p.TauStd, p.Delay, p.DelayStd, out.Report.Lines[0])
	js, err := json.Marshal(p)
	if err != nil || !strings.Contains(string(js), `"inputs":"commanded"`) || !strings.Contains(string(js), `"tau_std"`) {
		t.Errorf("parameter file %s (%v)", js, err)
	}
	// without the lag (τ held at 0)
	req.Options = map[string]string{"inputs": "commanded"}
	req.Fix = []string{"tau"}
	noLag, err := robots.SkidSteer{}.Identify(req)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := func(p robots.Params) float64 {
		runs, err := robots.SkidSteer{}.Validate(robots.ValidateRequest{Params: p, Sources: []robots.Source{{Path: test}}, X0: robots.X0First})
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, r := range runs {
			n := len(r.Track.T) - 1
			m, q := r.Track.Meas[n], r.Track.Pred[n]
			s += math.Hypot(m[0]-q[0], m[1]-q[1])
		}
		return s / float64(len(runs))
	}
	eLag, eNo := endpoint(out.Params), endpoint(noLag.Params)
	t.Logf("held-out mean endpoint error: %.4f m with the lag, %.4f m without", eLag, eNo)
	if !(eLag < 0.05 && eLag < eNo/3) {
		t.Errorf("held-out mean endpoint error %.4f m with the lag, %.4f m without", eLag, eNo)
	}
	sim, err := robots.SkidSteer{}.Simulate(robots.SimulateRequest{Params: out.Params, Source: robots.Source{Path: test}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sim.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(buf.String(), "\n"); lines != 40*40+1 {
		t.Errorf("simulated CSV has %d lines", lines)
	}
}

// -inputs commanded refuses a log without wl_cmd, wr_cmd (naming the file),
// a bad -inputs value, -dead-time alone, and the online EKF.
func TestSkidSteerCommandedErrors(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.csv")
	if err := os.WriteFile(plain, []byte("t,wl,wr,x,y,psi\n0,1,1,0,0,0\n0.1,1,1,0.03,0,0\n0.2,1,1,0.06,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	init := skidsteer.Params{Model: "skidsteer", R: 0.3, Track: 1}
	for _, c := range []struct {
		opts   map[string]string
		method string
		want   string
	}{
		{map[string]string{"inputs": "commanded"}, "", "plain.csv"},
		{map[string]string{"inputs": "commands"}, "", "-inputs must be"},
		{map[string]string{"dead-time": "true"}, "", "-dead-time needs -inputs commanded"},
		{map[string]string{"inputs": "commanded"}, "ekf", "-method batch"},
	} {
		_, err := robots.SkidSteer{}.Identify(robots.IdentifyRequest{Sources: []robots.Source{{Path: plain}}, Init: init, Options: c.opts, Method: c.method})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: err = %v, want %q", c.opts, c.method, err, c.want)
		}
	}
	// simulate with commanded parameters and a log without commands
	p := init
	p.Inputs = skidsteer.InputsCommanded
	if _, err := (robots.SkidSteer{}).Simulate(robots.SimulateRequest{Params: p, Source: robots.Source{Path: plain}}); err == nil || !strings.Contains(err.Error(), "wl_cmd") || !strings.Contains(err.Error(), "plain.csv") {
		t.Errorf("simulate without wl_cmd: err = %v", err)
	}
}

// On 60 of the Warthog's real windows (DRIVE, grass: the fast form of
// experiments/real-warthog), -inputs commanded finds a lag of about a
// second with its σ, and predicts the windows' ends from the commands
// better than the nominal model does.
func TestSkidSteerCommandedWarthog(t *testing.T) {
	cm, err := dataset.ParseColumnMap("traj=window,wl=meas_left,wr=meas_right,wl_cmd=cmd_left,wr_cmd=cmd_right,psi=yaw:rad")
	if err != nil {
		t.Fatal(err)
	}
	src := robots.Source{Path: "../experiments/real-warthog/testdata/windows-sample.csv", Columns: cm}
	init := skidsteer.Params{Model: "skidsteer", R: 0.3, Track: 1.08}
	out, err := robots.SkidSteer{}.Identify(robots.IdentifyRequest{Sources: []robots.Source{src}, Init: init,
		Options: map[string]string{"inputs": "commanded"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome != nil {
		t.Fatal(out.Outcome)
	}
	tau := paramOf(t, out.Report, "tau")
	t.Logf("τ = %.3f ± %.3f s (%s); %s", tau.Value, tau.Std, tau.Verdict(), out.Report.Lines[0])
	if !(tau.Value > 0.5 && tau.Value < 3) || !(tau.Std > 0 && tau.Std < 0.3*tau.Value) {
		t.Errorf("τ = %g ± %g s", tau.Value, tau.Std)
	}
	var nom, cal float64
	if _, err := fmt.Sscanf(out.Report.Lines[0][strings.Index(out.Report.Lines[0], "nominal without lag"):], "nominal without lag %f m, calibrated %f m", &nom, &cal); err != nil {
		t.Fatal(err)
	}
	if !(cal < nom/2) {
		t.Errorf("endpoint RMS %g m calibrated, %g m nominal", cal, nom)
	}
}
