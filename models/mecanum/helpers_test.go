package mecanum

import "math"

var trueMu = [4]float64{0.45, 0.62, 0.38, 0.55}

// commands like the paper's: constant per trajectory, different directions.
var testCommands = [][4]float64{
	{8, 8, 8, 8},   // forward
	{-6, 6, -6, 6}, // sideways
	{4, 10, 10, 4}, // forward with a turn
	{10, 5, 3, 8},  // a mixture
	{-5, 7, -4, 9}, // sideways with a turn
}

func testParams() Params {
	p := DefaultParams()
	p.Mu = trueMu[:]
	return p
}

// testRuns synthesises n runs with distinct commands and lengths.
func testRuns(n int, noise float64, seed uint64) []Run {
	p := testParams()
	var runs []Run
	for i := range n {
		r, _ := Synthesize(p, SynthSpec{
			ID: string(rune('a' + i)), Command: testCommands[i%len(testCommands)],
			Duration: 2 + 0.5*float64(i), Pose0: [3]float64{0.1 * float64(i), -0.2, 0.3 * float64(i)},
			Noise: noise, HeadNoise: noise * 3, Seed: seed + uint64(i),
		})
		runs = append(runs, r)
	}
	return runs
}

func relErr(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)
}
