package robots_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/robots"
)

// A plan around obstacles reaches the goal; its CSV rolls out under the
// model's own step to the poses it lists; the refined plan costs no more
// energy than SBMPO's.
func TestSkidSteerPlan(t *testing.T) {
	dir := t.TempDir()
	par := filepath.Join(dir, "p.json")
	obs := filepath.Join(dir, "obs.csv")
	os.WriteFile(par, []byte(`{"model": "skidsteer", "a": [[0.015, -0.0004, -0.010], [0.007, 0.015, -0.007], [0.005, -0.405, 0.119]], "surface": {"mu_o": 1.209, "mu_i": 0.795, "K": 0.0016}}`), 0o644)
	os.WriteFile(obs, []byte("x,y,r\n3,2.5,0.15\n5,5,0.15\n"), 0o644)
	req := robots.PlanRequest{ParamsPath: par, Start: [3]float64{1, 1, 0}, Goal: [2]float64{9, 9}, ObstaclesPath: obs,
		Obstacles: []robots.Obstacle{{X: 7.5, Y: 7.2, R: 0.15}}, Speed: 0.6, Area: [4]float64{0, 10, 0, 10}, Plot: true}
	plain, err := robots.SkidSteer{}.Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	req.Refine = true
	refined, err := robots.SkidSteer{}.Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	if !(refined.Energy <= plain.Energy) || len(refined.Lines) != 3 || !strings.HasPrefix(refined.Lines[1], "SBMPO:") {
		t.Errorf("energy: SBMPO %.1f J, refined %.1f J; lines %q", plain.Energy, refined.Energy, refined.Lines)
	}
	var b bytes.Buffer
	if err := refined.Write(&b); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(b.String()), "\n")
	last := strings.Split(rows[len(rows)-1], ",")
	x, _ := strconv.ParseFloat(last[3], 64)
	y, _ := strconv.ParseFloat(last[4], 64)
	if d := math.Hypot(x-9, y-9); d > 0.3 {
		t.Errorf("the plan ends %.2f m from the goal", d)
	}
	if f := refined.Figure; f == nil || f.Series[0].Name != "obstacles" || len(f.Series) != 3+2+1 {
		t.Errorf("figure %+v", f)
	}
	for _, c := range []struct {
		req  robots.PlanRequest
		want string
	}{
		{robots.PlanRequest{ParamsPath: par, Speed: 3}, "-speed"},
		{robots.PlanRequest{ParamsPath: par, Speed: 0.6, Payload: -1}, "-payload"},
	} {
		var ue robots.UsageError
		if _, err := (robots.SkidSteer{}).Plan(c.req); !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.req, err)
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("x,y,r\n1,2,-0.1\n"), 0o644)
	if _, err := robots.ReadObstacles(bad); err == nil || !strings.Contains(err.Error(), `line 2, column "r"`) {
		t.Errorf("negative radius: %v", err)
	}
}
