package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/cli/stage"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
	"github.com/wheelgrad/wheelgrad/models/tire"
)

// writeRealLike writes real-like recordings (PWM commands + a separate
// camera file with its own clock, degrees) of the given commands, shortened
// to seconds, and returns the -data and -poses lists.
func writeRealLike(t testing.TB, dir string, cmds [][4]float64, seconds float64, seed uint64) (data, poses string) {
	t.Helper()
	var ds, ps []string
	for i, w := range cmds {
		s := mecanum.RealLikeRecording(w, 0, seed+uint64(i))
		s.Duration = seconds
		r := mecanum.SynthesizeRealLike(mecanum.DefaultParams(), s)
		ch, c, mh, m := r.Columns()
		d := filepath.Join(dir, fmt.Sprintf("cmd%d.csv", i))
		p := filepath.Join(dir, fmt.Sprintf("cam%d.csv", i))
		for _, f := range []struct {
			path string
			h    []string
			c    [][]float64
		}{{d, ch, c}, {p, mh, m}} {
			if err := stage.WriteFileAtomic(f.path, func(w io.Writer) error { return dataset.WriteCSV(w, f.h, f.c) }); err != nil {
				t.Fatal(err)
			}
		}
		ds, ps = append(ds, d), append(ps, p)
	}
	return strings.Join(ds, ","), strings.Join(ps, ",")
}

const realMap = `{"model": "mecanum", "command_map": {"columns": ["p3","p4","p2","p1"], "scale": [0.1,-0.1,-0.1,0.1]}}`

func TestMecanumRawRecordingToPrediction(t *testing.T) {
	dir := t.TempDir()
	data, poses := writeRealLike(t, dir, mecanum.RealLikeTrain[:4], 3, 1)
	init := writeFile(t, dir, "map.json", realMap)
	out := filepath.Join(dir, "mu.json")
	st, so, se := runCLI("identify", "-model", "mecanum", "-init", init, "-data", data, "-poses", poses, "-offset", "auto", "-loss", "squared", "-out", out)
	if st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, se)
	}
	for _, want := range []string{"offset -0.", "motion onset", "least-squares iterations", "position RMS"} {
		if !strings.Contains(so, want) {
			t.Errorf("report lacks %q:\n%s", want, so)
		}
	}
	if !strings.Contains(se, "before the first row with commands ignored") {
		t.Errorf("no note about the camera rows before the commands: %q", se)
	}
	var p mecanum.Params
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &p); err != nil || p.CommandMap == nil || len(p.Mu) != 4 {
		t.Fatalf("parameters %s (%v)", b, err)
	}
	// the camera offset: the true clock shift minus the dead time and spin-up
	cam := strings.Split(poses, ",")[0]
	// the camera positions are fitted to about the noise plus the model mismatch
	if i := strings.Index(so, "position RMS over the runs' camera samples: "); i >= 0 {
		var rms float64
		fmt.Sscanf(so[i+len("position RMS over the runs' camera samples: "):], "%g", &rms)
		if !(rms < 0.03) {
			t.Errorf("position RMS %g m", rms)
		}
	}
	// simulate the raw commands with the parameters (map applied), from the
	// camera's first pose after the offset
	pred := filepath.Join(dir, "pred.csv")
	st, _, se = runCLI("simulate", "-model", "mecanum", "-params", out, "-controls", strings.Split(data, ",")[0], "-poses", cam, "-offset", "-0.95", "-out", pred)
	if st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, se)
	}
	tab, err := dataset.ReadFile(pred, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "theta"}}, Time: "t"})
	if err != nil {
		t.Fatal(err)
	}
	x, y := tab.Col("x"), tab.Col("y")
	if d := math.Hypot(x[len(x)-1]-x[0], y[len(y)-1]-y[0]); d < 0.3 {
		t.Errorf("the prediction moves %.3f m in 3 s", d)
	}
}

