package arena

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/netsim"
)

// played is what a match of bots measured.
type played struct {
	game *Game
	// projErr are the distances between where clients drew projectiles
	// and where the server had them at the same moment; naive for the
	// clients of the NaiveSpawn baseline.
	projErr, naiveErr []float64
	predicted         int // frames that drew an own projectile predicted
	// Hitscan shots the shooter's client and the server both judged: how
	// many, and on how many they agreed with rewind and without.
	shots, agree, agreeNow int
	rewound                []time.Duration
}

// drawnAt is a projectile drawn by a client at a true time.
type drawnAt struct {
	t       time.Duration
	shooter uint32
	move    uint32
	pos     geom3
	naive   bool
}

type geom3 = [3]float64

// play runs n bots for dur on copies of link (the odd ones drawing
// projectiles the naive way if naive is set) and measures them.
func play(t testing.TB, n int, link string, seed uint64, dur time.Duration, naive bool) *played {
	t.Helper()
	var p played
	flights := map[[2]uint32]Flight{}
	seen := map[[2]uint32]uint32{}
	var shots []Shot
	g, err := NewGame(Config{
		OnProjectile: func(f Flight) { flights[[2]uint32{f.Shooter, f.Move}] = f },
		OnShot:       func(s Shot) { shots = append(shots, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	p.game = g
	rig, err := harness.New(harness.Config{}, g)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := netsim.Preset(link)
	if err != nil {
		t.Fatal(err)
	}
	var drawn []drawnAt
	for i := range n {
		bot := NewBot(seed*100 + uint64(i))
		naiveI := naive && i%2 == 1
		var cg *ClientGame
		cg, err = NewClientGame(ClientConfig{NaiveSpawn: naiveI, OnShot: func(s ClientShot) {
			self, _ := rig.Clients()[i].Core().Self()
			seen[[2]uint32{self, s.Move}] = s.Target
		}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = rig.Join(time.Duration(i)*10*time.Millisecond, harness.ClientConfig{Link: lc, Seed: seed, Game: cg,
			OnFrame: func(c *harness.Client, f *client.Frame) {
				c.Core().SetInput(AppendInput(nil, bot.Input(f)))
				if c.Now() < 2*time.Second {
					return
				}
				for _, d := range cg.Projectiles() {
					drawn = append(drawn, drawnAt{t: c.Now(), shooter: d.Shooter, move: d.Move, pos: geom3{d.Pos.X, d.Pos.Y, d.Pos.Z}, naive: naiveI})
					if d.Predicted {
						p.predicted++
					}
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	rig.RunUntil(dur)
	for _, f := range g.Flights() {
		flights[[2]uint32{f.Shooter, f.Move}] = f
	}
	for _, d := range drawn {
		f, ok := flights[[2]uint32{d.shooter, d.move}]
		if !ok || d.t < f.Spawn.Time || d.t > f.End {
			continue // the server's has not left yet, or has ended
		}
		x := f.At(d.t)
		e := math.Sqrt((d.pos[0]-x.X)*(d.pos[0]-x.X) + (d.pos[1]-x.Y)*(d.pos[1]-x.Y) + (d.pos[2]-x.Z)*(d.pos[2]-x.Z))
		if d.naive {
			p.naiveErr = append(p.naiveErr, e)
		} else {
			p.projErr = append(p.projErr, e)
		}
	}
	for _, s := range shots {
		target, ok := seen[[2]uint32{s.Shooter, s.Move}]
		if !ok {
			continue
		}
		p.shots++
		if target == s.Target {
			p.agree++
		}
		if target == s.Present {
			p.agreeNow++
		}
		p.rewound = append(p.rewound, s.Arrival-s.At)
	}
	return &p
}

func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// Projectiles are drawn where the server has them, within a tick of travel
// at the 99th percentile, the shooter's own at once; the naive baseline
// trails by the spawn message's age.
func TestProjectilesDrawnWhereTheServerHasThem(t *testing.T) {
	for _, link := range []string{"broadband", "wan"} {
		p := play(t, 6, link, 1, 20*time.Second, true)
		tick := ProjectileSpeed / 60
		p50, p99 := quantile(p.projErr, 0.5), quantile(p.projErr, 0.99)
		n50, n99 := quantile(p.naiveErr, 0.5), quantile(p.naiveErr, 0.99)
		t.Logf("%s: %d and %d frames; aged p50 %.3f p99 %.3f m, naive p50 %.3f p99 %.3f m; %d predicted", link, len(p.projErr), len(p.naiveErr), p50, p99, n50, n99, p.predicted)
		if len(p.projErr) < 1000 || len(p.naiveErr) < 1000 || p.predicted == 0 {
			t.Fatalf("%s: too few projectiles drawn", link)
		}
		if p99 > tick || p99 > 0.1*n99 {
			t.Errorf("%s: p99 %.3f m, want <= %.3f m and <= 0.1 × naive's %.3f m", link, p99, tick, n99)
		}
	}
}

// The server judges hitscan shots as their shooters saw them: with rewind
// the two agree, without it they often do not.
func TestHitscanAgreesWithTheShooter(t *testing.T) {
	p := play(t, 8, "wan", 1, 30*time.Second, false)
	agree, now := float64(p.agree)/float64(p.shots), float64(p.agreeNow)/float64(p.shots)
	t.Logf("%d shots: agree %.3f with rewind, %.3f without; %d hits", p.shots, agree, now, p.game.Stats().ShotHits)
	if p.shots < 100 || p.game.Stats().ShotHits < 20 {
		t.Fatalf("%d shots, %d hits: too few", p.shots, p.game.Stats().ShotHits)
	}
	if agree < 0.98 || now > 0.8*agree {
		t.Errorf("agree %.3f with rewind, %.3f without", agree, now)
	}
	// Under wan's bursts of loss a few moves arrive late enough to be
	// judged at MaxRewind: the bound, not the method, decides those.
	if c := p.game.Stats().RewindsClamped; float64(c) > 0.03*float64(p.shots) {
		t.Errorf("%d of %d shots clamped to MaxRewind on wan", c, p.shots)
	}
}
