package lab

import "time"

// server is the authoritative side of a run. Its clock is true time.
type server struct {
	sim     *sim
	pending []pendingReply // clock requests received since the last tick
}

// pendingReply is a clock request waiting for the next tick, stamped on receipt
// as a real server's receive loop would stamp it.
type pendingReply struct {
	recv  time.Duration
	reply func(recv, send time.Duration)
}

// ue4TimeInterval is how often Unreal's game state replicates the server's world
// time by default.
const ue4TimeInterval = 5 * time.Second

// ue4TimeBytes is the payload of one world-time update: a float32 property.
const ue4TimeBytes = 5

func newServer(m *sim) *server { return &server{sim: m} }

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
	now := s.sim.sched.Now()
	for _, p := range s.pending {
		p.reply(p.recv, now)
	}
	s.pending = s.pending[:0]
}

// clockRequest queues a reply to a clock request that arrived now; reply runs at
// the next tick with the receive and send times.
func (s *server) clockRequest(reply func(recv, send time.Duration)) {
	s.pending = append(s.pending, pendingReply{recv: s.sim.sched.Now(), reply: reply})
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
