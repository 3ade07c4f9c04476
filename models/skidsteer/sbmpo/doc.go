// Package sbmpo is the energy-efficient planner of Ordonez et al. §4.3 for
// a skid-steered robot: Sampling Based Model Predictive Optimization, an
// A*-type search over sampled yaw rates on the slip-calibrated kinematics
// of models/skidsteer (eqs. 2–3), costed by the terramechanic power look-up
// table of models/skidsteer/terra (eqs. 25–26), with the straight-line
// energy to the goal as the heuristic (EnergyPlanner.Plan); Refine then
// lowers the found plan's energy by gradient.
package sbmpo
