package robots

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
