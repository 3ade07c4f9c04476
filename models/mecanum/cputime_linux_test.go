package mecanum

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the CPU time of the calling thread (the caller locks it to
// its goroutine; clock_gettime of CLOCK_THREAD_CPUTIME_ID, to the
// nanosecond): on a shared machine it counts this code's own work, where
// wall time also counts waiting for a core.
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
