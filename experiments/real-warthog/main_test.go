package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// The fast form (testdata/windows-sample.csv, 60 windows): the table has its
// seven rows, the command line's fits their parameters with σ and verdicts,
// and calibrating beats the nominal model on the held-out windows from
// measured and from commanded speeds; the lag beats the commands without it.
func TestFastTable(t *testing.T) {
	r, err := Run(Options{Data: Sample, Every: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.TrainWindows < 5 || r.TestWindows < 5 {
		t.Fatalf("%d training, %d test windows", r.TrainWindows, r.TestWindows)
	}
	if len(r.Rows) != 7 {
		t.Fatalf("%d rows", len(r.Rows))
	}
	byName := map[string]Row{}
	for _, row := range r.Rows {
		byName[row.Name] = row
		if !(row.Test > 0) || math.IsInf(row.Test, 0) || len(row.TestPred) != r.TestWindows {
			t.Errorf("%s: test RMS %v over %d windows", row.Name, row.Test, len(row.TestPred))
		}
		if row.Fit != nil {
			for _, p := range row.Fit.Params {
				if !p.Held && (p.Std == nil || !(*p.Std > 0)) {
					t.Errorf("%s: σ of %s is %v", row.Name, p.Name, p.Std)
				}
			}
		}
	}
	for _, c := range [][2]string{
		{"nominal, measured speeds", "calibrated, measured speeds (IPEM)"},
		{"nominal, measured speeds", "calibrated, measured speeds (windows)"},
		{"nominal, commanded speeds", "calibrated, commanded, lag τ"},
		{"calibrated, commanded, no lag", "calibrated, commanded, lag τ"},
	} {
		nom, cal := byName[c[0]], byName[c[1]]
		if !(cal.TestMean < nom.TestMean) {
			t.Errorf("%s: %.3f m, not below %s: %.3f m", c[1], cal.TestMean, c[0], nom.TestMean)
		}
	}
	var b bytes.Buffer
	r.Print(&b)
	t.Log("\n" + b.String())
	for _, want := range []string{"test RMS", "calibrated, commanded, lag τ + dead time", "tau", "±", "determined", "-inputs commanded -dead-time", "oracle"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
	if err := r.Figure(filepath.Join(t.TempDir(), "ends.png")); err != nil {
		t.Error(err)
	}
}
