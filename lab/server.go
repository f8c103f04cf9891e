package lab

import (
	"time"

	gdrill "github.com/tether-net/tether/game/drill"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/physics"
	tserver "github.com/tether-net/tether/server"
	"github.com/tether-net/tether/wire"
)

// server is the authoritative side of a run. Its clock is true time.
type server struct {
	sim *sim

	game     *gdrill.Game
	truth    measure.Truth
	states   []physics.BodyState // the ball leaving every tick, for the oracle
	prev     physics.BodyState   // the ball at the previous tick
	prevSent bool                // whether the previous tick's state was sent
	snapEach int                 // ticks per regular snapshot
	packet   []byte              // this tick's snapshot datagram
}

// ue4TimeInterval is how often Unreal's game state replicates the server's world
// time by default.
const ue4TimeInterval = 5 * time.Second

// ue4TimeBytes is the payload of one world-time update: a float32 property.
const ue4TimeBytes = 5

func newServer(m *sim) *server {
	s := &server{sim: m, snapEach: max(1, m.scen.TickHz/m.scen.SnapshotHz)}
	game, err := gdrill.NewGame(m.scen.Seed, m.scen.TickHz)
	if err != nil {
		panic(err) // the scenario's tick rate was validated
	}
	s.game = game
	s.truth = measure.Truth{G: geom.V(0, -gravity, 0)}
	return s
}

func (s *server) start() {
	s.scheduleTick(0)
	for _, c := range s.sim.clients {
		if c.spec.Clock == ClockUE4 {
			s.scheduleWorldTime(c, 0)
		}
	}
}

func (s *server) scheduleTick(n int64) {
	t := time.Duration(n) * s.sim.tick
	if t > s.sim.end {
		return
	}
	s.sim.sched.At(t, func() {
		s.runTick()
		s.scheduleTick(n + 1)
	})
}

func (s *server) runTick() {
	s.simulate(s.sim.sched.Now())
}

// simulate advances the ball to now, applies any kick due, records the truth
// and sends the snapshot: the regular state every snapEach ticks, and extra
// states around a contact or a kick so the client's curve has them as knots.
func (s *server) simulate(now time.Duration) {
	n := int(now / s.sim.tick)
	if n > 0 {
		s.game.Step(tserver.Tick{N: uint64(n), Time: now, Dt: s.sim.tick}, nil)
	}
	tk := s.game.Last()
	contactKnot, kicked, st := tk.Contact, tk.Kicked, tk.Ball
	s.truth.Add(measure.Sample{T: now, Pos: st.Pos, Vel: st.Vel, VelIn: tk.VelIn, Contact: tk.Contact, ContactAt: tk.ContactAt})
	s.states = append(s.states, st)

	regular := n%s.snapEach == 0
	s.packet = append(s.packet[:0], msgTypeBytes)
	if (contactKnot || kicked) && !s.prevSent && n > 0 {
		s.packet = wire.AppendState(s.packet, bodyMessage(now-s.sim.tick, s.prev, false))
	}
	sent := regular || contactKnot || kicked
	if sent {
		s.packet = wire.AppendState(s.packet, bodyMessage(now, st, kicked))
	}
	s.prev, s.prevSent = st, sent
	if len(s.packet) == msgTypeBytes {
		return
	}
	packet := append([]byte(nil), s.packet...) // delivered later: each tick its own
	for _, c := range s.sim.clients {
		c.sendSnapshot(packet)
	}
}

func bodyMessage(t time.Duration, b physics.BodyState, knot bool) kinematic.State {
	s := b.State(t)
	s.Knot = knot
	return s
}

// clockRequest answers a clock request that arrived now: reply runs at once
// with the receive and send times. Answering at once rather than at the next
// tick keeps the baselines fair: Cristian's method cannot account for a hold.
func (s *server) clockRequest(reply func(recv, send time.Duration)) {
	now := s.sim.sched.Now()
	reply(now, now)
}

// scheduleWorldTime sends client c the server's time every ue4TimeInterval,
// as Unreal's replicated world time does.
func (s *server) scheduleWorldTime(c *client, t time.Duration) {
	if t > s.sim.end {
		return
	}
	s.sim.sched.At(t, func() {
		sent := s.sim.sched.Now()
		c.sendDown(ue4TimeBytes, true, func() { c.clock.(*ue4Clock).worldTime(sent) })
		s.scheduleWorldTime(c, t+ue4TimeInterval)
	})
}
