package udp

import (
	"errors"
	"net"
	"net/netip"
	"os"
)

// packetIO reads and writes datagrams with netip addresses, without
// allocating when the connection is a *net.UDPConn.
type packetIO struct {
	conn net.PacketConn
	udp  *net.UDPConn
}

func newPacketIO(conn net.PacketConn) packetIO {
	u, _ := conn.(*net.UDPConn)
	return packetIO{conn: conn, udp: u}
}

func (p packetIO) read(b []byte) (int, netip.AddrPort, error) {
	if p.udp != nil {
		return p.udp.ReadFromUDPAddrPort(b)
	}
	n, a, err := p.conn.ReadFrom(b)
	if err != nil {
		return n, netip.AddrPort{}, err
	}
	if ua, ok := a.(*net.UDPAddr); ok {
		return n, ua.AddrPort(), nil
	}
	ap, perr := netip.ParseAddrPort(a.String())
	if perr != nil {
		return 0, netip.AddrPort{}, errNotUDP
	}
	return n, ap, nil
}

func (p packetIO) write(b []byte, to netip.AddrPort) error {
	if p.udp != nil {
		_, err := p.udp.WriteToUDPAddrPort(b, to)
		return err
	}
	_, err := p.conn.WriteTo(b, net.UDPAddrFromAddrPort(to))
	return err
}

var errNotUDP = errors.New("tether/transport/udp: datagram from a non-UDP address")

func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// localAddrPort returns conn's local address if it is a specific one.
func localAddrPort(conn net.PacketConn) (netip.AddrPort, bool) {
	ua, ok := conn.LocalAddr().(*net.UDPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := ua.AddrPort()
	if !ap.Addr().IsValid() || ap.Addr().IsUnspecified() {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}
