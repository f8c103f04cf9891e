package main

import (
	"net"
	"net/http"
	"net/netip"

	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/transport/ws"
)

// playHandler lets a browser join live's match as a player from the page
// served on addr: POST /play/token mints its connect token (2048 bytes;
// the place a real matchmaker plugs in) and GET /play/ws is its WebSocket,
// over which its client speaks netcode as a UDP client does. The Hub puts
// both behind its Host check.
func playHandler(live *match.Live, addr net.Addr) (http.Handler, error) {
	ap := addr.(*net.TCPAddr).AddrPort()
	if ap.Addr().IsUnspecified() {
		// The address only names the match in tokens: any IP will do.
		ap = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), ap.Port())
	}
	ln, err := ws.NewListener(ws.ListenerConfig{Addr: ap, MaxConns: 2 * match.BrowserSlots})
	if err != nil {
		return nil, err
	}
	if err := live.ServeBrowsers(ln); err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /play/ws", ln)
	mux.HandleFunc("POST /play/token", func(w http.ResponseWriter, r *http.Request) {
		tok, err := live.BrowserToken()
		var b []byte
		if err == nil {
			b, err = tok.MarshalBinary()
		}
		if err != nil {
			http.Error(w, "tether demo: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
	return mux, nil
}