func TestMecanumFrictionNetCLI(t *testing.T) {
	dir := t.TempDir()
	data, poses := writeRealLike(t, dir, mecanum.RealLikeTrain[:4], 2, 3)
	init := writeFile(t, dir, "map.json", realMap)
	out := filepath.Join(dir, "net.json")
	st, so, se := runCLI("identify", "-model", "mecanum", "-init", init, "-data", data, "-poses", poses, "-offset", "auto", "-friction", "net", "-out", out)
	if st != 0 {
		t.Fatalf("identify -friction net: status %d, stderr %q", st, se)
	}
	if !strings.Contains(so, "held-out check") || !strings.Contains(so, "chosen") {
		t.Errorf("report lacks the held-out check:\n%s", so)
	}
	var p mecanum.Params
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &p); err != nil || p.Friction == nil || p.Mu != nil {
		t.Fatalf("parameters %s (%v)", b, err)
	}
	// simulate and follow take the network file
	pred := filepath.Join(dir, "pred.csv")
	if st, _, se := runCLI("simulate", "-model", "mecanum", "-params", out, "-controls", strings.Split(data, ",")[1], "-out", pred); st != 0 {
		t.Fatalf("simulate with the network: status %d, stderr %q", st, se)
	}
	ctl := filepath.Join(dir, "ctl.csv")
	if st, _, se := runCLI("follow", "-model", "mecanum", "-params", out, "-path", "circle", "-duration", "10", "-rate", "2", "-out", ctl); st != 0 {
		t.Fatalf("follow with the network: status %d, stderr %q", st, se)
	}
	// follow's controls are in w1..w4: simulate reads them without the
	// parameter file's command map
	if st, _, se := runCLI("simulate", "-model", "mecanum", "-params", out, "-controls", ctl, "-out", pred); st != 0 {
		t.Fatalf("simulate follow's controls with a mapped parameter file: status %d, stderr %q", st, se)
	}
}

func TestInspectFindsWiring(t *testing.T) {
	dir := t.TempDir()
	data, poses := writeRealLike(t, dir, mecanum.RealLikeTrain[:3], 1.5, 5)
	wrong := writeFile(t, dir, "wrong.json", `{"command_map": {"columns": ["p1","p2","p3","p4"], "scale": [0.1,0.1,0.1,0.1]}}`)
	st, so, se := runCLI("inspect", "-model", "mecanum", "-data", data, "-poses", poses, "-params", wrong, "-offset", "auto", "-top", "3")
	if st != 0 {
		t.Fatalf("inspect: status %d, stderr %q", st, se)
	}
	if !strings.Contains(so, `1. RMS`) || !strings.Contains(strings.SplitN(so, "2. RMS", 2)[0], `["p3", "p4", "p2", "p1"], "scale": [0.1, -0.1, -0.1, 0.1]`) {
		t.Errorf("the true wiring is not map 1:\n%s", so)
	}
	if !strings.Contains(se, "WARNING: the motion contradicts the declared command_map") {
		t.Errorf("no warning about the wrong map: %q", se)
	}
	// the right map: no warning
	right := writeFile(t, dir, "right.json", realMap)
	st, so, se = runCLI("inspect", "-model", "mecanum", "-data", data, "-poses", poses, "-params", right, "-offset", "auto", "-top", "1")
	if st != 0 || strings.Contains(se, "WARNING") || !strings.Contains(so, "rank 1 of 384") {
		t.Errorf("right map: status %d\n%s\n%s", st, so, se)
	}
}

