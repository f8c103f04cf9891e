package tether_test

import (
	"crypto/rand"
	"fmt"
	"math"
	"net"
	"net/netip"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
	"github.com/tether-net/tether/timeline"
	"github.com/tether-net/tether/transport/udp"
)

// dots is the whole game: every player is a dot that walks where its input
// points, at 3 m/s. Its input is one byte (0 stand, 1 east, 2 west).
type dots struct {
	on    [8]bool    // by client slot: playing
	x, vx [8]float64 // position and velocity along x, m and m/s
	in    [8]byte    // the newest input
}

func (g *dots) Join(c int) (uint32, error) {
	if c >= len(g.x) {
		return 0, fmt.Errorf("full")
	}
	g.on[c], g.x[c] = true, 0
	return uint32(c), nil
}
func (g *dots) Leave(c int) { g.on[c] = false }
func (g *dots) Input(c int, in server.Input) {
	if len(in.Data) == 1 {
		g.in[c] = in.Data[0]
	}
}
func (g *dots) Step(t server.Tick, _ server.Emitter) bool {
	for c := range g.x {
		switch g.in[c] {
		case 1:
			g.vx[c] = 3
		case 2:
			g.vx[c] = -3
		default:
			g.vx[c] = 0
		}
		g.x[c] += g.vx[c] * t.Dt.Seconds()
	}
	return false
}

// dotsSchema declares what is replicated: one kind of entity, the dot,
// whose position and velocity along x go to a millimetre (per second). The
// layer codes each client's snapshot against what it acknowledged.
var dotsSchema, _ = replica.NewSchema(replica.Kind{Name: "dot",
	Fields: []replica.Field{replica.Position(1000, replica.X), replica.Velocity(1000, replica.X)}})

func (g *dots) Replication() (*replica.Schema, replica.Config) { return dotsSchema, replica.Config{} }

// Replicate: every dot playing, its id its slot.
func (g *dots) Replicate(w *replica.World) {
	for c := range g.x {
		if g.on[c] {
			w.Add(replica.Entity{ID: uint32(c), State: kinematic.State{Pos: geom.V(g.x[c], 0, 0), Vel: geom.V(g.vx[c], 0, 0)}})
		}
	}
}

// dotsView is the client side: the same schema, and how to draw.
type dotsView struct{}

func (dotsView) Schema() *replica.Schema        { return dotsSchema }
func (dotsView) Timeline(uint8) timeline.Config { return timeline.Config{} }
func (dotsView) RenderClock() timeline.Config   { return timeline.Config{} }

// A server and a client of the smallest game, over real UDP on loopback: the
// client walks its dot east and watches it move.
func Example() {
	key, _ := netcode.GenerateKey(rand.Reader)
	const protocolID = 0x646f7473 // names the game and its version

	// The server: the game, the sans-I/O core, the UDP driver.
	core, _ := server.New(server.Config{}, &dots{})
	sconn, _ := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	srv, err := server.ServeUDP(sconn, core, udp.ServerConfig{
		Netcode: netcode.ServerConfig{ProtocolID: protocolID, PrivateKey: key}})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	// What a matchmaking backend does: mint a connect token for the server.
	token, _ := netcode.NewConnectToken(rand.Reader, &key, netcode.TokenParams{
		ProtocolID: protocolID, ClientID: 1, Now: time.Now(),
		ServerAddresses: []netip.AddrPort{sconn.LocalAddr().(*net.UDPAddr).AddrPort()}})

	// The client: the game's view, the core, the UDP driver, which calls
	// OnFrame at 60 Hz with what to draw and sends the input it returns.
	view, _ := client.New(client.Config{}, dotsView{})
	walked := make(chan float64, 1)
	start := math.NaN()
	cconn, _ := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	cl, err := client.DialUDP(cconn, token, view, client.UDPConfig{OnFrame: func(f *client.Frame) []byte {
		if me := f.Find(f.Self); f.HasSelf && me != nil {
			if math.IsNaN(start) {
				start = me.Pos.X
			}
			if d := me.Pos.X - start; d > 1 {
				select {
				case walked <- d:
				default:
				}
			}
		}
		return []byte{1} // walk east
	}})
	if err != nil {
		panic(err)
	}
	defer cl.Close()

	select {
	case <-cl.Connected():
		fmt.Println("connected")
	case <-time.After(10 * time.Second): // a guard against a hang, not a measurement
		fmt.Println("not connected")
	}
	select {
	case <-walked:
		fmt.Println("my dot walked a metre east")
	case <-time.After(10 * time.Second): // a guard against a hang, not a measurement
		fmt.Println("no dot walked")
	}
	// Output:
	// connected
	// my dot walked a metre east
}
