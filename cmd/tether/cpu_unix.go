//go:build unix

package main

import (
	"syscall"
	"time"
)

// ownCPU returns this process's user and system CPU time so far, and
// whether the platform reports it.
func ownCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
