package netsim

import (
	"encoding/binary"
	"net"
	"testing"
)

// A router sends to each routed peer through that peer's direction, and to
// any other address straight.
func TestRouter(t *testing.T) {
	raw, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRouter(raw)
	defer r.Close()
	slow, straight := udpPair(t)
	r.Route(slow.LocalAddr().(*net.UDPAddr).AddrPort(), Direction{LatencyMs: 10000}, 1)
	for i := range 10 {
		b := binary.BigEndian.AppendUint32(nil, uint32(i))
		for _, to := range []net.PacketConn{slow, straight} {
			if n, err := r.WriteTo(b, to.LocalAddr()); err != nil || n != 4 {
				t.Fatalf("write: %d, %v", n, err)
			}
		}
	}
	if got := receive(t, straight, 10); len(got) != 10 {
		t.Fatalf("unrouted peer got %d of 10", len(got))
	}
	if got := receive(t, slow, 1); len(got) != 0 {
		t.Fatalf("peer routed through a 10 s link got %d", len(got))
	}
}
