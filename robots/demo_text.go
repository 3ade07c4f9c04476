package robots

import (
	"fmt"
	"image/color"
	"io"
	"time"
)

// The demo's tables and figures, as `wheelgrad demo` shows them.

// WriteText writes the identification's table: true and identified μ, and
// the optimiser's iterations, evaluations and wall time.
func (m *MecanumDemo) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\n1. Mecanum robot: wheel friction from %d camera logs (%g s each, 240-Hz commands, 60-Hz camera, σ = 3 mm)\n\n", m.Runs, m.Duration)
	fmt.Fprintf(w, "   %-10s %8s %8s %8s %8s\n", "", "μ1", "μ2", "μ3", "μ4")
	fmt.Fprintf(w, "   %-10s %8.3f %8.3f %8.3f %8.3f\n", "true", m.True[0], m.True[1], m.True[2], m.True[3])
	fmt.Fprintf(w, "   %-10s %8.3f %8.3f %8.3f %8.3f\n", "identified", m.Identified[0], m.Identified[1], m.Identified[2], m.Identified[3])
	fmt.Fprintf(w, "\n   %s: %d iterations, %d evaluations, %s wall\n", m.Method, m.Iterations, m.Evaluations, m.Wall.Round(time.Millisecond))
}

// WriteText writes the figure 8's synthesis and how the true robot
// executed it.
func (f8 *Figure8Demo) WriteText(w io.Writer) {
	plan, syn, tr := f8.Follow.Plan, f8.Follow.Synthesis.Synthesis, f8.Executed.Tracking
	fmt.Fprintf(w, "\n2. Figure 8, %g s, right lobe driven backwards: %d × 4 wheel commands (%g per second, |ω_s| ≤ %g rad/s)\n\n", f8.Path.Duration(), plan.K, f8.Follow.Req.Rate, plan.Wmax)
	fmt.Fprintf(w, "   synthesis        %d L-BFGS-B iterations, %d evaluations, %s\n", syn.Iterations, syn.Evaluations, syn.Runtime.Round(time.Millisecond))
	fmt.Fprintf(w, "   executed on the true robot (true μ, exact simulation):\n")
	fmt.Fprintf(w, "   distance to the curve   RMS %.1f mm, max %.1f mm\n", 1e3*tr.RMS, 1e3*tr.Max)
	fmt.Fprintf(w, "   on time                 RMS %.1f mm\n", 1e3*tr.OnTimeRMS)
	fmt.Fprintf(w, "   driven backwards        %.0f %% of the right lobe; forwards %.0f %% of the left\n", 100*tr.ReversedRight, 100*tr.ForwardLeft)
}

// Figure is the reference figure 8 and the executed run, coloured by the
// sense of travel.
func (f8 *Figure8Demo) Figure() *Figure {
	return &Figure{Title: "Figure 8, right lobe driven backwards", XLabel: "x (m)", YLabel: "y (m)", Equal: true,
		Series: append([]Series{ReferenceSeries(f8.Path)}, SenseSeries("executed", f8.Executed.Poses, f8.Executed.Velocity)...)}
}

// WriteText writes the calibration's table: ζ true, at the start and
// fitted, with the error, and the optimiser's work.
func (dd *DiffDriveDemo) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\n3. Differential drive (Kikuuwe friction): calibration from a %.0f-s log (%d rows at h = %.2f s, castor hang-ups, spikes)\n\n", dd.Seconds, dd.Rows, dd.H)
	fmt.Fprintf(w, "   %-6s %10s %10s %10s %8s\n", "", "true", "start", "fitted", "error")
	for i, n := range dd.Names {
		fmt.Fprintf(w, "   %-6s %10.4g %10.4g %10.4g %7.1f%%\n", n, dd.True[i], dd.Start[i], dd.Fitted[i], 100*(dd.Fitted[i]-dd.True[i])/dd.True[i])
	}
	fmt.Fprintf(w, "\n   %d segments of 50 steps, %d L-BFGS-B iterations, %d evaluations, %s\n", dd.Segments, dd.Iterations, dd.Evaluations, dd.Runtime.Round(time.Millisecond))
}

// Figure is one minute of the log: the measured forward speed and the
// predictions from rest with the start and the calibrated parameters.
func (dd *DiffDriveDemo) Figure() *Figure {
	return &Figure{Title: "Differential drive: forward speed, first minute of the log", XLabel: "t (s)", YLabel: "v (m/s)", Series: []Series{
		{Name: "measured", X: dd.T, Y: dd.Measured, RGB: color.RGBA{160, 160, 160, 255}},
		{Name: "start parameters", X: dd.T, Y: dd.StartPrediction, Color: 2, Dashed: true},
		{Name: "calibrated", X: dd.T, Y: dd.Calibrated, Color: 1},
	}}
}
