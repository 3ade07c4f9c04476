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
// The same Config writes the same bytes: every random draw takes a seed
// derived from Config.Seed and what it is for.
package synth
