package robots

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/wheelgrad/wheelgrad/control"
	"github.com/wheelgrad/wheelgrad/dataset"
	"github.com/wheelgrad/wheelgrad/models/diffdrive"
	"github.com/wheelgrad/wheelgrad/models/diffdrive/calibrate"
	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// The demo (`wheelgrad demo`): the toolkit's main job on data generated
// deterministically (seeded), computed here and shown by a face.

// Demo is everything the demo finds: the Mecanum robot's friction
// identified from camera logs (Luo et al. §VI–VII-A), the wheel commands of
// a 40-s figure 8 with the right lobe driven backwards (§VII-B), and the
// differential drive calibrated from a 2,250-s wheelchair log (Park, Lee and
// Kuipers §III). Its WriteLog and Figure are the demo's files.
type Demo struct {
	Mecanum   MecanumDemo
	Figure8   Figure8Demo
	DiffDrive DiffDriveDemo
}

// MecanumDemo is the demo's Mecanum identification.
type MecanumDemo struct {
	Runs     int     // camera logs
	Duration float64 // of each log (s)
	// True and Identified are μ1..μ4 of the simulated robot and the fit.
	True, Identified [4]float64
	// Method names the optimiser(s): "L-BFGS-B", "least squares, then L1
	// Gauss–Newton" (mecanum.Result.Linearised) or "least squares, then
	// L-BFGS-B" when mecanum.Identify ran its first stage; Iterations and
	// Evaluations are of them all.
	Method                  string
	Iterations, Evaluations int
	Wall                    time.Duration // the whole identification
	// Params is the parameter file of the identified robot.
	Params Params
	// WriteLog writes the camera logs as one FORMATS.md Mecanum log (traj
	// = run id; empty pose cells between camera samples).
	WriteLog func(w io.Writer) error
	// Figure is the fit (the same figure as identify -plot of the Mecanum
	// robot): camera poses, the identified model's prediction, the
	// friction-free prediction.
	Figure *Figure
}

// Figure8Demo is the demo's figure 8, planned with the identified
// friction and executed on the true robot.
type Figure8Demo struct {
	Path     control.Path
	Follow   *WheelFollow
	Executed control.Trajectory // the controls run on the true robot (exact simulation)
}

// DiffDriveDemo is the demo's differential-drive calibration.
type DiffDriveDemo struct {
	Seconds float64 // the log's duration
	Rows    int
	H       float64 // the model's step (s)
	// Names are ζ's entries; True, Start and Fitted their values.
	Names                             []string
	True, Start, Fitted               []float64
	Segments, Iterations, Evaluations int
	Runtime                           time.Duration
	// The log's first minute: time, measured forward speed (the mean of
	// the wheel speeds), and the predictions from rest with the start and
	// the calibrated parameters.
	T, Measured, StartPrediction, Calibrated []float64
	// WriteLog writes the log (t, uf, ul, vr, vl); Params is the
	// calibrated parameter file.
	WriteLog func(w io.Writer) error
	Params   Params
}

// DemoMu is the friction of the demo's Mecanum robot.
var DemoMu = [4]float64{0.6, 0.7, 0.8, 0.9}

// demoCommands are three different constant commands: with one command μ
// is not identifiable (B's null vector), with three it is.
var demoCommands = [][4]float64{{10, 12, 8, 14}, {-12, 10, -9, 13}, {9, -11, -13, 10}}

// RunDemo runs the demo's three parts, reporting progress to sink (nil:
// none). A face that shows each part as it is done calls DemoIdentify,
// DemoFigure8 and DemoCalibrate in turn instead.
func RunDemo(sink Sink) (*Demo, error) {
	m, err := DemoIdentify(sink)
	if err != nil {
		return nil, err
	}
	f8, err := DemoFigure8(m, sink)
	if err != nil {
		return nil, err
	}
	dd, err := DemoCalibrate(sink)
	if err != nil {
		return nil, err
	}
	return &Demo{Mecanum: *m, Figure8: *f8, DiffDrive: *dd}, nil
}

// DemoIdentify identifies the Mecanum robot's μ from three 7-s camera logs
// (240-Hz commands, 60-Hz camera, σ = 3 mm) of three different constant
// commands, starting from μ = 0.5.
func DemoIdentify(sink Sink) (*MecanumDemo, error) {
	if sink == nil {
		sink = Discard
	}
	const seconds = 7
	truth := mecanum.DefaultParams()
	truth.Mu = DemoMu[:]
	var runs []mecanum.Run
	for i, c := range demoCommands {
		r, _ := mecanum.Synthesize(truth, mecanum.SynthSpec{ID: fmt.Sprint(i + 1), Command: c, Duration: seconds,
			Pose0: [3]float64{0.1 * float64(i), 0, 0.3 * float64(i)}, Noise: 0.003, HeadNoise: 0.01, Seed: uint64(i + 1)})
		runs = append(runs, r)
	}
	sink.Progress("identifying μ …")
	f, err := mecanum.NewFit(mecanum.DefaultParams(), runs, mecanum.DefaultConfig())
	if err != nil {
		sink.Done()
		return nil, err
	}
	id, err := mecanum.Identify(f, mecanum.IdentifyOptions{Init: [4]float64{0.5, 0.5, 0.5, 0.5}})
	sink.Done()
	if err != nil {
		return nil, err
	}
	method := "L-BFGS-B"
	if id.FirstStage != nil {
		method = "least squares, then L-BFGS-B"
		if id.Linearised {
			method = "least squares, then L1 Gauss–Newton"
		}
	}
	p := mecanum.DefaultParams()
	p.Model, p.Mu = "mecanum", id.Mu[:]
	return &MecanumDemo{Runs: len(runs), Duration: seconds, True: DemoMu, Identified: id.Mu,
		Method: method, Iterations: id.Opt.Iterations, Evaluations: id.Opt.FuncEvaluations, Wall: id.Wall, Params: p,
		WriteLog: func(w io.Writer) error { return writeMecanumRuns(w, runs) },
		Figure:   MecanumFitFigure(f, runs, id, mecanum.DefaultParams()),
	}, nil
}

