package match

import (
	"crypto/rand"
	"errors"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/transport/udp"
)

// BrowserSlots is how many of the server's client slots a Live match keeps
// for browsers (ServeBrowsers): the last ones, when the server has more than
// that many.
const BrowserSlots = 8

// udpSlots is how many of max slots the match's UDP transport serves.
func udpSlots(max int) int {
	if max > BrowserSlots {
		return max - BrowserSlots
	}
	return max
}

// firstBrowserID is the first client id of the connect tokens BrowserToken
// mints: above the bots' (their index plus one).
const firstBrowserID = 1 << 32

// ServeBrowsers serves the match's last BrowserSlots slots over conn (a
// tether/transport/ws Listener, whose LocalAddr is the address its page is
// served on), beside the bots' UDP: a browser's client speaks netcode over
// it with a token from BrowserToken, and plays as any client does. The
// match owns conn from then on; Close closes it.
func (l *Live) ServeBrowsers(conn net.PacketConn) error {
	ua, ok := conn.LocalAddr().(*net.UDPAddr)
	if !ok {
		return errors.New("tether/match: ServeBrowsers: conn's LocalAddr is not an IP address and port")
	}
	addr := ua.AddrPort()
	max := l.core.Config().MaxClients
	err := l.srv.Serve(conn, udpSlots(max), udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: ProtocolID, PrivateKey: l.key, PublicAddress: addr, MaxClients: BrowserSlots},
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.browserAddr = addr
	l.mu.Unlock()
	return nil
}

// BrowserLeft frees at once the slot of the browser whose connection from
// addr has closed (a closed tab sends no disconnect, so netcode would wait
// for its timeout): give it to the browser transport's close hook
// (ws.ListenerConfig.OnClose). It reports whether a browser was connected
// from addr.
func (l *Live) BrowserLeft(addr net.Addr) (bool, error) {
	t, ap := l.browserTransport(addr)
	if t == nil {
		return false, nil
	}
	return t.DisconnectAddr(ap)
}

// BrowserConnected reports whether a browser is connected from addr (on
// the browser transport): it completed the handshake with a valid token.
// Give it to the browser transport's handshake check
// (ws.ListenerConfig.Established).
func (l *Live) BrowserConnected(addr net.Addr) bool {
	t, ap := l.browserTransport(addr)
	return t != nil && t.HasClient(ap)
}

// browserTransport returns the browsers' transport (ServeBrowsers) and
// addr as an address on it, or nil if there is none or addr is not one.
func (l *Live) browserTransport(addr net.Addr) (*udp.Server, netip.AddrPort) {
	l.mu.Lock()
	browsers := l.browserAddr
	l.mu.Unlock()
	ua, ok := addr.(*net.UDPAddr)
	if !ok || !browsers.IsValid() {
		return nil, netip.AddrPort{}
	}
	for _, t := range l.srv.Transports() {
		if a, ok := t.Addr().(*net.UDPAddr); ok && a.AddrPort() == browsers {
			return t, ua.AddrPort()
		}
	}
	return nil, netip.AddrPort{}
}

// BrowserToken mints a connect token for one browser client of the match
// (see ServeBrowsers), with a client id of its own and netcode's default
// expiry (30 s) and timeout (10 s). It is what a matchmaker would hand out.
func (l *Live) BrowserToken() (*netcode.ConnectToken, error) {
	l.mu.Lock()
	addr := l.browserAddr
	l.browsers++
	id := uint64(firstBrowserID) + l.browsers
	l.mu.Unlock()
	if !addr.IsValid() {
		return nil, errors.New("tether/match: BrowserToken before ServeBrowsers")
	}
	return netcode.NewConnectToken(rand.Reader, &l.key, netcode.TokenParams{
		ProtocolID: ProtocolID, ClientID: id, ServerAddresses: []netip.AddrPort{addr}, Now: time.Now(),
	})
}
