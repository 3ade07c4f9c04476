// Package synth generates a synthetic fleet for the fleet pipeline (issue
// 27): many robots of the built-in models, each with its own true
// parameters, logging every day; some drift by design from a day on (tyre
// wear, a payload, a weakening motor), some robot-days bring a broken log.
//
// Write(dir, cfg) writes dir/manifest.csv in the pipeline's format
// (robot,model,day,data,poses,map,offset,init; paths relative to dir; day
// is 1, 2, ...), per robot ROBOT/init.json (the model's nominal start, as
// its ParamReader reads a minimal file) and per robot-day ROBOT/DAY/log.csv,
// and returns the Truth: every robot's true parameters per day, its drift,
// and the broken logs with the substring of the error the toolkit gives
// for each.
//
// The logs come from the toolkit itself: a robot-day's commands are drawn
// (piecewise constant, from a seed derived from the robot and the day), the
// model's own Simulator (robots registry) rolls out the robot's true
// parameters, and the log departs from that model as a real one does:
// sensor noise on the outputs (sparse where the sensor is slower than the
// commands), a difference between the logged commands and what drove the
// simulation (actuator mismatch), and timing jitter of the logged clock.
// What the generator knows of each model (its inputs, outputs and noise,
// which parameters spread and drift) is one table, specs in models.go.
//
// A log's clock is seconds since midnight, started between 8 h and 18 h.
// Config.Logs gives a robot-day several logs, one manifest row each.
//
// Drift is by design and clear: each model's table entry names the
// physical changes a robot may undergo from a day on (mecanum: a worn
// roller, μ2 +30 %, or a payload on the front axle, μ1 and μ2 +25 %;
// skidsteer: tyre wear, a11 −0.06, or a payload, a32 +25 %), of a size a
// 3 σ test flags with room to spare (in the 40 × 5 fleet of seed 1, the
// change between the days before and after the drift is 29–47 σ for
// mecanum and 10–23 σ for skidsteer, σ the two fits' σ combined). Steady
// robots wobble by 0.1 % (1 % of a coefficient's spread) a day, well below
// σ. SigmaScale says how far each model's own σ is from its error on
// these logs (mecanum's understates it about 2.4×).
//
// Broken robot-days (steady robots only) come in six kinds, given in
// turn: a NaN in an output column, a missing command column, a time that
// does not increase, an empty file, a truncated last row, and "still" (a
// log that reads but cannot be fitted: every command zero). Truth.Broken
// holds each with the substring of the error `wheelgrad identify` gives.
//
// The same Config writes the same bytes: every random draw takes a seed
// derived from Config.Seed and what it is for.
package synth
