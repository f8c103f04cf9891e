//go:build !linux

package udp

import (
	"errors"
	"net"
	"time"
)

const dontWait = 0

var errWouldBlock = errors.New("tether/transport/udp: would block")

// newBatcher returns nil: x/net batches only on Linux, so elsewhere the
// Server reads and writes one datagram per system call.
func newBatcher(*net.UDPConn) batcher { return nil }

const oobSize = 0

func arrivalStamp([]byte) (time.Time, bool) { return time.Time{}, false }
