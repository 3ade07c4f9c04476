package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/robots"
)

// wheelchairDriver is a user's own model registered beside the built-in ones: a
// robots.Driver (here the differential drive's adapter under another name).
type wheelchairDriver struct{ robots.DiffDrive }

func (wheelchairDriver) Name() string    { return "wheelchair" }
func (wheelchairDriver) Summary() string { return "a user's wheelchair" }

// follow drives any registered robots.Driver, and its DriveFlags say which
// model-specific flags it takes.
func TestFollowRegisteredDriver(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", followDiffDriveParams)
	out := filepath.Join(dir, "c.csv")
	reg := robots.Default().With(wheelchairDriver{})
	var o, e bytes.Buffer
	st := Run([]string{"follow", "-model", "wheelchair", "-params", params, "-path", "circle", "-duration", "8", "-umax", "90", "-out", out, "-quiet"}, reg, &o, &e)
	if st != 0 || !strings.Contains(e.String(), "follow: wheelchair, circle: 34 segments × uf, ul") {
		t.Fatalf("status %d, stderr %q", st, e.String())
	}
	readControls(t, out, []string{"uf", "ul"}, []string{"x", "y", "theta"}, 136, 4, 0.06, []float64{90, 90}, [3]float64{0, 0, 0})
	o.Reset()
	e.Reset()
	os.Remove(out)
	st = Run([]string{"follow", "-model", "mecanum", "-params", params, "-path", "circle", "-umax", "50", "-out", out}, reg, &o, &e)
	if want := "-umax applies to -model diffdrive and wheelchair only"; st != 2 || !strings.Contains(e.String(), want) {
		t.Errorf("status %d, stderr %q; want 2 and %q", st, e.String(), want)
	}
}
