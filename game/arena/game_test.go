package arena

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/event"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// emitted collects a Step's events.
type emitted []uint8

func (e *emitted) Emit(ev event.Event) { *e = append(*e, ev.Kind) }

// duel drives a Game directly: player 0 stands and shoots, player 1 runs
// north (+z) at RunSpeed; both predict through movement clients whose packets
// arrive at once.
// (Player 0 appears at (-5, -9), player 1 at (5, -9): the shots cross
// player 1's way.)
type duel struct {
	t     testing.TB
	g     *Game
	c     [2]*movement.Client[PlayerState, Input]
	tick  time.Duration
	n     uint64
	shots []Shot
	track []geom.Vec3      // player 1 at every tick, as player 0 was sent it
	enc   *replica.Encoder // the snapshots' encoder
	buf   []byte
	// starved are the clients sent no snapshot (the byte budget left
	// everything out of theirs).
	starved [2]bool
}

func newDuel(t testing.TB, cfg Config) *duel {
	d := &duel{t: t, tick: time.Second / 60}
	cfg.OnShot = func(s Shot) { d.shots = append(d.shots, s) }
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.g = g
	d.enc = replica.NewEncoder(g.Replication())
	for i := range d.c {
		if _, err := g.Join(i); err != nil {
			t.Fatal(err)
		}
		st, _, _ := g.Player(uint32(i))
		if d.c[i], err = movement.NewClient(movement.ClientConfig{}, moves{}, st); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// step runs one tick: each client makes its move (player 0 with in0),
// sends its packet, takes the reply, and the server ticks and encodes
// each client's snapshot (which records what each was sent, for rewind).
func (d *duel) step(in0 Input, view time.Duration) {
	d.n++
	now := time.Duration(d.n) * d.tick
	ins := [2]Input{in0, {Dir: geom.V(0, 0, 1)}}
	for i, c := range d.c {
		c.Move(now, view, ins[i])
		if b, ok := c.AppendPacket(nil, now); ok {
			d.g.Input(i, server.Input{Moves: true, Data: b, Arrival: now})
		}
		if r := d.g.AppendReply(nil, i, now); len(r) > 0 {
			_ = c.HandleReply(r, now)
		}
	}
	var ev emitted
	d.g.Step(server.Tick{N: d.n, Time: now, Dt: d.tick}, &ev)
	w := d.enc.World()
	w.Reset()
	d.g.Replicate(w)
	for i := range d.c {
		if !d.starved[i] {
			d.buf = d.enc.Append(d.buf[:0], i, d.n, now, 0, 0)
		}
	}
	for i := range w.Len() {
		if e := w.Entity(i); e.ID == 1 {
			d.track = append(d.track, e.State.Pos)
		}
	}
}

// shootAt fires a hitscan shot as seen back ago: aimed at where player 1
// was then, with that as the view time. It returns the shot as judged and
// where player 1 was aimed at.
func (d *duel) shootAt(back time.Duration) (Shot, geom.Vec3) {
	now := time.Duration(d.n+1) * d.tick
	view := now - back
	k := int(view / d.tick) // player 1 at the tick before view, and after
	u := float64(view-time.Duration(k)*d.tick) / float64(d.tick)
	them := d.track[k-1].Lerp(d.track[k], u)
	me, _, _ := d.g.Player(0)
	before := len(d.shots)
	d.step(Input{Aim: AimAt(me.Pos, them), Fire: Hitscan}, view)
	if len(d.shots) != before+1 {
		d.t.Fatalf("%d shots judged, want 1", len(d.shots)-before)
	}
	for range 20 { // cool down
		d.step(Input{}, now)
	}
	return d.shots[len(d.shots)-1], them
}

// A shot is judged where its client saw the target, up to MaxRewind back;
// a client claiming to see further back is judged at MaxRewind, and misses
// a target that has moved on since.
func TestRewindBound(t *testing.T) {
	for _, tc := range []struct {
		maxRewind, back time.Duration
		hit, clamped    bool
	}{
		{0, 150 * time.Millisecond, true, false},
		{0, 240 * time.Millisecond, true, false},
		{0, 400 * time.Millisecond, false, true},
		{500 * time.Millisecond, 400 * time.Millisecond, true, false},
		{-1, 150 * time.Millisecond, false, false},
	} {
		d := newDuel(t, Config{MaxRewind: tc.maxRewind})
		for range 60 {
			d.step(Input{}, 0)
		}
		s, them := d.shootAt(tc.back)
		// The shot stops at the edge of the target it hit (HitRadius short of
		// its centre, aimed at it), or goes on past it.
		if to := s.From.Dist(them); tc.hit && math.Abs(s.Range-to) > HitRadius+0.05 || !tc.hit && s.Range <= to {
			t.Errorf("MaxRewind %v, seen %v back: range %.2f m, target %.2f m away, hit %v", tc.maxRewind, tc.back, s.Range, to, tc.hit)
		}
		if (s.Target == 1) != tc.hit || s.Clamped != tc.clamped {
			t.Errorf("MaxRewind %v, seen %v back: target %d, clamped %v; want hit %v, clamped %v", tc.maxRewind, tc.back, int32(s.Target), s.Clamped, tc.hit, tc.clamped)
		}
		if s.Present == 1 {
			t.Errorf("MaxRewind %v, seen %v back: the present target was hit; the test shows nothing", tc.maxRewind, tc.back)
		}
	}
}

// A shot is judged against what the shooter's client was sent: a player
// its snapshots left out stays, to it, where its last snapshot had it, and
// a shot aimed there hits, however far the player has run since in the
// snapshots of others. (A history of the world as replicated, the same for
// every client, has it where the others were sent it, and the shot
// misses.)
func TestRewindToWhatTheShooterWasSent(t *testing.T) {
	d := newDuel(t, Config{})
	for range 60 {
		d.step(Input{}, 0)
	}
	them := d.track[len(d.track)-1] // player 1 in client 0's last snapshot
	d.starved[0] = true
	for range 20 { // a third of a second: player 1 runs 2 m on
		d.step(Input{}, 0)
	}
	now := time.Duration(d.n+1) * d.tick
	me, _, _ := d.g.Player(0)
	before := len(d.shots)
	d.step(Input{Aim: AimAt(me.Pos, them), Fire: Hitscan}, now-d.tick)
	if len(d.shots) != before+1 {
		t.Fatalf("%d shots judged, want 1", len(d.shots)-before)
	}
	s := d.shots[len(d.shots)-1]
	if moved := d.track[len(d.track)-1].Dist(them); moved < 3*HitRadius {
		t.Fatalf("player 1 moved %.2f m in the others' snapshots: the test shows nothing", moved)
	}
	if s.Target != 1 || s.Clamped || s.Present == 1 {
		t.Errorf("target %d (clamped %v, present %d), want player 1 where client 0 last had it", int32(s.Target), s.Clamped, int32(s.Present))
	}
}

// A projectile fired by a move flies from the shooter's place at the
// move's time, is announced by a spawn event, and ends on a player with an
// end event.
func TestProjectileHits(t *testing.T) {
	d := newDuel(t, Config{})
	for range 30 {
		d.step(Input{}, 0)
	}
	me, _, _ := d.g.Player(0)
	them, _, _ := d.g.Player(1)
	lead := them.Pos.Add(geom.V(0, 0, RunSpeed*them.Pos.Dist(me.Pos)/ProjectileSpeed)) // where it will be
	var flights []Flight
	d.g.cfg.OnProjectile = func(f Flight) { flights = append(flights, f) }
	d.step(Input{Aim: AimAt(me.Pos, lead), Fire: Projectile}, 0)
	for range 120 {
		d.step(Input{}, 0)
	}
	if len(flights) != 1 || flights[0].Hit != 1 {
		t.Fatalf("flights %+v, want one that hit player 1", flights)
	}
	if st := d.g.Stats(); st.Projectiles != 1 || st.ProjectileHits != 1 {
		t.Fatalf("stats %+v", st)
	}
	if _, hp, _ := d.g.Player(1); hp != MaxHealth-ProjectileDamage {
		t.Fatalf("health %d", hp)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []Config{{MaxPlayers: 17}, {TickHz: -1}, {MaxRewind: 2 * time.Second}} {
		if _, err := NewGame(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	g, _ := NewGame(Config{MaxPlayers: 2})
	if _, err := g.Join(2); !errors.Is(err, ErrFull) {
		t.Errorf("join beyond MaxPlayers: %v", err)
	}
}
