// Package fleet calibrates, validates and watches many robots at once on
// Apache Beam's Go SDK (issue 27): per (robot, day) it reads and diagnoses
// the logs through the robots registry, identifies the model (the same
// fit.Report as `wheelgrad identify`), validates the previous calibration on
// the day's logs and flags drift. It is a Go module of its own so that the
// toolkit and the README's two commands never build Beam.
package fleet