// DemoFigure8 plans a 40-s figure 8, right lobe driven backwards, with the
// identified μ of m (4 segments a second, |ω_s| ≤ 30 rad/s), and executes
// it on the true robot (μ = m.True).
func DemoFigure8(m *MecanumDemo, sink Sink) (*Figure8Demo, error) {
	ident, truth := mecanum.DefaultParams(), mecanum.DefaultParams()
	ident.Mu, truth.Mu = m.Identified[:], m.True[:]
	model, err := mecanum.NewDrive(ident)
	if err != nil {
		return nil, err
	}
	trueModel, err := mecanum.NewDrive(truth)
	if err != nil {
		return nil, err
	}
	path := control.Figure8{A: 1, T: 40}
	f, err := PlanWheelFollow(WheelFollowRequest{Model: model, Path: path, Mode: control.Figure8ReverseRight,
		Start: control.Pose{Theta: 2.35619}, Rate: 4, Dt: 1.0 / 240, Wmax: 30, Label: "figure 8", Sink: sink})
	if err != nil {
		return nil, err
	}
	if err := f.Synthesize(); err != nil {
		return nil, err
	}
	return &Figure8Demo{Path: path, Follow: f, Executed: f.Execute(trueModel, f.Synthesis.Controls)}, nil
}

// DemoCalibrate calibrates Park et al.'s wheelchair (Kikuuwe friction)
// from a 2,250-s log with castor hang-ups and spikes, from a start 20–30 %
// off.
func DemoCalibrate(sink Sink) (*DiffDriveDemo, error) {
	if sink == nil {
		sink = Discard
	}
	dd := diffdrive.Paper()
	sink.Progress("generating the wheelchair log …")
	lg, err := diffdrive.Synthesize(dd, diffdrive.SynthConfig{Drive: diffdrive.Training, Seconds: 2250, Noise: 0.01, HangupEvery: 120, SpikeRate: 0.001, Seed: 1})
	if err != nil {
		sink.Done()
		return nil, err
	}
	z := dd.Zeta()
	for i, f := range []float64{1.3, 0.7, 0.75, 1.25, 1.3, 0.8} {
		z[i] *= f
	}
	init := dd.WithZeta(z)
	cal, err := calibrate.Calibrate(calibrate.Log{UF: lg.UF, UL: lg.UL, VR: lg.VR, VL: lg.VL}, init, calibrate.Options{
		OnIteration: func(_, iter int, loss float64) {
			sink.Progress("calibrating: iteration %d, loss %.5g", iter, loss)
		}})
	sink.Done()
	if err != nil {
		return nil, err
	}
	fz, tz, iz := cal.Params.Zeta(), dd.Zeta(), init.Zeta()
	n := int(math.Round(60 / dd.H))
	pred := func(p diffdrive.Params) []float64 {
		tr, err := p.Simulate(diffdrive.State{}, lg.UF[:n], lg.UL[:n])
		if err != nil {
			return make([]float64, n)
		}
		return tr.V
	}
	meas := make([]float64, n)
	for i := range meas {
		meas[i] = (lg.VR[i] + lg.VL[i]) / 2
	}
	return &DiffDriveDemo{Seconds: lg.T[len(lg.T)-1], Rows: len(lg.T), H: dd.H,
		Names: []string{"c1", "c2", "α", "β", "γ", "μ"}, True: tz[:], Start: iz[:], Fitted: fz[:],
		Segments: cal.Segments, Iterations: cal.Iterations, Evaluations: cal.Evaluations, Runtime: cal.Runtime,
		T: lg.T[:n], Measured: meas, StartPrediction: pred(init), Calibrated: pred(cal.Params),
		WriteLog: func(w io.Writer) error {
			return dataset.WriteCSV(w, []string{"t", "uf", "ul", "vr", "vl"}, [][]float64{lg.T, lg.UF, lg.UL, lg.VR, lg.VL})
		},
		Params: cal.Params,
	}, nil
}

// writeMecanumRuns writes runs as a FORMATS.md Mecanum log (traj = run id;
// empty pose cells between camera samples).
func writeMecanumRuns(w io.Writer, runs []mecanum.Run) error {
	cw := dataset.NewWriter(w)
	cw.WriteHeader("t", "w1", "w2", "w3", "w4", "x", "y", "theta", "traj")
	for _, r := range runs {
		for k := range r.T {
			cw.WriteRow(dataset.Num(r.T[k]), dataset.Num(r.W[k][0]), dataset.Num(r.W[k][1]), dataset.Num(r.W[k][2]), dataset.Num(r.W[k][3]),
				dataset.Num(r.X[k]), dataset.Num(r.Y[k]), dataset.Num(r.Theta[k]), dataset.Text(r.ID))
		}
	}
	return cw.Flush()
}
