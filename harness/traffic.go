package harness

import (
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
)

// Traffic counts one client's datagrams of play (the handshake's aside),
// each way. Payload is what the cores exchanged; Wire adds, per datagram,
// netcode's header (prefix byte, sequence number, MAC) and the IPv4 and UDP
// headers: every byte on the wire.
type Traffic struct {
	PacketsUp, PayloadUp, WireUp       int64
	PacketsDown, PayloadDown, WireDown int64
}

func (t *Traffic) up(n int) {
	t.PacketsUp++
	t.PayloadUp += int64(n)
	t.WireUp += int64(n + netcode.PayloadOverhead(uint64(t.PacketsUp)) + netsim.HeaderBytes)
}

func (t *Traffic) down(n int) {
	t.PacketsDown++
	t.PayloadDown += int64(n)
	t.WireDown += int64(n + netcode.PayloadOverhead(uint64(t.PacketsDown)) + netsim.HeaderBytes)
}