func TestRealLogBadInput(t *testing.T) {
	dir := t.TempDir()
	data, poses := writeRealLike(t, dir, mecanum.RealLikeTrain[:1], 1, 7)
	still := writeFile(t, dir, "still.csv", "t,x,y,theta_deg\n0,0,0,0\n0.1,0,0,0\n0.2,0,0,0\n0.3,0,0,0\n0.4,0,0,0\n0.5,0,0,0\n0.6,0,0,0\n0.7,0,0,0\n0.8,0,0,0\n0.9,0,0,0\n1,0,0,0\n")
	missing := writeFile(t, dir, "missing.json", `{"command_map": {"columns": ["p3","p4","p2","p9"], "scale": [0.1,-0.1,-0.1,0.1]}}`)
	short := writeFile(t, dir, "short.json", `{"command_map": {"columns": ["p3","p4"]}}`)
	partial := writeFile(t, dir, "partial.csv", "t,w1,w2,w3,w4,x,y,theta\n0,1,1,1,1,0,0,0\n0.1,,1,,,0,0,0\n")
	init := writeFile(t, dir, "map.json", realMap)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"identify", "-model", "mecanum", "-init", missing, "-data", data, "-poses", poses}, `missing column "p9"`},
		{[]string{"identify", "-model", "mecanum", "-init", short, "-data", data}, `"command_map"`},
		{[]string{"identify", "-model", "mecanum", "-init", init, "-data", data, "-poses", still, "-offset", "auto"}, "no motion"},
		{[]string{"identify", "-model", "mecanum", "-data", partial}, `line 3, column "w1": partial command row`},
		{[]string{"identify", "-model", "mecanum", "-init", init, "-data", data, "-poses", poses + "," + poses}, "-poses names 2 file(s) for 1 log(s)"},
		{[]string{"identify", "-model", "skidsteer", "-data", data, "-offset", "auto"}, "-offset auto is available for -model mecanum only"},
		{[]string{"inspect", "-model", "diffdrive", "-data", data}, `line 1, column "uf": missing column: no channel "uf" to inspect`},
		{[]string{"identify", "-model", "mecanum", "-init", init, "-data", data, "-friction", "net", "-pose", "fixed"}, "go with the eq8 loss"},
		{[]string{"identify", "-model", "mecanum", "-init", init, "-data", data, "-friction", "nets"}, "-friction must be constant or net"},
	} {
		st, _, se := runCLI(c.args...)
		if st == 0 || !strings.Contains(se, c.want) || strings.Count(strings.TrimSpace(se), "\n") > 1 {
			t.Errorf("%v: status %d, stderr %q, want %q", c.args, st, se, c.want)
		}
	}
}

// Skid-steer: 2-s windows with window-relative poses (traj), wheel-speed
// form, asynchronous pose rows.
func TestSkidsteerWindowsAndWheelSpeeds(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("t,wl,wr,x,y,psi_deg,traj\n")
	const r, track = 0.1, 0.5
	for w := range 8 {
		x, y, psi := 0.0, 0.0, 0.0
		for k := 0; k <= 200; k++ {
			t := float64(k) * 0.01
			wl := 4 + float64(w) + 3*math.Sin(float64(w+1)*t)
			wr := 6 - float64(w) + 4*math.Cos(1.7*t+float64(w))
			vc, wc := r*(wl+wr)/2, r*(wr-wl)/track
			fmt.Fprintf(&b, "%g,%g,%g,,,,w%d\n", t, wl, wr, w)
			if k%10 == 5 {
				// a pose sample on a row of its own, between commands
				fmt.Fprintf(&b, "%g,,,%g,%g,%g,w%d\n", t+0.004, x+vc*0.004*math.Cos(psi), y+vc*0.004*math.Sin(psi), (psi+wc*0.004)*180/math.Pi, w)
			}
			x += 0.01 * vc * math.Cos(psi)
			y += 0.01 * vc * math.Sin(psi)
			psi += 0.01 * wc
		}
	}
	logf := writeFile(t, dir, "windows.csv", b.String())
	params := writeFile(t, dir, "p.json", fmt.Sprintf(`{"model": "skidsteer", "a": [[0,0,0],[0,0,0],[0,0,0]], "r": %g, "track": %g}`, r, track))
	out := filepath.Join(dir, "sim.csv")
	st, _, se := runCLI("simulate", "-model", "skidsteer", "-params", params, "-controls", logf, "-out", out)
	if st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, se)
	}
	tab, err := dataset.ReadFile(out, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "x"}, {Name: "y"}, {Name: "psi"}, {Name: "traj", Text: true}}, Time: "t", Group: "traj"})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := dataset.ReadLog(logf, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "wl"}, {Name: "wr"}, {Name: "x", Sparse: true}, {Name: "y", Sparse: true}, {Name: "psi", Sparse: true}, {Name: "traj", Text: true}}, Time: "t", Group: "traj"},
		dataset.LogOptions{Commands: []string{"wl", "wr"}, Angles: []string{"psi"}})
	if tab.Len() != in.Len() {
		t.Fatalf("%d rows simulated for %d", tab.Len(), in.Len())
	}
	// the nominal model reproduces the windows' poses (each from its own first pose)
	worst := 0.0
	for i := range tab.Len() {
		if x := in.Col("x")[i]; !math.IsNaN(x) {
			worst = math.Max(worst, math.Hypot(tab.Col("x")[i]-x, tab.Col("y")[i]-in.Col("y")[i]))
		}
	}
	if worst > 1e-3 {
		t.Errorf("simulated windows are %.2g m from the poses", worst)
	}
	if st, _, se := runCLI("identify", "-model", "skidsteer", "-init", params, "-data", logf, "-method", "batch", "-out", filepath.Join(dir, "slip.json")); st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, se)
	}
	if st, _, se := runCLI("simulate", "-model", "skidsteer", "-params", writeFile(t, dir, "nor.json", `{"model":"skidsteer","a":[[0,0,0],[0,0,0],[0,0,0]]}`), "-controls", logf); st == 0 || !strings.Contains(se, "track") {
		t.Errorf("wheel speeds without r, track: status %d, %q", st, se)
	}
}

