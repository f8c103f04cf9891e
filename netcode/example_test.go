package netcode_test

import (
	"crypto/rand"
	"fmt"
	"net/netip"
	"time"

	"github.com/tether-net/tether/netcode"
)

// A backend mints a token; a client and a server complete the handshake and
// exchange a payload, with the "network" being direct function calls.
func Example() {
	const protocolID = 0x7e7e
	key, _ := netcode.GenerateKey(rand.Reader)
	serverAddr := netip.MustParseAddrPort("127.0.0.1:40000")
	clientAddr := netip.MustParseAddrPort("127.0.0.1:50000")
	now := time.Now()

	token, err := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
		ProtocolID:      protocolID,
		ClientID:        42,
		ServerAddresses: []netip.AddrPort{serverAddr},
		Now:             now,
	})
	if err != nil {
		panic(err)
	}
	server, _ := netcode.NewServer(netcode.ServerConfig{
		ProtocolID:    protocolID,
		PrivateKey:    key,
		PublicAddress: serverAddr,
		Rand:          rand.Reader,
	})
	client, _ := netcode.NewClient(netcode.ClientConfig{})
	client.Connect(now, token)

	// Deliver every queued packet until both sides are quiet.
	pump := func() {
		for moved := true; moved; {
			moved = false
			for p, _, ok := client.Transmit(); ok; p, _, ok = client.Transmit() {
				moved = true
				if slot, payload, err := server.Receive(now, clientAddr, p); err == nil && payload != nil {
					fmt.Printf("server got %q from slot %d\n", payload, slot)
				}
			}
			for p, _, ok := server.Transmit(); ok; p, _, ok = server.Transmit() {
				moved = true
				if payload, err := client.Receive(now, serverAddr, p); err == nil && payload != nil {
					fmt.Printf("client got %q\n", payload)
				}
			}
		}
	}
	pump()
	fmt.Println("client:", client.State())
	for e, ok := server.PollEvent(); ok; e, ok = server.PollEvent() {
		fmt.Println("server:", e.Kind, "client id", e.ClientID)
	}

	client.SendPayload(now, []byte("hello"))
	server.SendPayload(now, client.ClientIndex(), []byte("welcome"))
	pump()
	// Output:
	// client: connected
	// server: connected client id 42
	// server got "hello" from slot 0
	// client got "welcome"
}

// Tokens travel as 2048 bytes, for example over HTTPS from the backend.
func ExampleConnectToken_MarshalBinary() {
	key, _ := netcode.GenerateKey(rand.Reader)
	tok, _ := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
		ProtocolID:      1,
		ClientID:        7,
		ServerAddresses: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:40000")},
		Now:             time.Unix(1_700_000_000, 0),
		Expiry:          time.Minute,
	})
	b, _ := tok.MarshalBinary()
	var back netcode.ConnectToken
	if err := back.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	fmt.Println(len(b), back.ExpireTimestamp-back.CreateTimestamp, back.TimeoutSeconds, back.ServerAddresses)
	// Output: 2048 60 10 [127.0.0.1:40000]
}
