package robots

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
)

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A library user's follow: read the robot from its parameter file, plan a
// 10-s circle, synthesise, drive a different true robot open loop and in
// closed loop, write the controls CSV.
func TestWheelFollowMecanum(t *testing.T) {
	m := Mecanum{}
	model, ws, err := m.ReadDrive(writeTemp(t, "p.json", `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9]}`))
	if err != nil || len(ws) != 0 {
		t.Fatalf("ReadDrive: %v, warnings %v", err, ws)
	}
	truth, _, err := m.ReadDrive(writeTemp(t, "t.json", `{"model": "mecanum", "mu": [0.55, 0.75, 0.8, 0.95]}`))
	if err != nil {
		t.Fatal(err)
	}
	start := control.Pose{Theta: -math.Pi / 2}
	f, err := PlanWheelFollow(WheelFollowRequest{Model: model, Path: control.Circle{R: 0.5, T: 10}, Mode: control.Tangent,
		Start: start, Rate: 2, Dt: 1.0 / 240, Wmax: 30})
	if err != nil {
		t.Fatal(err)
	}
	if f.Plan.K != 20 || f.Plan.N != 120 {
		t.Fatalf("plan of %d segments × %d steps, want 20 × 120", f.Plan.K, f.Plan.N)
	}
	if err := f.Synthesize(); err != nil {
		t.Fatal(err)
	}
	pred := f.Synthesis.Predicted.Tracking
	if pred.RMS > 0.002 || pred.Max > 0.005 {
		t.Errorf("predicted RMS %.4f m, max %.4f m: want the path followed within millimetres", pred.RMS, pred.Max)
	}
	for _, c := range f.Synthesis.Controls {
		for _, w := range c {
			if math.Abs(w) > 30+1e-9 {
				t.Fatalf("command %g outside ±30", w)
			}
		}
	}
	// The prediction is the controls run through the plan's own model.
	again := f.Execute(model, f.Synthesis.Controls)
	if again.Tracking != pred {
		t.Errorf("Execute on the plan's model: %+v, the synthesis predicted %+v", again.Tracking, pred)
	}
	ol, err := f.OpenLoop(truth)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := f.RunMPC(truth, control.MPCSettings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("predicted RMS %.2f mm; on the true robot: open loop on time %.1f mm, MPC %.1f mm (%d re-plans)",
		1e3*pred.RMS, 1e3*ol.Tracking.OnTimeRMS, 1e3*cl.Tracking.OnTimeRMS, f.MPC.Replans)
	if !(ol.Tracking.OnTimeRMS > pred.OnTimeRMS) {
		t.Errorf("open loop on the true robot (%.4f m) no worse than the prediction (%.4f m): the true robot is another", ol.Tracking.OnTimeRMS, pred.OnTimeRMS)
	}
	if !(cl.Tracking.OnTimeRMS < ol.Tracking.OnTimeRMS) {
		t.Errorf("MPC on time RMS %.4f m, open loop %.4f m: feedback should help", cl.Tracking.OnTimeRMS, ol.Tracking.OnTimeRMS)
	}
	if len(f.Controls()) != 20 || &f.Controls()[0] != &f.MPC.Controls[0] {
		t.Errorf("Controls after RunMPC are not the MPC's executed ones")
	}
	var b bytes.Buffer
	if err := f.WriteControls(&b); err != nil {
		t.Fatal(err)
	}
	tab, err := dataset.Read(&b, "controls.csv", dataset.Spec{Time: "t", Columns: []dataset.Column{
		{Name: "t"}, {Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "w4"},
		{Name: "x", Sparse: true}, {Name: "y", Sparse: true}, {Name: "theta", Sparse: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 2401 || tab.Col("theta")[0] != start.Theta || tab.Col("w1")[119] != f.MPC.Controls[0][0] || tab.Col("w4")[2400] != f.MPC.Controls[19][3] {
		t.Errorf("controls CSV: %d rows, first heading %g: want 2401 rows from the start pose, each segment's command held", tab.Len(), tab.Col("theta")[0])
	}
}

func TestWheelFollowRefusals(t *testing.T) {
	if fl := (Mecanum{}).DriveFlags(); len(fl) != 1 || fl[0] != "wmax" {
		t.Errorf("Mecanum follows with %v, want only -wmax", fl)
	}
	model, ws, err := Mecanum{}.ReadDrive(writeTemp(t, "g.json", `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9], "g": 9.0}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || !strings.HasSuffix(ws[0].String(), `g.json, key "g": 9 m/s² is not the Earth's gravity (9.78–9.83)`) {
		t.Errorf("warnings %v: want the file and key named", ws)
	}
	if _, _, err := (Mecanum{}).ReadDrive(writeTemp(t, "nomu.json", `{"model": "mecanum"}`)); err == nil || !strings.Contains(err.Error(), "nomu.json") {
		t.Errorf("a file without mu: %v, want an error naming it", err)
	}
	_, err = PlanWheelFollow(WheelFollowRequest{Model: model, Path: control.Circle{R: 0.5, T: 10}, Mode: control.Tangent, Rate: 7, Dt: 1.0 / 240, Wmax: 30})
	var ue UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("rate 7 at 240 Hz: %v, want a usage error", err)
	}
	// Bounds that leave no speed: the result is kept and the error says so.
	f, err := PlanWheelFollow(WheelFollowRequest{Model: model, Path: control.Circle{R: 0.5, T: 10}, Mode: control.Tangent, Rate: 2, Dt: 1.0 / 240, Wmax: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Synthesize(); !errors.Is(err, control.ErrNotFollowed) || f.Synthesis == nil {
		t.Errorf("|ω| ≤ 0.5 rad/s on a 10-s circle: %v, want ErrNotFollowed with the result kept", err)
	}
	if err := WriteWheelControls(&bytes.Buffer{}, nil, 1, 0.1, control.Pose{}); err == nil {
		t.Error("no controls written without an error")
	}
}
