package robots_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/pioneer"
	"github.com/wheelgrad/wheelgrad/robots"
)

const pioneerLog = "../models/pioneer/testdata/p3dx.csv"

// The Pioneer adapter as a library user calls it: identify from the
// sample log, simulate its references, validate the fit on it.
func TestPioneerAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies (~2 s)")
	}
	var m robots.Pioneer
	src := []robots.Source{{Path: pioneerLog}}
	out, err := m.IdentifyWith(robots.IdentifyRequest{Sources: src}, robots.PioneerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := out.Params.(pioneer.Params)
	if p.Form != pioneer.FormExperimental || out.Refused != nil || out.Outcome != nil {
		t.Fatalf("form %q, refused %v, outcome %v", p.Form, out.Refused, out.Outcome)
	}
	r := out.Report
	if r.Model != "pioneer" || r.Status == nil || !r.Status.Converged || !(r.Residual.RMS > 0 && r.Residual.RMS < 0.1) {
		t.Errorf("report: model %q, status %+v, residual %+v", r.Model, r.Status, r.Residual)
	}
	// every fitted parameter with a σ or a reason, the delays by search
	names := map[string]fit.Param{}
	for _, q := range r.Params {
		names[q.Name] = q
		if math.IsNaN(q.Std) && q.StdReason == "" {
			t.Errorf("%s: no σ and no reason", q.Name)
		}
	}
	dv, _ := p.Delays()
	if q, ok := names["delay_v"]; !ok || q.Value != float64(dv) || !strings.Contains(q.StdReason, "search") {
		t.Errorf("delay_v %+v, parameters %d", q, dv)
	}
	if q := names["acc_v"]; !(q.Std > 0 && q.Std < 0.1*q.Value) || q.Value != p.AccV {
		t.Errorf("acc_v %+v (parameters %g)", q, p.AccV)
	}
	if len(r.Warnings) == 0 || len(out.Report.Lines) < 3 {
		t.Errorf("warnings %v, lines %q", r.Warnings, r.Lines)
	}

	// simulate: one row per log row, t, v, w, traj
	sim, err := m.Simulate(robots.SimulateRequest{Params: p, Source: src[0]})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := sim.Write(&b); err != nil {
		t.Fatal(err)
	}
	in, _ := os.ReadFile(pioneerLog)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "t,v,w,traj" || len(lines) != len(strings.Split(strings.TrimSpace(string(in)), "\n")) {
		t.Errorf("simulated CSV: header %q, %d lines", lines[0], len(lines))
	}

	// validate: MATLAB compare's fit % of v and ω above 80 % per run
	runs, err := m.Validate(robots.ValidateRequest{Params: p, Sources: src})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2 (traj)", len(runs))
	}
	for _, run := range runs {
		for _, c := range run.Channels {
			if f, _, _ := c.Fit(); !(f > 80) {
				t.Errorf("run %s, %s: fit %.1f %%", run.ID, c.Name, f)
			}
		}
		if len(run.Start) != 2 || run.StartNames[0] != "v" || len(run.Track.T) == 0 {
			t.Errorf("run %s: start %v %v, track %d", run.ID, run.Start, run.StartNames, len(run.Track.T))
		}
	}

	// -fix holds a parameter at its start value: it is not fitted
	start := pioneer.Default(pioneer.FormExperimental)
	fixed, err := m.IdentifyWith(robots.IdentifyRequest{Sources: src, Fix: []string{"acc_v", "dec_v"}}, robots.PioneerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fp := fixed.Params.(pioneer.Params)
	if fp.AccV != start.AccV || fp.DecV != start.DecV || fp.AccW == start.AccW {
		t.Errorf("-fix acc_v,dec_v: acc_v %g dec_v %g (start %g %g), acc_w %g", fp.AccV, fp.DecV, start.AccV, start.DecV, fp.AccW)
	}
	for _, q := range fixed.Report.Params {
		if q.Name == "acc_v" {
			t.Errorf("held acc_v reported as fitted")
		}
	}
}

// Usage mistakes are UsageErrors; bad files name the file, line and column.
func TestPioneerAdapterErrors(t *testing.T) {
	var m robots.Pioneer
	var ue robots.UsageError
	if _, err := m.Identify(robots.IdentifyRequest{Options: map[string]string{"form": "dynamic"}}); !errors.As(err, &ue) {
		t.Errorf("-form dynamic: %v", err)
	}
	if _, err := m.IdentifyWith(robots.IdentifyRequest{Fix: []string{"KR"}}, robots.PioneerOptions{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "KR") {
		t.Errorf("-fix KR (a physical parameter) for the experimental form: %v", err)
	}
	init := pioneer.Default(pioneer.FormPhysical)
	if _, err := m.IdentifyWith(robots.IdentifyRequest{Init: init, InitPath: "p.json"}, robots.PioneerOptions{Form: "experimental"}); !errors.As(err, &ue) {
		t.Errorf("-form experimental with a physical start: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("t,v_ref,w_ref,v,w\n0,0,0,0,0\n0.1,x,0,0,0\n"), 0o644)
	_, err := m.Simulate(robots.SimulateRequest{Params: init, Source: robots.Source{Path: bad}})
	if err == nil || !strings.Contains(err.Error(), "bad.csv") || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "v_ref") {
		t.Errorf("bad cell: %v", err)
	}
	pj := filepath.Join(dir, "p.json")
	os.WriteFile(pj, []byte(`{"model": "pioneer", "form": "experimental", "KR": 1}`), 0o644)
	if _, _, err := m.ReadParams(pj, robots.ForPrediction); err == nil || !strings.Contains(err.Error(), `"KR"`) {
		t.Errorf("a physical key in an experimental file: %v", err)
	}
}
