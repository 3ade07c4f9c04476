package cli

import (
	"fmt"
	"os"
)

// MaxInputBytes bounds the CSV files one command reads (all -data files of
// identify, the -controls of simulate, a follow -path file): logs are held
// in memory, at about 3–6 bytes per byte of CSV for the mecanum, diffdrive
// and skidsteer commands (measured by experiments/scale; tire, which
// integrates many steps per row, has its own step limits), so 1 GiB of logs
// stays within a few GB rather than exhausting the machine. Larger logs are
// refused up front, before reading.
const MaxInputBytes = 1 << 30

// checkInputSize refuses files whose total size is above MaxInputBytes,
// naming them. A file it cannot stat is left to the reader's own error.
func checkInputSize(files ...string) error {
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		total += st.Size()
		if total > MaxInputBytes {
			what := f
			if len(files) > 1 {
				what = fmt.Sprintf("%s (with the files before it)", f)
			}
			return fmt.Errorf("%s: %.3g GB of CSV, above wheelgrad's limit of %.3g GB per command (logs are held in memory, 3–6 bytes per byte of CSV): split the log into parts (files or traj runs) and use a part", what, float64(total)/1e9, float64(MaxInputBytes)/1e9)
		}
	}
	return nil
}
