package fleet

import (
	"fmt"
	"image/color"
	"io"
	"slices"
	"sort"

	"github.com/wheelgrad/wheelgrad/figure"
)

// WriteFigure draws the fleet's parameters over days as a PNG: one panel
// per parameter (per model when the fleet mixes models), one line per
// robot against the day's rank among the fleet's days (1 = the first),
// the robots that drifted in colour and named, the steady ones grey, a
// ring where a robot-day's parameter drifted (every parameter of a day
// flagged by its fit drop alone). Failed robot-days break a robot's line.
func WriteFigure(w io.Writer, outs []Outcome) error {
	var days []string
	seenDay := map[string]bool{}
	type key struct{ model, name string }
	var keys []key
	seenKey := map[key]bool{}
	drifted := map[string]bool{}
	entries := make([][]ParamEntry, len(outs))
	for i, o := range outs {
		r := o.Report
		if !seenDay[r.Day] {
			seenDay[r.Day] = true
			days = append(days, r.Day)
		}
		ps, err := r.Entries()
		if err != nil {
			return err
		}
		entries[i] = ps
		for _, p := range ps {
			if k := (key{r.Model, p.Name}); !seenKey[k] {
				seenKey[k] = true
				keys = append(keys, k)
			}
		}
		if r.Drift {
			drifted[r.Robot] = true
		}
	}
	if len(keys) == 0 {
		return fmt.Errorf("no robot-day was calibrated: nothing to draw")
	}
	sort.SliceStable(days, func(i, j int) bool { return lessDay(days[i], days[j]) })
	rank := map[string]float64{}
	for i, d := range days {
		rank[d] = float64(i + 1)
	}
	models := map[string]bool{}
	for _, k := range keys {
		models[k.model] = true
	}
	grey := color.RGBA{R: 170, G: 170, B: 170, A: 255}
	red := color.RGBA{R: 213, G: 94, B: 0, A: 255}
	var panels []figure.Panel
	for _, k := range keys {
		title := k.name
		if len(models) > 1 {
			title = k.model + ": " + k.name
		}
		var lines, flagged []figure.Series
		var fx, fy []float64
		colour := 0
		for i := 0; i < len(outs); {
			robot := outs[i].Report.Robot
			var x, y []float64
			var segs [][2][]float64
			for ; i < len(outs) && outs[i].Report.Robot == robot; i++ {
				r := outs[i].Report
				if r.Model != k.model {
					continue
				}
				found := false
				for _, p := range entries[i] {
					if p.Name == k.name {
						x, y, found = append(x, rank[r.Day]), append(y, p.Value), true
						if r.Drift && (len(r.DriftParams) == 0 || slices.Contains(r.DriftParams, p.Name)) {
							fx, fy = append(fx, rank[r.Day]), append(fy, p.Value)
						}
					}
				}
				if !found && len(x) > 0 { // a failed day breaks the line
					segs = append(segs, [2][]float64{x, y})
					x, y = nil, nil
				}
			}
			if len(x) > 0 {
				segs = append(segs, [2][]float64{x, y})
			}
			var c color.Color = grey
			name := ""
			if drifted[robot] {
				c, name = figure.Palette[colour%len(figure.Palette)], robot
				colour++
			}
			for n, s := range segs {
				sr := figure.Series{X: s[0], Y: s[1], Color: c, Width: 1}
				if n == 0 {
					sr.Name = name
				}
				if len(s[0]) == 1 {
					sr.Points, sr.Size = true, 1.5
				}
				if drifted[robot] {
					flagged = append(flagged, sr)
				} else {
					lines = append(lines, sr)
				}
			}
		}
		ss := append(lines, flagged...) // the drifting robots drawn over the steady ones
		if len(fx) > 0 {
			ss = append(ss, figure.Series{Name: "drift flagged", X: fx, Y: fy, Points: true, Shape: "ring", Size: 4, Color: red})
		}
		panels = append(panels, figure.Panel{Title: title, XLabel: "day", YLabel: k.name, Series: ss})
	}
	cols := 3
	if len(panels) < cols {
		cols = len(panels)
	}
	return figure.WritePanels(w, "png", fmt.Sprintf("fleet parameters over %d day(s): %d drifting robot(s) in colour", len(days), len(drifted)), cols, panels)
}
