package robots

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// Follow drives every built-in Driver, the Mecanum robot's graph plan and
// the others' dyn steps, along one path through one pipeline: its report,
// its controls CSV and its figure.
func TestFollowEveryDriver(t *testing.T) {
	files := map[string]string{
		"mecanum":   `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9]}`,
		"diffdrive": `{"model": "diffdrive", "c1": 0.4265, "c2": 0.006491, "alpha": 0.2315, "beta": 6.548, "gamma": 4.073, "mu": 0.1676, "l": 0.55, "h": 0.06}`,
		"skidsteer": `{"model": "skidsteer", "a": [[0.015, -0.0004, -0.010], [0.007, 0.015, -0.007], [0.005, -0.405, 0.119]]}`,
	}
	header := map[string]string{"mecanum": "t,w1,w2,w3,w4,x,y,theta", "diffdrive": "t,uf,ul,x,y,theta", "skidsteer": "t,vc,wc,x,y,psi"}
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			m, _ := Default().Get(name)
			path := writeTemp(t, "p.json", body)
			p, _, err := m.(ParamReader).ReadParams(path, ForPrediction)
			if err != nil {
				t.Fatal(err)
			}
			o := DriveOptions{Dt: 1.0 / 240, Set: map[string]bool{}, ParamsPath: path}
			d, err := m.(Driver).Drive(p, o)
			if err != nil {
				t.Fatal(err)
			}
			var report bytes.Buffer
			f, err := Follow(name, d, FollowRequest{Path: "circle", Duration: 6, Heading: "tangent", Rate: 4, Options: o, Plot: true, Report: &report})
			if err != nil {
				t.Fatalf("%v\n%s", err, report.String())
			}
			rep := report.String()
			if !strings.Contains(rep, "follow: ") || !strings.Contains(rep, "predicted") || !strings.Contains(rep, "circle") {
				t.Errorf("report:\n%s", rep)
			}
			var csv bytes.Buffer
			if err := f.WriteControls(&csv); err != nil {
				t.Fatal(err)
			}
			if first := strings.SplitN(csv.String(), "\n", 2)[0]; first != header[name] {
				t.Errorf("controls header %q, want %q", first, header[name])
			}
			if f.Figure == nil || len(f.Figure.Series) < 3 || f.Figure.Series[0].Name != "reference" || !f.Figure.Equal {
				t.Errorf("figure %+v", f.Figure)
			}
		})
	}
}

// A path in degrees and an unknown heading are UsageErrors before any
// work; a robot bounded too tightly to move does not follow, and says so.
func TestFollowRefuses(t *testing.T) {
	path := writeTemp(t, "p.json", `{"model": "mecanum", "mu": [0.6, 0.7, 0.8, 0.9]}`)
	p, _, err := Mecanum{}.ReadParams(path, ForPrediction)
	if err != nil {
		t.Fatal(err)
	}
	o := DriveOptions{Dt: 1.0 / 240, Set: map[string]bool{"theta0": true}}
	d, err := Mecanum{}.Drive(p, o)
	if err != nil {
		t.Fatal(err)
	}
	var ue UsageError
	if _, err := Follow("mecanum", d, FollowRequest{Path: "circle", Duration: 6, Heading: "tangent", Theta0: 90, Rate: 4, Options: o}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "radians") {
		t.Errorf("-theta0 90: %v", err)
	}
	if _, err := Follow("mecanum", d, FollowRequest{Path: "circle", Duration: 6, Heading: "sideways", Rate: 4, Options: o}); !errors.As(err, &ue) {
		t.Errorf("unknown heading: %v", err)
	}
	o = DriveOptions{Dt: 1.0 / 240, Wmax: 0.01, Set: map[string]bool{"wmax": true}}
	if d, err = (Mecanum{}).Drive(p, o); err != nil {
		t.Fatal(err)
	}
	var report bytes.Buffer
	if _, err := Follow("mecanum", d, FollowRequest{Path: "circle", Duration: 6, Heading: "tangent", Rate: 4, Options: o, Report: &report}); err == nil || !strings.Contains(err.Error(), "does not follow the path") || !strings.Contains(report.String(), "predicted") {
		t.Errorf("wmax 0.01: %v\n%s", err, report.String())
	}
	if _, err := (Mecanum{}).Drive(p, DriveOptions{Wmax: -1, Set: map[string]bool{"wmax": true}}); !errors.As(err, &ue) {
		t.Errorf("wmax -1: %v", err)
	}
}

func TestCheckDriveFlags(t *testing.T) {
	reg := Default()
	for _, c := range []struct {
		model, flag, want string
	}{
		{"mecanum", "umax", "-umax applies to -model diffdrive only"},
		{"diffdrive", "wmax", "-wmax applies to -model mecanum and skidsteer only"},
		{"skidsteer", "vmax", ""},
		{"diffdrive", "band", ""},
	} {
		err := reg.CheckDriveFlags(c.model, map[string]bool{c.flag: true})
		var ue UsageError
		if c.want == "" && err != nil || c.want != "" && (!errors.As(err, &ue) || err.Error() != c.want) {
			t.Errorf("%s -%s: %v, want %q", c.model, c.flag, err, c.want)
		}
	}
}