// Differential drive: two runs (traj, time restarting), commands in one file
// and the wheel speeds in another (-poses) at their own times, half a step
// after the commands.
func TestDiffDriveRunsAndSeparateSpeeds(t *testing.T) {
	dir := t.TempDir()
	truth := diffdrive.Paper()
	lg, err := diffdrive.Synthesize(truth, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: 400, Noise: 0.01, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var c, s strings.Builder
	c.WriteString("t,uf,ul,traj\n")
	s.WriteString("t,vr,vl,traj\n")
	n := len(lg.T)
	for i := range n {
		run, t0 := "a", 0.0
		if i >= n/2 {
			run, t0 = "b", lg.T[n/2]
		}
		fmt.Fprintf(&c, "%g,%g,%g,%s\n", lg.T[i]-t0, lg.UF[i], lg.UL[i], run)
		if i+1 < n && (i+1 != n/2) {
			// the speed half-way to the next row
			fmt.Fprintf(&s, "%g,%g,%g,%s\n", lg.T[i]-t0+0.03, (lg.VR[i]+lg.VR[i+1])/2, (lg.VL[i]+lg.VL[i+1])/2, run)
		}
	}
	cmds := writeFile(t, dir, "cmd.csv", c.String())
	speeds := writeFile(t, dir, "speeds.csv", s.String())
	out := filepath.Join(dir, "zeta.json")
	st, _, se := runCLI("identify", "-model", "diffdrive", "-data", cmds, "-poses", speeds, "-out", out)
	if st != 0 {
		t.Fatalf("identify: status %d, stderr %q", st, se)
	}
	var p diffdrive.Params
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.C1-truth.C1) > 0.1*truth.C1 || math.Abs(p.Beta-truth.Beta) > 0.15*truth.Beta {
		t.Errorf("c1 = %g (true %g), β = %g (true %g)", p.C1, truth.C1, p.Beta, truth.Beta)
	}
	sim := filepath.Join(dir, "sim.csv")
	if st, _, se := runCLI("simulate", "-model", "diffdrive", "-params", out, "-controls", cmds, "-out", sim); st != 0 {
		t.Fatalf("simulate: status %d, stderr %q", st, se)
	}
	tab, err := dataset.ReadFile(sim, dataset.Spec{Columns: []dataset.Column{{Name: "t"}, {Name: "v"}, {Name: "traj", Text: true}}, Time: "t", Group: "traj"})
	if err != nil || tab.Len() != n || tab.Col("v")[n/2] != 0 {
		t.Errorf("simulate: %v, %d rows for %d, run b starts at v = %v (at rest)", err, tab.Len(), n, tab.Col("v")[n/2])
	}
}

