package server_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/server"
)

// counter is the smallest game: one entity per client, a snapshot that is the
// tick number.
type counter struct{ tick uint64 }

func (g *counter) Join(client int) (uint32, error)                { return uint32(client), nil }
func (g *counter) Leave(int)                                      {}
func (g *counter) Input(int, server.Input)                        {}
func (g *counter) Step(t server.Tick, _ server.Emitter) bool      { g.tick = t.N; return false }
func (g *counter) AppendSnapshot(dst []byte, regular bool) []byte { return append(dst, byte(g.tick)) }

// The core is fed times and connections and says what to send; a driver
// (server.UDP, or a test's virtual network) carries the payloads.
func Example() {
	s, err := server.New(server.Config{TickHz: 60, SnapshotHz: 30}, &counter{})
	if err != nil {
		panic(err)
	}
	send := func(what string) {
		n := 0
		for {
			client, p, ok := s.Transmit()
			if !ok {
				break
			}
			n++
			_, _ = client, p // a driver sends p to client here
		}
		fmt.Printf("%s: %d payload(s)\n", what, n)
	}
	_ = s.Connect(0, 7) // a client connected in slot 7: it is welcomed
	send("connect")
	for now := time.Duration(0); now <= 100*time.Millisecond; now += 10 * time.Millisecond {
		if s.Tick(now) > 0 && s.Ticks()%2 == 0 {
			send(fmt.Sprintf("tick %d", s.Ticks()))
		}
	}
	st := s.Stats()
	fmt.Printf("%d ticks, %d snapshots\n", st.Ticks, st.Snapshots)
	// Output:
	// connect: 1 payload(s)
	// tick 2: 1 payload(s)
	// tick 4: 1 payload(s)
	// tick 6: 1 payload(s)
	// 6 ticks, 3 snapshots
}
