package live

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/arena"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/web"
)

// within polls ok every 10 ms until it holds or d has passed (real UDP
// takes its time on a loaded machine), and reports whether it held.
func within(d time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(d); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// A live match over loopback UDP: the page's frame has the server's truth
// and every bot's view; a page's keys take bot 0's player over and move it
// in the server's truth, its mouse fires a projectile the server has in
// flight, and idle hands the player back.
func TestMatch(t *testing.T) {
	link, err := netsim.Preset("lan")
	if err != nil {
		t.Fatal(err)
	}
	frames := make([]int, 2)
	m, err := Start(Config{Bots: 2, Link: link, LinkName: "lan", Seed: 3, Naive: func(i int) bool { return i == 1 },
		OnFrame: func(i int, _ time.Duration, _ *client.Frame, _ *arena.ClientGame, _ bool) { frames[i]++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var f web.Frame
	human := func() *web.Player {
		m.Frame(&f)
		for i := range f.Truth.Players {
			if f.Truth.Players[i].Human {
				return &f.Truth.Players[i]
			}
		}
		return nil
	}
	if !within(20*time.Second, func() bool {
		m.Frame(&f)
		return len(f.Truth.Players) == 2 && len(f.Clients) == 2 && len(f.Clients[0].World.Players) == 2 && len(f.Clients[1].World.Players) == 2
	}) {
		t.Fatalf("no frame with both players in the truth and both views: %+v", f)
	}
	if c := f.Clients[1]; c.Name != "bot-2" || c.Ball != "seed" || c.Link != "lan" || f.Clients[0].Ball != "tether" {
		t.Errorf("clients %+v", f.Clients)
	}
	if p := f.Truth.Players[0]; p.Health != arena.MaxHealth && p.Health <= 0 || math.Abs(geom.V(p.Facing[0], p.Facing[1], p.Facing[2]).Len()-1) > 1e-9 {
		t.Errorf("truth player %+v: want its health and a unit facing", p)
	}

	in := make(chan web.KeyInput, 8)
	done := make(chan struct{})
	go func() { m.Steer(in, 300*time.Millisecond); close(done) }()
	in <- web.KeyInput{Sprint: true} // takes over, standing
	var from [3]float64
	if !within(10*time.Second, func() bool {
		p := human()
		if p != nil {
			from = p.Pos
		}
		return p != nil
	}) {
		t.Fatal("no human player after a key was held")
	}
	dx := 1.0 // towards the centre
	if from[0] > 0 {
		dx = -1
	}
	in <- web.KeyInput{Sprint: true, Right: dx > 0, Left: dx < 0, Aiming: true, Aim: [2]float64{from[0] + 5*dx, from[2]}}
	if !within(10*time.Second, func() bool {
		p := human()
		return p != nil && (p.Pos[0]-from[0])*dx > 1
	}) {
		t.Fatalf("the person's player did not move 1 m from %v: %+v", from, human())
	}
	in <- web.KeyInput{Sprint: true, Primary: true, Aiming: true, Aim: [2]float64{from[0] + 10*dx, from[2]}}
	in <- web.KeyInput{Sprint: true, Aiming: true, Aim: [2]float64{from[0] + 10*dx, from[2]}}
	if !within(10*time.Second, func() bool {
		p := human()
		for _, pr := range f.Truth.Projectiles {
			if p != nil && pr.Shooter == p.ID {
				return true
			}
		}
		return false
	}) {
		t.Fatal("no projectile of the person's player in the server's truth")
	}
	in <- web.KeyInput{} // nothing held: idle hands it back
	if !within(10*time.Second, func() bool { return human() == nil }) {
		t.Error("the player stayed the person's after idle")
	}
	close(in)
	<-done
	m.Close()
	if frames[0] == 0 || frames[1] == 0 {
		t.Errorf("frames %v", frames)
	}
	if tr := m.Traffic(0); tr.WireDown <= tr.PayloadDown || tr.WireUp <= tr.PayloadUp || tr.PacketsDown == 0 {
		t.Errorf("traffic %+v: want every packet's headers counted", tr)
	}
}

func TestConfigErrors(t *testing.T) {
	if _, err := Start(Config{Bots: 17}); !errors.Is(err, ErrConfig) {
		t.Errorf("17 bots: %v, want ErrConfig", err)
	}
}

// A person's tap asks for a shot until a move fires one; a button held
// fires at every frame; the aim is at the point the mouse is over.
func TestPersonInput(t *testing.T) {
	f := &client.Frame{Ready: true, HasSelf: true, Self: 4, Server: time.Second,
		Entities: []client.Entity{{ID: 4, Kind: arena.KindPlayer, Pos: geom.V(1, 0, 1)}}}
	var p person
	p.take(web.KeyInput{Up: true, Right: true, Primary: true, Aiming: true, Aim: [2]float64{1, -3}})
	p.take(web.KeyInput{Up: true, Right: true, Aiming: true, Aim: [2]float64{1, -3}})
	in := p.input(f, arena.NoWeapon)
	if d := in.Dir.Sub(geom.V(1, 0, -1).Norm()).Len(); d > 1e-12 || math.Abs(in.Aim-math.Pi/2) > 1e-12 || in.Fire != arena.Projectile {
		t.Fatalf("input %+v: want up-right, aimed north (+pi/2), firing", in)
	}
	// The weapon cools: no move fired yet.
	if in = p.input(f, arena.Hitscan); in.Fire != arena.Projectile {
		t.Fatalf("tap dropped before a move fired it: %+v", in)
	}
	if in = p.input(f, arena.Projectile); in.Fire != arena.NoWeapon {
		t.Fatalf("one tap fired twice: %+v", in)
	}
	p.take(web.KeyInput{Secondary: true})
	for range 3 {
		if in = p.input(f, arena.Hitscan); in.Fire != arena.Hitscan || in.Dir != (geom.Vec3{}) || math.Abs(in.Aim-math.Pi/2) > 1e-12 {
			t.Fatalf("held: %+v, want hitscan at every frame, standing, the aim kept", in)
		}
	}
}
