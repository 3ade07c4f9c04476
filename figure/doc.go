// Package figure writes the PNG figures of the command line and the
// experiments (trajectories, predictions, loss curves) with gonum/plot, in one
// colour-blind-safe style, atomically (a failed write leaves no file).
package figure
