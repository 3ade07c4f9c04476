package fit

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// In an asynchronous log the gap is in the command stream: sensor rows
// inside it do not bridge it, and sensor rows after the last command are
// no gap (the last command holds).
func TestCommandGapsAsynchronous(t *testing.T) {
	var tt []float64
	var cmd []bool
	for k := 0; k < 100; k++ { // commands every 4 ms, a camera row every 16 ms
		tc := 0.004 * float64(k)
		if k >= 50 && k < 60 {
			tc = -1 // 40 ms without commands
		}
		if tc >= 0 {
			tt, cmd = append(tt, tc), append(cmd, true)
		}
		if k%4 == 1 {
			tt, cmd = append(tt, 0.004*float64(k)+0.001), append(cmd, false)
		}
	}
	for k := 1; k <= 10; k++ { // camera rows after the commands end
		tt, cmd = append(tt, tt[len(tt)-1]+0.016), append(cmd, false)
	}
	isCmd := func(i int) bool { return cmd[i] }
	rows, prev, med := CommandGaps(tt, isCmd)
	if len(rows) != 1 || math.Abs(tt[rows[0]]-0.24) > 1e-12 || math.Abs(tt[prev[0]]-0.196) > 1e-12 || math.Abs(med-0.004) > 1e-12 {
		t.Fatalf("gaps at %v after %v (median %g); want one, from t = 0.196 to 0.24, median 0.004", rows, prev, med)
	}
	if all, _, _ := CommandGaps(tt, nil); len(all) != 0 {
		t.Errorf("every row as a command row: gaps %v, want none (the sensor rows fill the stretch)", all)
	}
	pieces, ws, err := ApplyGaps(GapsSplit, tt, isCmd, true, nil)
	if err != nil || len(ws) != 0 || len(pieces) != 2 || pieces[0][1] != prev[0]+1 || pieces[1][0] != rows[0] || pieces[1][1] != len(tt) {
		t.Errorf("split: %v, %v; want [0, %d) and [%d, %d)", pieces, err, prev[0]+1, rows[0], len(tt))
	}
	errAt := func(row int, msg string) error { return fmt.Errorf("row %d: %s", row, msg) }
	_, _, err = ApplyGaps(GapsError, tt, isCmd, true, errAt)
	if want := fmt.Sprintf("row %d: time gap of 0.044 s", rows[0]); err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "-gaps split") {
		t.Errorf("error: %v, want %q… naming -gaps split", err, want)
	}
	_, _, err = ApplyGaps(GapsSplit, tt, isCmd, false, errAt)
	if err == nil || strings.Contains(err.Error(), "-gaps split") {
		t.Errorf("split where the model cannot split: %v, want an error without -gaps split", err)
	}
	pieces, ws, err = ApplyGaps(GapsBridge, tt, isCmd, true, errAt)
	if err != nil || pieces != nil || len(ws) != 1 || !strings.Contains(ws[0].Msg, "bridged 1 time gap(s) (the longest 0.044 s)") {
		t.Errorf("bridge: %v %v %v", pieces, ws, err)
	}
	if r, m := GapRows([]float64{0, 1, 2, 3, 20, 21}); len(r) != 1 || r[0] != 4 || m != 1 {
		t.Errorf("GapRows: %v %g", r, m)
	}
}
