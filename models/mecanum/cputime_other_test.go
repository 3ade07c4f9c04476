//go:build !linux

package mecanum

import "time"

func threadCPU() (time.Duration, bool) { return 0, false }
