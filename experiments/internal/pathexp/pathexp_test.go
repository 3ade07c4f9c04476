package pathexp

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/wheelgrad/wheelgrad/control"
)

// Smoke test of the experiments' pipeline on the circle with short MPC
// re-plans: it must run end to end, write its figures, and show what the
// experiment claims: MPC beats open loop on the mismatched robot, and the
// data-driven network is the worst of the three.
func TestRunCircleQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("identification, synthesis and MPC")
	}
	dir := t.TempDir()
	rows, err := Run(Config{Name: "circle", Path: control.Circle{R: 0.5, T: 40}, Heading: control.Tangent,
		Theta0: -1.5708, Out: dir, Quick: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	pred, open, mpc, nn := rows[0], rows[1], rows[2], rows[3]
	t.Logf("predicted %.4f, open loop %.4f, MPC %.4f, network %.4f (RMS, m)", pred.RMS, open.RMS, mpc.RMS, nn.RMS)
	if !(pred.RMS < 0.01) || !(mpc.RMS < open.RMS) || !(nn.RMS > mpc.RMS) {
		t.Errorf("rows %+v", rows)
	}
	for _, f := range []string{"circle.png", "circle-baseline.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
