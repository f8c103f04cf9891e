//go:build !unix

package main

import "time"

// ownCPU returns this process's CPU time so far, and whether the platform
// reports it: not here.
func ownCPU() (time.Duration, bool) { return 0, false }
