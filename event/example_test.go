package event_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/timeline"
)

// A kick that happened at 10 s, learnt of 80 ms late, is drawn 80 ms along its
// path: 1.6 m for a 20 m/s ground pass.
func ExampleEvent_At() {
	kick := event.Event{ID: 7, Kind: 1, Time: 10 * time.Second, HasState: true,
		State: kinematic.State{Time: 10 * time.Second, Pos: geom.V(0, 0.11, 0), Vel: geom.V(20, 0, 0), Knot: true}}
	b := event.Append(nil, kick)
	got, _, err := event.Decode(b)
	if err != nil {
		panic(err)
	}
	now := 10*time.Second + 80*time.Millisecond
	s := got.At(now, timeline.Linear)
	fmt.Printf("%d bytes, age %v, drawn at x = %.2f m\n", len(b), got.Age(now), s.Pos.X)
	// Output: 30 bytes, age 80ms, drawn at x = 1.60 m
}

// The server keeps half a second of poses and judges a tackle where the
// tackling client saw its target.
func ExampleHistory() {
	h, _ := event.NewHistory(30, 22)
	for n := 1; n <= 60; n++ {
		t := time.Duration(n) * time.Second / 60
		h.Begin(t)
		h.Add(5, event.Pose{Pos: geom.V(6*t.Seconds(), 0, 0)}) // running at 6 m/s
	}
	p, ok := h.At(5, time.Second-100*time.Millisecond) // the client showed 100 ms ago
	fmt.Printf("%.2f m %v\n", p.Pos.X, ok)
	// Output: 5.40 m true
}

// Each client is judged against what its own snapshots carried: client 1's
// snapshots left entity 5 out after 0.5 s (the byte budget went to others),
// so to client 1 it stood where its last snapshot had it.
func ExampleSeen() {
	s, _ := event.NewSeen(2, 30, 16)
	for n := 1; n <= 30; n++ { // 30 snapshots a second
		t := time.Duration(n) * time.Second / 30
		p := event.Pose{Pos: geom.V(6*t.Seconds(), 0, 0)} // running at 6 m/s
		s.Add(0, t, 5, 0, p)
		if t <= 500*time.Millisecond {
			s.Add(1, t, 5, 0, p)
		}
	}
	for c := range 2 {
		p, ok := s.At(c, 5, 900*time.Millisecond)
		fmt.Printf("client %d saw it at %.2f m %v\n", c, p.Pos.X, ok)
	}
	// Output:
	// client 0 saw it at 5.40 m true
	// client 1 saw it at 3.00 m true
}

// A shot arriving at 10 s from a client that was showing 9.85 s is judged
// there; one claiming to show 9.5 s is judged no further back than the
// 250 ms bound.
func ExampleRewindTo() {
	now, bound := 10*time.Second, 250*time.Millisecond
	fmt.Println(event.RewindTo(now, 9850*time.Millisecond, bound))
	fmt.Println(event.RewindTo(now, 9500*time.Millisecond, bound))
	// Output:
	// 9.85s false
	// 9.75s true
}
