package arena

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
)

// Bot plays one player from what its client draws: it runs between random
// points of the arena, aims at the nearest other player with a little
// error, and fires now and then, hitscan and projectiles in turn. Seeded,
// it plays the same way every run. Create it with NewBot.
type Bot struct {
	rng      *rand.Rand
	goal     geom.Vec3
	nextGoal time.Duration
	nextShot time.Duration
	weapon   Weapon
}

// Bot timing and aim.
const (
	botGoalEvery = 3 * time.Second
	botShotGap   = 300 * time.Millisecond // shortest time between two shots
	botShotRand  = 600 * time.Millisecond // plus up to this
	botAimError  = 0.04                   // radians, standard deviation
)

// NewBot returns a bot seeded by seed.
func NewBot(seed uint64) *Bot {
	return &Bot{rng: rand.New(rand.NewPCG(seed, 0x61726e61)), weapon: Hitscan}
}

// Input returns the bot's input for frame f (the zero Input before the
// clock is ready or the own player is drawn). Give it to the client with
// AppendInput and client.Client.SetInput.
func (b *Bot) Input(f *client.Frame) Input {
	self := f.Find(f.Self)
	if !f.Ready || !f.HasSelf || self == nil {
		return Input{}
	}
	now := f.Server
	if now >= b.nextGoal || self.Pos.Dist(b.goal) < 1 {
		b.goal = clampToArena(geom.V((b.rng.Float64()*2-1)*(HalfX-2), 0, (b.rng.Float64()*2-1)*(HalfZ-2)), 1)
		b.nextGoal = now + botGoalEvery
	}
	in := Input{Dir: b.goal.Sub(self.Pos).Norm()}
	var target *client.Entity
	for i := range f.Entities {
		e := &f.Entities[i]
		if e.ID != f.Self && e.Kind == KindPlayer && (target == nil || e.Pos.Dist(self.Pos) < target.Pos.Dist(self.Pos)) {
			target = e
		}
	}
	if target == nil {
		in.Aim = AimAt(self.Pos, b.goal)
		return in
	}
	in.Aim = AimAt(self.Pos, target.Pos) + b.rng.NormFloat64()*botAimError
	in.Aim = math.Mod(in.Aim+2*math.Pi, 2*math.Pi)
	if now >= b.nextShot {
		in.Fire = b.weapon
		b.weapon = Projectile + Hitscan - b.weapon
		b.nextShot = now + botShotGap + time.Duration(b.rng.Int64N(int64(botShotRand)))
	}
	return in
}
