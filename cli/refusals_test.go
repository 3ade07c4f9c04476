package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// One wheel command of 1e308 drives the prediction out of float64's range:
// validate refuses, naming the output, instead of printing fit % −Inf with
// exit 0; and the initial-state estimate does not hang in the SVD on the
// overflowing residuals (issue 26.4).
func TestValidateRefusesOverflow(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../models/mecanum/testdata/commands.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	f := strings.Split(lines[29], ",")
	f[1] = "1e308"
	lines[29] = strings.Join(f, ",")
	log := writeFile(t, dir, "c.csv", strings.Join(lines, "\n"))
	params := filepath.Join(dir, "p.json")
	pb, _ := json.Marshal(mecanum.DefaultParams())
	os.WriteFile(params, pb, 0o644)
	st, out, errOut := runCLI("validate", "-model", "mecanum", "-params", params, "-data", log, "-poses", "../models/mecanum/testdata/camera.csv")
	if st != 1 || !strings.Contains(errOut, "left its range") || strings.Contains(out, "Inf") {
		t.Errorf("status %d, stdout %q, stderr %q", st, out, errOut)
	}
}
