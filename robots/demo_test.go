package robots

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// The demo's numbers, as a library user gets them: μ identified from the
// camera logs, the figure 8 executed on the true robot, ζ calibrated.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo (about 10 s)")
	}
	d, err := RunDemo(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := d.Mecanum
	for j := range 4 {
		if math.Abs(m.Identified[j]-m.True[j]) > 0.02 {
			t.Errorf("μ%d identified %.4f, true %.4f", j+1, m.Identified[j], m.True[j])
		}
	}
	if p, ok := m.Params.(mecanum.Params); !ok || p.Model != "mecanum" || p.Mu[2] != m.Identified[2] {
		t.Errorf("parameter file %+v: want the identified μ", m.Params)
	}
	// The log reads back as the model's log, three runs of 7 s.
	var b bytes.Buffer
	if err := m.WriteLog(&b); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(log, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := mecanum.ReadLog(log, mecanum.LogOptions{NeedPose: true})
	if err != nil || len(runs) != 3 || math.Abs(runs[2].T[len(runs[2].T)-1]-m.Duration) > 0.01 {
		t.Errorf("the demo's log reads back as %d runs (%v)", len(runs), err)
	}
	// Per run: the friction-free path, the camera, the model, the ticks
	// and the start marker.
	CheckFigure(t, "demo fit", m.Figure, 5*m.Runs)

	tr := d.Figure8.Executed.Tracking
	t.Logf("figure 8 on the true robot: RMS %.1f mm, max %.1f mm, on time %.1f mm, %.0f %% of the right lobe backwards",
		1e3*tr.RMS, 1e3*tr.Max, 1e3*tr.OnTimeRMS, 100*tr.ReversedRight)
	if d.Figure8.Follow.Plan.K != 160 || tr.RMS > 0.02 || tr.Max > 0.05 || tr.ReversedRight < 0.95 || tr.ForwardLeft < 0.95 {
		t.Errorf("figure 8 of %d segments: RMS %.4f m, max %.4f m, reversed right %.2f, forward left %.2f",
			d.Figure8.Follow.Plan.K, tr.RMS, tr.Max, tr.ReversedRight, tr.ForwardLeft)
	}

	dd := d.DiffDrive
	for i, n := range dd.Names {
		if e := math.Abs(dd.Fitted[i]-dd.True[i]) / dd.True[i]; e > 0.1 || math.Abs(dd.Start[i]-dd.True[i])/dd.True[i] < 0.15 {
			t.Errorf("%s: true %.4g, start %.4g, fitted %.4g (%.1f %% off)", n, dd.True[i], dd.Start[i], dd.Fitted[i], 100*e)
		}
	}
	if p, ok := dd.Params.(diffdrive.Params); !ok || p.Zeta()[0] != dd.Fitted[0] {
		t.Errorf("calibrated parameter file %+v: want the fitted ζ", dd.Params)
	}
	if len(dd.T) != 1000 || len(dd.Calibrated) != 1000 || len(dd.Measured) != 1000 {
		t.Errorf("figure series of %d, %d, %d points: want one minute at h = 0.06 s", len(dd.T), len(dd.Calibrated), len(dd.Measured))
	}
	b.Reset()
	if err := dd.WriteLog(&b); err != nil {
		t.Fatal(err)
	}
	tab, err := dataset.Read(&b, "dd.csv", dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}, {Name: "uf"}, {Name: "ul"}, {Name: "vr"}, {Name: "vl"}}})
	if err != nil || tab.Len() != dd.Rows {
		t.Errorf("the diffdrive log reads back with %v rows (%v), want %d", tab, err, dd.Rows)
	}

	// The tables and figures as the demo shows them.
	var text strings.Builder
	m.WriteText(&text)
	d.Figure8.WriteText(&text)
	dd.WriteText(&text)
	for _, want := range []string{
		fmt.Sprintf("   %-10s %8.3f %8.3f %8.3f %8.3f\n", "identified", m.Identified[0], m.Identified[1], m.Identified[2], m.Identified[3]),
		fmt.Sprintf("distance to the curve   RMS %.1f mm", 1e3*tr.RMS),
		"2. Figure 8, 40 s, right lobe driven backwards: 160 × 4 wheel commands",
		fmt.Sprintf("   %-6s %10.4g %10.4g %10.4g", "μ", dd.True[5], dd.Start[5], dd.Fitted[5]),
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("demo text lacks %q:\n%s", want, text.String())
		}
	}
	CheckFigure(t, "demo figure 8", d.Figure8.Figure(), 2)
	CheckFigure(t, "demo diffdrive", dd.Figure(), 3)
}
