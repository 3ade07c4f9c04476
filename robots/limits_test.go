package robots

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// warthogLog converts DRIVE's raw Warthog log (../shared/data beside the
// repository; the test skips without it) into a skid-steer log: t, vc, wc
// from the commanded body velocity, x, y, psi from the ICP pose. shift
// moves the y of the ICP pose fresh at (or after) row shiftRow, and of its
// repeats, by dy, and returns its line.
func warthogLog(t *testing.T, shiftRow int, dy float64) (string, int) {
	t.Helper()
	var raw string
	for _, up := range []string{"..", "../..", "../../.."} {
		if p := filepath.Join(up, "shared", "data", "drive-warthog", "grass-raw.csv"); fileExists(p) {
			raw = p
			break
		}
	}
	if raw == "" {
		t.Skip("DRIVE's Warthog log (shared/data/drive-warthog beside the repository) is absent")
	}
	f, err := os.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var b strings.Builder
	b.WriteString("t,vc,wc,x,y,psi\n")
	var t0 int64
	shifted, prevX, done := -1, "", 0
	for i, r := range recs[2:] { // the first data row is all zeros
		ns, err := strconv.ParseInt(r[col["ros_time"]], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			t0 = ns
		}
		num := func(c string) float64 {
			v, err := strconv.ParseFloat(r[col[c]], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		qx, qy, qz, qw := num("icp_quat_x"), num("icp_quat_y"), num("icp_quat_z"), num("icp_quat_w")
		psi := math.Atan2(2*(qw*qz+qx*qy), 1-2*(qy*qy+qz*qz))
		y := num("icp_pos_y")
		fresh := r[col["icp_pos_x"]] != prevX
		prevX = r[col["icp_pos_x"]]
		switch {
		case dy != 0 && i >= shiftRow && fresh && shifted < 0:
			shifted = i + 2 // its file line: header first
			y += dy
		case shifted > 0 && !fresh && done == 0:
			y += dy // the pose's repeats until the next ICP message
		case shifted > 0 && fresh:
			done = 1
		}
		fmt.Fprintf(&b, "%.9f,%s,%s,%s,%.17g,%.17g\n", float64(ns-t0)/1e9, r[col["cmd_vel_x"]], r[col["cmd_vel_omega"]], r[col["icp_pos_x"]], y, psi)
	}
	p := filepath.Join(t.TempDir(), "warthog.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, shifted
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The Warthog's ICP (fresh poses at ~1.4 Hz on a moving robot, stamped on
// arrival) raises no position-outlier warning: the midpoint test had 99
// false alarms on it; a pose 1.9 m off is named by its line.
func TestWarthogPoseOutliers(t *testing.T) {
	outliers := func(path string) []string {
		d := NewDiag(nil)
		if _, err := readSkidSteerLog(d, Source{Path: path}, skidsteer.Params{}, ""); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range d.Warnings {
			if strings.Contains(w.Msg, "columns x, y") || strings.Contains(w.Msg, "beyond what the robot") {
				out = append(out, w.String())
			}
		}
		return out
	}
	clean, _ := warthogLog(t, 0, 0)
	if ws := outliers(clean); len(ws) != 0 {
		t.Fatalf("the Warthog's ICP: %d warnings, the first %s", len(ws), ws[0])
	}
	bad, line := warthogLog(t, 3385, 1.9) // fresh ICP poses 0.25 s apart there
	ws := outliers(bad)
	if len(ws) != 1 || !strings.Contains(ws[0], fmt.Sprintf("line %d: columns x, y", line)) {
		t.Fatalf("one ICP pose 1.9 m off at line %d: %v", line, ws)
	}
}

// withCell copies the CSV at src into dir with column col of line (1-based)
// set to val.
func withCell(t *testing.T, src, col string, line int, val string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	head := strings.Split(lines[0], ",")
	f := strings.Split(lines[line-1], ",")
	for i, h := range head {
		if h == col {
			f[i] = val
		}
	}
	lines[line-1] = strings.Join(f, ",")
	p := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A command of 1e308 on one row of every model's sample log is warned,
// naming the file's line and the column (issue 26.4: the tyre, Pioneer and
// diffdrive models saturate it, and validate printed a fit of ~99 %
// without a word); the sample logs themselves get no such warning.
func TestImplausibleCommands(t *testing.T) {
	read := map[string]func(src Source, d *Diag) error{
		"tire": func(src Source, d *Diag) error { _, _, err := readTireLog(src, d); return err },
		"pioneer": func(src Source, d *Diag) error {
			_, err := readPioneerLog(src, true, d)
			return err
		},
		"diffdrive": func(src Source, d *Diag) error { _, err := diffDriveLog(d, src, true); return err },
		"skidsteer": func(src Source, d *Diag) error {
			_, err := readSkidSteerLog(d, src, skidsteer.Params{}, "")
			return err
		},
		"mecanum": func(src Source, d *Diag) error { _, err := mecanumRuns(d, []Source{src}, nil, ""); return err },
	}
	for _, c := range []struct {
		model, log, col string
	}{
		{"tire", "../models/tire/testdata/jackal.csv", "wl"},
		{"pioneer", "../models/pioneer/testdata/p3dx.csv", "v_ref"},
		{"diffdrive", "../models/diffdrive/calibrate/testdata/wheelchair.csv", "uf"},
		{"mecanum", "../models/mecanum/testdata/commands.csv", "w3"},
	} {
		implausible := func(path string) []string {
			d := NewDiag(nil)
			src := Source{Path: path}
			if c.model == "mecanum" {
				src.Poses = "../models/mecanum/testdata/camera.csv"
			}
			if err := read[c.model](src, d); err != nil {
				t.Fatalf("%s: %v", c.model, err)
			}
			var out []string
			for _, w := range d.Warnings {
				if strings.Contains(w.Msg, "beyond what the robot can do") {
					out = append(out, w.String())
				}
			}
			return out
		}
		if ws := implausible(c.log); len(ws) != 0 {
			t.Errorf("%s sample log: %v", c.model, ws)
		}
		ws := implausible(withCell(t, c.log, c.col, 301, "1e308"))
		want := fmt.Sprintf("line 301: column %s: 1e+308", c.col)
		if len(ws) != 1 || !strings.Contains(ws[0], want) {
			t.Errorf("%s, %s = 1e308 on line 301: %v, want %q", c.model, c.col, ws, want)
		}
	}
}

// One motion-capture sample 1.9 m off among the tyre log's ~1,000 (issue
// 26.2: Kx, Ky came out 2.4× the truth, "determined", no warning) is
// warned of by line, and the fit turns robust (soft-L1 at 3× the pose
// noise): μ, Kx, Ky within 3 % of the truth and 4σ, as on the clean log.
func TestTireRobustToOutlier(t *testing.T) {
	if testing.Short() {
		t.Skip("identifies (~3 s)")
	}
	b, err := os.ReadFile("../models/tire/testdata/jackal.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	ycol := slices.Index(strings.Split(lines[0], ","), "y")
	row := 300
	for strings.Split(lines[row], ",")[ycol] == "" {
		row++
	}
	log := withCell(t, "../models/tire/testdata/jackal.csv", "y", row+1, fmt.Sprint(mustFloat(t, strings.Split(lines[row], ",")[ycol])+1.9))
	out, err := Tire{}.IdentifyWith(IdentifyRequest{Sources: []Source{{Path: log}}}, TireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := out.Report
	if !strings.Contains(r.Method, "soft-L1") {
		t.Errorf("method %q: want the robust loss", r.Method)
	}
	warned := false
	for _, w := range r.Warnings {
		warned = warned || (w.Row == row+1 && strings.Contains(w.Msg, "columns x, y"))
	}
	if !warned {
		t.Errorf("no outlier warning at line %d: %v", row+1, r.Warnings)
	}
	truth := map[string]float64{"mu": 0.45, "Kx": 220, "Ky": 160}
	for _, q := range r.Params {
		want := truth[q.Name]
		if math.Abs(q.Value/want-1) > 0.03 || !(q.Std > 0) || math.Abs(q.Value-want) > 4*q.Std || !q.Determined() {
			t.Errorf("%s = %.4g ± %.2g, truth %g", q.Name, q.Value, q.Std, want)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
