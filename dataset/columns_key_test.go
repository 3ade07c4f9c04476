package dataset

import (
	"errors"
	"strings"
	"testing"
)

// A row filter on a column's value modulo k: DRIVE's windows split into
// training (even calib_step) and test (odd) without a script (issue 28).
func TestFilterModulo(t *testing.T) {
	log := writeTemp(t, "w.csv", "window,calib_step,t,wl\n0,0,0,1\n0,0,1,1\n1,1,2,2\n1,1,3,2\n2,2,4,3\n2,2,5,3\n3,-1,6,4\n3,-1,7,4\n")
	spec := Spec{Columns: []Column{{Name: "t"}, {Name: "wl"}}, Time: "t"}
	for _, c := range []struct {
		filter string
		want   []float64
	}{{"calib_step%2=0", []float64{1, 1, 3, 3}}, {"calib_step % 2 = 1", []float64{2, 2, 4, 4}}, {"calib_step%3>=1", []float64{2, 2, 3, 3, 4, 4}}} {
		f, err := ParseFilter(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := ReadLog(log, spec, LogOptions{Columns: &ColumnMap{Where: []Filter{f}}})
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if got := tab.Col("wl"); !slicesEqual(got, c.want) {
			t.Errorf("%s keeps wl %v, want %v", c.filter, got, c.want)
		}
	}
	for _, bad := range []string{"calib_step%0=1", "calib_step%2=odd"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	f, _ := ParseFilter("t%2=0")
	frac := writeTemp(t, "f.csv", "t,wl\n0,1\n0.5,1\n")
	_, err := ReadLog(frac, Spec{Columns: []Column{{Name: "t"}, {Name: "wl"}}, Time: "t"}, LogOptions{Columns: &ColumnMap{Where: []Filter{f}}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(err.Error(), "whole number") {
		t.Errorf("a fraction taken modulo 2: %v, want an error at line 3", err)
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A parameter file's "columns" object is the column map of -columns: the
// parameter reader skips it, ReadColumnsKey reads it, the command line's
// entries override it.
func TestColumnsKeyInAParameterFile(t *testing.T) {
	path := writeTemp(t, "p.json", `{"model": "skidsteer", "r": 0.3,
  "columns": {"t": "ros_time:ns", "wl": "meas_left_vel*2", "psi": "quat(qx,qy,qz,qw)"},
  "track": 1.08}`)
	var p struct {
		Model string  `json:"model"`
		R     float64 `json:"r"`
		Track float64 `json:"track"`
	}
	if err := ReadJSON(path, &p, JSONOptions{Strict: true}); err != nil {
		t.Fatalf("a strict reader refuses the columns key: %v", err)
	}
	if p.R != 0.3 || p.Track != 1.08 {
		t.Errorf("read %+v", p)
	}
	m, raw, err := ReadColumnsKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 3 || raw["wl"] != "meas_left_vel*2" {
		t.Fatalf("map %+v, raw %v", m.Entries, raw)
	}
	e, _ := m.entry("wl")
	if e.Sources[0] != "meas_left_vel" || e.Scale != 2 {
		t.Errorf("wl: %+v", e)
	}
	flags, _ := ParseColumnMap("wl=left")
	f, _ := ParseFilter("ros_time>0")
	flags.Where, flags.From = []Filter{f}, 5
	o := m.Override(flags)
	if e, _ := o.entry("wl"); e.Sources[0] != "left" || e.Scale != 1 {
		t.Errorf("the flag's wl does not win: %+v", e)
	}
	if e, _ := o.entry("t"); e.Unit != "ns" {
		t.Errorf("the file's t is lost: %+v", e)
	}
	if len(o.Where) != 1 || o.From != 5 || len(m.Entries) != 3 {
		t.Errorf("override: where %v from %g; the file's map changed: %d entries", o.Where, o.From, len(m.Entries))
	}
	if m.Override(nil) != m || (*ColumnMap)(nil).Override(flags) != flags {
		t.Error("override with nil")
	}
	if _, _, err := ReadColumnsKey(writeTemp(t, "n.json", `{"r": 1}`)); err != nil {
		t.Errorf("no columns key: %v", err)
	}
	for _, c := range []struct{ text, want string }{
		{`{"columns": {"wl": 3}}`, "not a valid string"},
		{`{"columns": ["wl=a"]}`, "columns"},
		{`{"columns": {"wl": "a:furlong"}}`, "furlong"},
	} {
		_, _, err := ReadColumnsKey(writeTemp(t, "bad.json", c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v, want an error naming the file and %s", c.text, err, c.want)
		}
	}
}

// yaw:rad unwraps a recorder's ±π jumps within each run (DRIVE's windows
// record yaw that may wrap).
func TestColumnMapRadiansUnwrapped(t *testing.T) {
	log := writeTemp(t, "y.csv", "t,yaw\n0,3.1\n1,-3.1\n2,-3.0\n")
	m, err := ParseColumnMap("psi=yaw:rad")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := ReadLog(log, Spec{Columns: []Column{{Name: "t"}, {Name: "psi"}}, Time: "t"}, LogOptions{Columns: m})
	if err != nil {
		t.Fatal(err)
	}
	got := tab.Col("psi")
	want := []float64{3.1, 2*3.141592653589793 - 3.1, 2*3.141592653589793 - 3.0}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("psi %v, want %v", got, want)
		}
	}
}
