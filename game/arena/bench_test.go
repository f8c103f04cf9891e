package arena

import (
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// full returns a rig with 16 bots playing on lan links for two seconds.
func full(t testing.TB) *harness.Rig {
	g, err := NewGame(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rig, err := harness.New(harness.Config{}, g)
	if err != nil {
		t.Fatal(err)
	}
	link, _ := netsim.Preset("lan")
	for i := range 16 {
		bot := NewBot(uint64(i))
		cg, _ := NewClientGame(ClientConfig{})
		if _, err := rig.Join(0, harness.ClientConfig{Link: link, Seed: uint64(i), Game: cg,
			OnFrame: func(c *harness.Client, f *client.Frame) { c.Core().SetInput(AppendInput(nil, bot.Input(f))) }}); err != nil {
			t.Fatal(err)
		}
	}
	rig.RunUntil(2 * time.Second)
	return rig
}

// tick runs the server's next tick at its time and takes what it sends.
func tick(srv *server.Server) {
	srv.Tick(srv.NextTick())
	for {
		if _, _, ok := srv.Transmit(); !ok {
			return
		}
	}
}

// The arena's server tick with 16 players and 16 clients: the game's step
// (projectiles against players), a snapshot of 16 players to 16 clients,
// their replies, the history. (Moves are applied as they arrive, in
// Receive, not here.)
func BenchmarkServerTick16(b *testing.B) {
	srv := full(b).Server()
	b.ReportAllocs()
	for b.Loop() {
		tick(srv)
	}
}

func TestServerTickAllocs(t *testing.T) {
	srv := full(t).Server()
	for range 60 {
		tick(srv)
	}
	if n := testing.AllocsPerRun(200, func() { tick(srv) }); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}

// hitCheck returns a game with 16 players whose history is full, running
// about, and a shot's origin and aim into the crowd.
func hitCheck(t testing.TB) (*Game, geom.Vec3, geom.Vec3) {
	g, err := NewGame(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 16 {
		if _, err := g.Join(i); err != nil {
			t.Fatal(err)
		}
	}
	dt := time.Second / 60
	enc := replica.NewEncoder(g.Replication())
	w := enc.World()
	var b []byte
	for n := 1; n <= 60; n++ {
		g.now = time.Duration(n) * dt
		w.Reset()
		g.Replicate(w)
		for c := range 16 {
			b = enc.Append(b[:0], c, uint64(n), g.now, 0, 0)
		}
	}
	return g, geom.V(-HalfX+1, 0, 0), geom.V(1, 0, 0)
}

// A hitscan check against 16 players, each rewound 150 ms.
func BenchmarkHitCheck16(b *testing.B) {
	g, o, dir := hitCheck(b)
	at := g.now - 150*time.Millisecond
	b.ReportAllocs()
	for b.Loop() {
		g.trace(o, dir, 0, at, true)
	}
}

func TestHitCheckAllocs(t *testing.T) {
	g, o, dir := hitCheck(t)
	at := g.now - 150*time.Millisecond
	if n := testing.AllocsPerRun(100, func() { g.trace(o, dir, 0, at, true) }); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