// splitLog writes the commands and the poses of a one-table log into two
// files (poses with the heading in degrees) and returns their paths.
func splitLog(t *testing.T, dir, path string, cmds []string, heading string) (string, string) {
	t.Helper()
	cols := []dataset.Column{{Name: "t"}}
	for _, c := range cmds {
		cols = append(cols, dataset.Column{Name: c})
	}
	for _, c := range []string{"x", "y", heading} {
		cols = append(cols, dataset.Column{Name: c, Sparse: true})
	}
	cols = append(cols, dataset.Column{Name: "traj", Text: true, Optional: true})
	tab, err := dataset.ReadFile(path, dataset.Spec{Columns: cols, Time: "t", Group: "traj"})
	if err != nil {
		t.Fatal(err)
	}
	ids := tab.TextCol("traj")
	var c, p strings.Builder
	c.WriteString("t," + strings.Join(cmds, ","))
	p.WriteString("t,x,y," + heading + "_deg")
	if ids != nil {
		c.WriteString(",traj")
		p.WriteString(",traj")
	}
	c.WriteString("\n")
	p.WriteString("\n")
	for i := range tab.Len() {
		fmt.Fprintf(&c, "%v", tab.Col("t")[i])
		for _, k := range cmds {
			fmt.Fprintf(&c, ",%v", tab.Col(k)[i])
		}
		if ids != nil {
			fmt.Fprintf(&c, ",%s", ids[i])
		}
		c.WriteString("\n")
		if x := tab.Col("x")[i]; !math.IsNaN(x) {
			fmt.Fprintf(&p, "%v,%v,%v,%v", tab.Col("t")[i], x, tab.Col("y")[i], tab.Col(heading)[i]*180/math.Pi)
			if ids != nil {
				fmt.Fprintf(&p, ",%s", ids[i])
			}
			p.WriteString("\n")
		}
	}
	return writeFile(t, dir, "cmds.csv", c.String()), writeFile(t, dir, "poses.csv", p.String())
}

// simulate from one table and from the split files gives the same trajectory.
func TestSimulateSplitEqualsOneTable(t *testing.T) {
	dir := t.TempDir()
	mlog := filepath.Join(dir, "mecanum.csv")
	writeMecanumLog(t, mlog, [][4]float64{{8, 8, 8, 8}, {-6, 6, -6, 6}}, 1)
	mparams := writeFile(t, dir, "mu.json", `{"model": "mecanum", "mu": [0.4, 0.5, 0.6, 0.5]}`)
	tlog := filepath.Join(dir, "tire.csv")
	writeTireLog(t, tlog, tire.Jackal(), []int{0, 1})
	tparams := writeFile(t, dir, "tire.json", `{"model": "tire"}`)
	for _, c := range []struct {
		model, log, params, heading string
		cmds                        []string
	}{
		{"mecanum", mlog, mparams, "theta", []string{"w1", "w2", "w3", "w4"}},
		{"tire", tlog, tparams, "psi", []string{"wl", "wr"}},
	} {
		sub := filepath.Join(dir, c.model)
		os.Mkdir(sub, 0o755)
		cmds, poses := splitLog(t, sub, c.log, c.cmds, c.heading)
		st, one, se := runCLI("simulate", "-model", c.model, "-params", c.params, "-controls", c.log)
		if st != 0 {
			t.Fatalf("%s one table: %d %q", c.model, st, se)
		}
		st, two, se := runCLI("simulate", "-model", c.model, "-params", c.params, "-controls", cmds, "-poses", poses)
		if st != 0 {
			t.Fatalf("%s split: %d %q", c.model, st, se)
		}
		a, b := strings.Split(one, "\n"), strings.Split(two, "\n")
		if len(a) != len(b) {
			t.Fatalf("%s: %d lines vs %d", c.model, len(a), len(b))
		}
		worst := 0.0
		for i := 1; i < len(a); i++ {
			fa, fb := strings.Split(a[i], ","), strings.Split(b[i], ",")
			for k := range fa {
				var va, vb float64
				if _, err := fmt.Sscan(fa[k], &va); err != nil {
					continue
				}
				fmt.Sscan(fb[k], &vb)
				worst = math.Max(worst, math.Abs(va-vb))
			}
		}
		if worst > 1e-9 || len(a) < 100 {
			t.Errorf("%s: one table and split files differ by %g (%d lines)", c.model, worst, len(a))
		}
	}
}

