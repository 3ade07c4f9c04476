// Package baseline is Luo et al.'s purely data-driven comparison (§VII-B):
// a 3-32-4 network from the pose change over one control segment to the
// command that produced it, trained on the identification logs, against
// which the experiments measure control synthesis through the model.
package baseline
