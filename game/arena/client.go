package arena

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/timeline"
)

// ClientConfig configures a ClientGame. The zero value gives the defaults
// noted.
type ClientConfig struct {
	// Movement configures the prediction of the own player.
	Movement movement.ClientConfig
	// NaiveSpawn draws every projectile the naive way, the baseline the lab
	// compares with: from the spawn message's position when it arrives,
	// advanced from then on, so it trails the server's by the message's
	// age; and the own projectiles only once the server's message arrives.
	// By default (false) a projectile is drawn fast-forwarded by its age
	// (event.Event.At), where the server has it now, and the own ones at
	// once, predicted.
	NaiveSpawn bool
	// OnShot, if set, is called with every hitscan shot the own player
	// fires, as this client judged it against the players it drew.
	OnShot func(ClientShot)
}

// ClientShot is a hitscan shot as the shooter's client judged it: against
// the other players where the frame drew them.
type ClientShot struct {
	Move   uint32        // the number of the move that fired it
	Time   time.Duration // estimated server time it was fired
	View   time.Duration // server time the frame showed the other players at
	Target uint32        // the player hit, or NoTarget
	From   geom.Vec3     // where the shooter fired from
	Aim    float64       // and its aim, radians (AimDir)
}

// Drawn is a projectile as a frame draws it.
type Drawn struct {
	ID        uint32    // its entity; 0 while only predicted
	Shooter   uint32    // the shooter's entity
	Move      uint32    // the number of the move that fired it
	Pos       geom.Vec3 // metres
	Predicted bool      // the own client's prediction, not yet confirmed by the server
}

// shown is a projectile the client knows of.
type shown struct {
	spawn     event.Event   // the server's spawn event, or the predicted one
	end       time.Duration // FlightEnd, or an EventEnd's time
	seen      time.Duration // estimated server time its spawn event arrived (NaiveSpawn)
	predicted bool
}

// predictTimeout is how long a predicted projectile the server does not
// confirm is drawn.
const predictTimeout = time.Second

// ClientGame is the client side: a client.Game that predicts its own
// player (client.Predictor, its AppendInput and Reply movement.Predicting's;
// Own is the prediction, nil before the first predicted frame). Create it
// with NewClientGame.
type ClientGame struct {
	movement.Predicting[PlayerState, Input]
	cfg   ClientConfig
	projs []shown
	drawn []Drawn
	self  uint32
}

// NewClientGame returns the client side of an arena.
func NewClientGame(cfg ClientConfig) (*ClientGame, error) {
	if _, err := movement.NewClient(cfg.Movement, moves{}, PlayerState{}); err != nil {
		return nil, err
	}
	return &ClientGame{cfg: cfg}, nil
}

// Schema implements client.Replicated.
func (g *ClientGame) Schema() *replica.Schema { return Schema() }

// Timeline implements client.Game: players are interpolated, and
// extrapolated in a straight line past the newest snapshot.
func (g *ClientGame) Timeline(uint8) timeline.Config { return timeline.Config{} }

// RenderClock implements client.Game: the timeline's default delay, which
// leaves one frame in twenty drawn past the newest snapshot
// (timeline.DefaultLateShare), so that players are almost always
// interpolated.
func (g *ClientGame) RenderClock() timeline.Config { return timeline.Config{} }

// Predict implements client.Predictor: the frame's input (an AppendInput
// encoding, as given to the client's SetInput) moves the own player at
// once; a shot it fires is judged, or its projectile drawn, at once. It
// also takes the frame's events: the projectiles fired and ended.
func (g *ClientGame) Predict(now time.Duration, input []byte, f *client.Frame) (client.Entity, bool) {
	g.self = f.Self
	g.events(now, f)
	own := g.Own()
	if own == nil {
		self := f.Find(f.Self)
		if self == nil {
			g.draw(now)
			return client.Entity{}, false
		}
		var err error
		if own, err = g.Start(g.cfg.Movement, moves{}, PlayerState{Pos: self.Pos}); err != nil {
			return client.Entity{}, false // checked in NewClientGame
		}
	}
	var in Input
	if _, err := DecodeInput(&in, input); err != nil {
		in = Input{}
	}
	st := own.Move(now, g.view(f), in)
	if own.Synced() {
		g.fired(st, f)
	}
	g.draw(now)
	if !own.Synced() {
		return client.Entity{}, false
	}
	st, pos, cut := own.Draw(now)
	return client.Entity{Pos: pos, Vel: st.Vel, Rot: geom.AxisAngle(geom.V(0, 1, 0), st.Aim), Cut: cut}, true
}

