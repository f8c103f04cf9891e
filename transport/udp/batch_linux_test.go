package udp

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestBatchRoundTrip passes more datagrams than one batch holds from a peer
// to a batcher and back, over IPv4 and IPv6 loopback: every payload arrives
// in order with its source and a kernel arrival stamp, and every reply
// reaches the peer. A round trip of a full batch allocates nothing.
func TestBatchRoundTrip(t *testing.T) {
	for _, tc := range []struct{ network, addr string }{{"udp4", "127.0.0.1:0"}, {"udp6", "[::1]:0"}} {
		t.Run(tc.network, func(t *testing.T) {
			la := net.UDPAddrFromAddrPort(netip.MustParseAddrPort(tc.addr))
			srv, err := net.ListenUDP(tc.network, la)
			if err != nil {
				t.Skipf("no %s loopback: %v", tc.network, err)
			}
			defer srv.Close()
			peer, err := net.ListenUDP(tc.network, la)
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			peer.SetReadDeadline(time.Now().Add(10 * time.Second)) // a hung test fails instead
			b := newBatcher(srv)
			if b == nil {
				t.Fatal("no batcher for a UDP socket on Linux")
			}
			w := writer{pio: newPacketIO(srv), b: b}
			srvAddr, peerAddr := addrOf(srv), addrOf(peer)

			const count = batchSize + batchSize/2
			before := time.Now()
			for i := range count {
				if _, err := peer.WriteToUDPAddrPort([]byte(fmt.Sprintf("datagram %d", i)), srvAddr); err != nil {
					t.Fatal(err)
				}
			}
			got := 0
			for reads := 0; got < count; reads++ {
				if reads == 100 {
					t.Fatalf("received %d of %d datagrams", got, count)
				}
				n, err := b.recv()
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					p, from := b.received(i)
					if want := fmt.Sprintf("datagram %d", got); string(p) != want {
						t.Fatalf("datagram %d reads %q", got, p)
					}
					if from != peerAddr {
						t.Fatalf("datagram %d from %v, want %v", got, from, peerAddr)
					}
					if st := b.stamp(i); st.Before(before.Add(-time.Second)) || st.After(time.Now().Add(time.Second)) {
						t.Fatalf("datagram %d stamped %v, sent after %v", got, st, before)
					}
					if failed := w.write(append([]byte("reply "), p...), from); failed != 0 {
						t.Fatalf("%d replies failed", failed)
					}
					got++
				}
			}
			if failed := w.flush(); failed != 0 {
				t.Fatalf("%d replies failed", failed)
			}
			buf := make([]byte, readBufSize)
			for i := range count {
				n, from, err := peer.ReadFromUDPAddrPort(buf)
				if err != nil {
					t.Fatalf("reply %d: %v", i, err)
				}
				if want := fmt.Sprintf("reply datagram %d", i); string(buf[:n]) != want || from != srvAddr {
					t.Fatalf("reply %d: %q from %v, want %q from %v", i, buf[:n], from, want, srvAddr)
				}
			}

			if raceEnabled {
				return // the race detector allocates
			}
			payload := bytes.Repeat([]byte{0xa5}, 100)
			allocs := testing.AllocsPerRun(20, func() {
				for range batchSize {
					peer.WriteToUDPAddrPort(payload, srvAddr)
				}
				for got := 0; got < batchSize; {
					n, err := b.recv()
					if err != nil {
						t.Fatal(err)
					}
					for i := range n {
						p, from := b.received(i)
						b.stamp(i)
						w.write(p, from)
					}
					got += n
				}
				w.flush()
				for range batchSize {
					peer.ReadFromUDPAddrPort(buf)
				}
			})
			if allocs != 0 {
				t.Errorf("a round trip of %d datagrams allocates %v times", batchSize, allocs)
			}
		})
	}
}

// TestSockaddr encodes addresses as the kernel's sockaddr_in and
// sockaddr_in6 and decodes them back.
func TestSockaddr(t *testing.T) {
	for _, tc := range []struct {
		to    string
		inet6 bool
		want  string // decoded; "" when the socket cannot reach it
	}{
		{"127.0.0.1:7777", false, "127.0.0.1:7777"},
		{"[::ffff:10.1.2.3]:1", false, "10.1.2.3:1"},
		{"[::1]:65535", false, ""},
		{"[::1]:65535", true, "[::1]:65535"},
		{"127.0.0.1:7777", true, "[::ffff:127.0.0.1]:7777"},
		{"[fe80::1%3]:9", true, "[fe80::1%3]:9"},
		{"[fe80::1%no-such-interface]:9", true, ""},
	} {
		var sa sockaddr
		ok := encodeSockaddr(&sa, netip.MustParseAddrPort(tc.to), tc.inet6)
		if ok != (tc.want != "") {
			t.Errorf("encode %s (inet6 %v): ok = %v", tc.to, tc.inet6, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := decodeSockaddr(sa[:]).String(); got != tc.want {
			t.Errorf("encode %s (inet6 %v), decode: %s, want %s", tc.to, tc.inet6, got, tc.want)
		}
	}
	if got := decodeSockaddr(nil); got.IsValid() {
		t.Errorf("decode of nothing: %v", got)
	}
}
