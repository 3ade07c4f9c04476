package cli

import (
	"fmt"
	"io"

	"github.com/wheelgrad/wheelgrad/models/mecanum"
)

// mecanumSourcesLag is mecanumSources; without lag the model's time to move
// is not counted (the wiring is not known yet).
func mecanumSourcesLag(e env, a IdentifyArgs, p mecanum.Params, rep io.Writer, lag bool) ([]logSource, error) {
	if a.Offset != "auto" {
		off, err := parseOffset(a.Offset)
		if err != nil {
			return nil, err
		}
		return a.sources(off), nil
	}
	srcs := a.sources(0)
	for i := range srcs {
		on, err := mecanumOnset(srcs[i], p, lag)
		if err != nil {
			return nil, err
		}
		srcs[i].Offset = on.Offset
		fmt.Fprintf(rep, "%s: offset %+.4f s added to the pose times (motion onset at pose time %.4f s, commands start at %.4f s, the model needs %.4f s to move %.3g m)\n",
			srcs[i].Path, on.Offset, on.MotionOnset, on.CommandOnset, on.Lag, on.Threshold)
	}
	return srcs, nil
}

// mecanumOnset estimates the offset of one log from its first run.
func mecanumOnset(src logSource, p mecanum.Params, lag bool) (mecanum.Onset, error) {
	st, err := mecanum.ReadStreams(src.Path, mecanum.LogOptions{Map: p.CommandMap, Sensors: src.Poses, Columns: src.Columns})
	if err != nil {
		return mecanum.Onset{}, err
	}
	if len(st.CmdT) == 0 {
		return mecanum.Onset{}, fmt.Errorf("%s: -offset auto: no command rows", src.Path)
	}
	estimate := mecanum.EstimateOnset
	if !lag {
		estimate = mecanum.EstimateOnsetNoLag
	}
	on, err := estimate(p, st.CmdT, st.W, st.CamT, st.X, st.Y, st.Theta)
	if err != nil {
		file := src.Path
		if src.Poses != "" {
			file = src.Poses
		}
		return on, fmt.Errorf("%s: -offset auto: %w", file, err)
	}
	return on, nil
}
