// Package fleet calibrates, validates and watches many robots at once on
// Apache Beam's Go SDK (issue 27). It is a Go module of its own so that
// the toolkit and the README's two commands never build Beam.
//
// Input is a manifest (ReadManifest: robot,model,day,data[,poses,map,
// offset,init], one row per log) or a directory layout (ReadLayout:
// ROOT/ROBOT/DAY/*.csv|*.mcap|*.bag with ROOT/ROBOT/init.json as the
// robot's template). Build adds the pipeline to a Beam scope: the entries
// are grouped by robot; one worker calibrates a robot's days in order
// (CalibrateRobot: yesterday's calibration is validated on today's logs),
// robots in parallel; every outcome then goes to one writer
// (WriteOutputs), which judges drift over the whole fleet (FlagDrift) and
// writes the report files, the per-robot histories and the figure.
//
// Per robot-day the pipeline does what `wheelgrad identify -model M -data
// LOGS [-poses ...] [-offset ...] [-columns MAP] [-init P] -out` does with
// every other flag at its default — the same robots registry request
// (robots.DefaultOptions, Identified.Failure, robots.ParamsFile): the same
// parameter bytes, the same fit.Report entries — and then `wheelgrad
// validate` of the previous calibration and of the day's own on the day's
// logs (fit % and NRMSE as MATLAB compare, fit.Channel.Fit, the mean over
// the model's output channels). A parameter drifts when it moves by more
// than k σ (σ = √(σ_prev² + σ_today²) from the two reports, scaled up to
// the fleet's own spread of day-to-day changes with Config.Sigma =
// SigmaFleet); a robot-day drifts when a parameter does or the previous
// calibration's fit % is more than Config.FitDrop points below the day's
// own.
//
// Faults: a robot-day whose logs cannot be read, whose fit fails or is
// refused, or whose model panics is a dead letter (its stage and its
// error, positioned in file, line and column where the toolkit's readers
// say); it writes no parameter file and the next day is compared with the
// robot's last good calibration. The pipeline never stops for one.
// Outputs are written all or nothing: each file under a temporary name,
// renamed when complete. Nothing in them depends on the clock, on map
// order or on the parallelism: a rerun writes the same bytes.
//
// The package names no model: any model of the registry (Config.Registry,
// RegisterRegistry for a user's own) runs through its robots adapter.
package fleet
