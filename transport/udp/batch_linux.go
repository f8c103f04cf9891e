package udp

import (
	"encoding/binary"
	"net"
	"syscall"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sys/unix"
)

const dontWait = syscall.MSG_DONTWAIT

var errWouldBlock error = syscall.EAGAIN

// newBatcher returns recvmmsg/sendmmsg access to conn: through x/net's ipv4
// PacketConn for a socket bound to an IPv4 address, ipv6 otherwise (a
// dual-stack socket carries IPv4 as mapped addresses).
func newBatcher(conn *net.UDPConn) batcher {
	enableTimestamps(conn)
	if ua, ok := conn.LocalAddr().(*net.UDPAddr); ok && ua.IP.To4() != nil {
		return ipv4.NewPacketConn(conn)
	}
	return ipv6.NewPacketConn(conn) // its Message is the same type as ipv4's
}

// oobSize holds one SCM_TIMESTAMPNS control message.
var oobSize = unix.CmsgSpace(16)

// enableTimestamps asks the kernel to stamp each datagram with its arrival
// time (SO_TIMESTAMPNS, CLOCK_REALTIME), best effort.
func enableTimestamps(conn *net.UDPConn) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	})
}

// arrivalStamp returns the kernel's arrival timestamp in a datagram's
// control messages, if there is one.
func arrivalStamp(oob []byte) (time.Time, bool) {
	for len(oob) > 0 {
		h, data, rest, err := unix.ParseOneSocketControlMessage(oob)
		if err != nil {
			return time.Time{}, false
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS {
			switch len(data) {
			case 16: // 64-bit timespec
				return time.Unix(int64(binary.NativeEndian.Uint64(data)), int64(binary.NativeEndian.Uint64(data[8:]))), true
			case 8: // 32-bit timespec
				return time.Unix(int64(int32(binary.NativeEndian.Uint32(data))), int64(int32(binary.NativeEndian.Uint32(data[4:])))), true
			}
		}
		oob = rest
	}
	return time.Time{}, false
}
