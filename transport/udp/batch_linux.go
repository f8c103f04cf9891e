package udp

import (
	"net"
	"syscall"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

const dontWait = syscall.MSG_DONTWAIT

var errWouldBlock error = syscall.EAGAIN

// newBatcher returns recvmmsg/sendmmsg access to conn: through x/net's ipv4
// PacketConn for a socket bound to an IPv4 address, ipv6 otherwise (a
// dual-stack socket carries IPv4 as mapped addresses).
func newBatcher(conn *net.UDPConn) batcher {
	if ua, ok := conn.LocalAddr().(*net.UDPAddr); ok && ua.IP.To4() != nil {
		return ipv4.NewPacketConn(conn)
	}
	return ipv6.NewPacketConn(conn) // its Message is the same type as ipv4's
}
