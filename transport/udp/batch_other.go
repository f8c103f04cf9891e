//go:build !linux

package udp

import "net"

// newBatcher returns nil: batching is implemented on Linux only, so
// elsewhere the Server reads and writes one datagram per system call.
func newBatcher(*net.UDPConn) batcher { return nil }
