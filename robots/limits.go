package robots

import (
	"math"

	"github.com/wheelgrad/wheelgrad/fit"
	"github.com/wheelgrad/wheelgrad/models/skidsteer"
)

// Each built-in model's physical limits, in its log's units, for the
// plausibility checks written once in fit (Implausible, and the speed
// against which PoseOutlierWarnings judges a sparse tracker). They are
// generous — two to ten times what the robots of the papers do — so that
// they flag a corrupt value (a command of 1e308) or a column in another
// unit, never a fast run of a real robot. Where an adapter already warns
// of a likely unit (skid-steer vc above 5 m/s, diffdrive vr, vl above
// 5 m/s), the limit lies above that warning's threshold.
var (
	// The Mecanum robot of Luo et al.: wheel speeds w1..w4 (rad/s).
	mecanumLimits = fit.Limits{Speed: 4, Columns: []fit.ColumnLimit{
		{Name: "w1", Max: 200, Unit: "rad/s"}, {Name: "w2", Max: 200, Unit: "rad/s"},
		{Name: "w3", Max: 200, Unit: "rad/s"}, {Name: "w4", Max: 200, Unit: "rad/s"}}}
	// The Jackal of Westerhout et al. (2 m/s, wheel radius 0.098 m: 20 rad/s).
	tireLimits = fit.Limits{Speed: 5, Columns: []fit.ColumnLimit{
		{Name: "wl", Max: 100, Unit: "rad/s"}, {Name: "wr", Max: 100, Unit: "rad/s"}}}
	// Skid-steer robots from the Pioneer 3-AT to the Warthog (5 m/s).
	skidSteerLimits = fit.Limits{Speed: 5, Columns: []fit.ColumnLimit{
		{Name: "vc", Max: 20, Unit: "m/s"}, {Name: "wc", Max: 20, Unit: "rad/s"},
		{Name: "wl_cmd", Max: 100, Unit: "rad/s"}, {Name: "wr_cmd", Max: 100, Unit: "rad/s"}}}
	// The Pioneer 3-DX (1.2 m/s, 5.2 rad/s).
	pioneerLimits = fit.Limits{Speed: 3, Columns: []fit.ColumnLimit{
		{Name: "v_ref", Max: 5, Unit: "m/s"}, {Name: "w_ref", Max: 20, Unit: "rad/s"},
		{Name: "v", Max: 5, Unit: "m/s"}, {Name: "w", Max: 20, Unit: "rad/s"}}}
	// Park et al.'s wheelchair: joystick commands on a ±100 scale, wheel
	// rim speeds in m/s.
	diffDriveLimits = fit.Limits{Speed: 5, Columns: []fit.ColumnLimit{
		{Name: "uf", Max: 1000, Unit: ""}, {Name: "ul", Max: 1000, Unit: ""},
		{Name: "vr", Max: 20, Unit: "m/s"}, {Name: "vl", Max: 20, Unit: "m/s"}}}
)

// skidSteerImplausible warns of a skid-steer log's commands beyond the
// limits (skidSteerLimits) and of its pose outliers, judged against the
// motion possible between samples (the Warthog's ICP: fresh poses at
// ~1.4 Hz, stamped on arrival).
func skidSteerImplausible(file string, runs []skidsteer.Run) []fit.Warning {
	var ws []fit.Warning
	for _, r := range runs {
		ws = append(ws, Implausible(file, r.Origin, skidSteerLimits, map[string][]float64{
			"vc": r.Vc, "wc": r.Wc, "wl_cmd": r.WlCmd, "wr_cmd": r.WrCmd})...)
		x, y := make([]float64, len(r.T)), make([]float64, len(r.T))
		for k := range r.T {
			x[k], y[k] = math.NaN(), math.NaN()
		}
		for _, k := range r.PoseRows() {
			x[k], y[k] = r.Pose[k].X, r.Pose[k].Y
		}
		ws = append(ws, PoseOutliers(file, r.T, x, y, skidSteerLimits.Speed, r.Origin)...)
	}
	return ws
}