// BenchmarkRealLikeIdentifyCLI is item 6 of issue 10 as the whole command:
// 8 six-second real-like recordings (16 files: PWM commands and camera),
// command map, onset offsets, μ and free start poses with -loss squared.
func BenchmarkRealLikeIdentifyCLI(b *testing.B) {
	dir := b.TempDir()
	data, poses := writeRealLike(b, dir, mecanum.RealLikeTrain, 6, 1)
	init := filepath.Join(dir, "map.json")
	os.WriteFile(init, []byte(realMap), 0o644)
	out := filepath.Join(dir, "mu.json")
	b.ResetTimer()
	for range b.N {
		if st, _, e := runCLI("identify", "-model", "mecanum", "-init", init, "-data", data, "-poses", poses, "-offset", "auto", "-loss", "squared", "-out", out, "-quiet"); st != 0 {
			b.Fatal(e)
		}
	}
}

// A skid-steer log whose channels are named and signed otherwise, read
// through the parameter file's command_map, simulates like the plain log;
// identify carries the map into its output.
func TestSkidsteerCommandMap(t *testing.T) {
	dir := t.TempDir()
	var plain, raw strings.Builder
	plain.WriteString("t,vc,wc,x,y,psi\n")
	raw.WriteString("t,turn,speed,x,y,psi\n")
	for k := range 300 {
		tt := float64(k) * 0.05
		vc, wc := 0.5+0.2*math.Sin(tt), 0.4*math.Cos(0.7*tt)
		pose := ",,"
		if k == 0 {
			pose = "0,0,0"
		}
		fmt.Fprintf(&plain, "%g,%g,%g,%s\n", tt, vc, wc, pose)
		fmt.Fprintf(&raw, "%g,%g,%g,%s\n", tt, -wc*100, vc*1000, pose)
	}
	p1 := writeFile(t, dir, "p.json", `{"model": "skidsteer", "a": [[0.01,0,0],[0,0.02,0],[0,-0.3,0]]}`)
	p2 := writeFile(t, dir, "pm.json", `{"model": "skidsteer", "a": [[0.01,0,0],[0,0.02,0],[0,-0.3,0]], "command_map": {"columns": ["speed", "turn"], "scale": [0.001, -0.01]}}`)
	st, a, se := runCLI("simulate", "-model", "skidsteer", "-params", p1, "-controls", writeFile(t, dir, "plain.csv", plain.String()))
	if st != 0 {
		t.Fatal(se)
	}
	st, b, se := runCLI("simulate", "-model", "skidsteer", "-params", p2, "-controls", writeFile(t, dir, "raw.csv", raw.String()))
	if st != 0 {
		t.Fatal(se)
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) || len(la) < 300 {
		t.Fatalf("%d vs %d lines", len(la), len(lb))
	}
	var xa, xb float64
	fmt.Sscanf(strings.Split(la[len(la)-2], ",")[1], "%g", &xa)
	fmt.Sscanf(strings.Split(lb[len(lb)-2], ",")[1], "%g", &xb)
	if math.Abs(xa-xb) > 1e-9 || xa == 0 {
		t.Errorf("final x: plain %g, mapped %g", xa, xb)
	}
	bad := writeFile(t, dir, "bad.json", `{"model": "skidsteer", "a": [[0,0,0],[0,0,0],[0,0,0]], "command_map": {"columns": ["speed", "speed"]}}`)
	if st, _, se := runCLI("simulate", "-model", "skidsteer", "-params", bad, "-controls", writeFile(t, dir, "raw2.csv", raw.String())); st == 0 || !strings.Contains(se, "named twice") {
		t.Errorf("repeated map column: status %d, %q", st, se)
	}
}