// view returns the server time frame f shows the other players at.
func (g *ClientGame) view(f *client.Frame) time.Duration {
	for i := range f.Entities {
		if e := &f.Entities[i]; e.ID != f.Self && e.Kind == KindPlayer {
			return e.RenderTime
		}
	}
	return f.RenderTime
}

// fired predicts what the frame's move fired: a projectile, drawn at once,
// or a hitscan shot, judged against the other players as the frame drew
// them.
func (g *ClientGame) fired(st PlayerState, f *client.Frame) {
	switch st.Fired {
	case Projectile:
		if g.cfg.NaiveSpawn {
			return
		}
		t := st.ProjReady - ProjectileCooldown
		spawn := event.Event{Kind: EventSpawn, Time: t, Actor: f.Self, Arg: g.Own().Seq(), HasState: true,
			State: kinematic.State{Time: t, Pos: st.Pos, Vel: AimDir(st.Aim).Scale(ProjectileSpeed), Knot: true}}
		g.projs = append(g.projs, shown{spawn: spawn, end: FlightEnd(spawn.State), predicted: true})
	case Hitscan:
		dir := AimDir(st.Aim)
		best, hit := wallHit(st.Pos, dir, ShotRange), NoTarget
		for i := range f.Entities {
			e := &f.Entities[i]
			if e.ID == f.Self || e.Kind != KindPlayer {
				continue
			}
			if d, ok := rayCircle(st.Pos, dir, e.Pos, HitRadius); ok && d < best {
				best, hit = d, e.ID
			}
		}
		if g.cfg.OnShot != nil {
			g.cfg.OnShot(ClientShot{Move: g.Own().Seq(), Time: st.HitscanReady - HitscanCooldown, View: g.view(f), Target: hit, From: st.Pos, Aim: st.Aim})
		}
	}
}

// events takes the frame's new events: a spawn becomes a projectile drawn
// (or confirms the own one predicted), an end cuts one short.
func (g *ClientGame) events(now time.Duration, f *client.Frame) {
	for _, ev := range f.Events {
		switch ev.Kind {
		case EventSpawn:
			if !ev.HasState {
				continue
			}
			p := shown{spawn: ev, end: FlightEnd(ev.State), seen: now}
			if i := g.predicted(ev.Actor, ev.Arg); i >= 0 {
				g.projs[i] = p // the server's own, from now on
				continue
			}
			g.projs = append(g.projs, p)
		case EventEnd:
			for i := range g.projs {
				if p := &g.projs[i]; !p.predicted && p.spawn.Entity == ev.Entity {
					p.end = min(p.end, ev.Time)
				}
			}
		}
	}
}

// predicted returns the index of the predicted projectile fired by move
// seq of shooter, or -1.
func (g *ClientGame) predicted(shooter, seq uint32) int {
	for i := range g.projs {
		if p := &g.projs[i]; p.predicted && p.spawn.Actor == shooter && p.spawn.Arg == seq {
			return i
		}
	}
	return -1
}

// draw places every projectile at server time now and forgets those that
// ended.
func (g *ClientGame) draw(now time.Duration) {
	g.drawn = g.drawn[:0]
	live := g.projs[:0]
	for _, p := range g.projs {
		if now >= p.end || (p.predicted && now > p.spawn.Time+predictTimeout) {
			continue
		}
		live = append(live, p)
		d := Drawn{ID: p.spawn.Entity, Shooter: p.spawn.Actor, Move: p.spawn.Arg, Predicted: p.predicted}
		if g.cfg.NaiveSpawn {
			// At the message's position when it arrived, advanced from then.
			d.Pos = p.spawn.State.Pos.AddScaled(p.spawn.State.Vel, (now - p.seen).Seconds())
		} else {
			d.Pos = p.spawn.At(now, timeline.Linear).Pos
		}
		g.drawn = append(g.drawn, d)
	}
	g.projs = live
}

// Projectiles returns the projectiles as the last frame drew them; valid
// until the next frame.
func (g *ClientGame) Projectiles() []Drawn { return g.drawn }

var (
	_ client.Game       = (*ClientGame)(nil)
	_ client.Replicated = (*ClientGame)(nil)
	_ client.Predictor  = (*ClientGame)(nil)
)
