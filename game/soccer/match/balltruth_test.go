package match

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
)

// Between two ticks at which one player carried the ball, the true ball
// (BallTruth) moves with its carrier: apart from the carrier's own motion
// (measure.Cast, as a Meter holds it) it moves no more than turning with the
// carrier and shifting in its frame allow, over any part of the step, the
// steps leaving the tick the ball was won at included.
func TestBallTruthCarried(t *testing.T) {
	link, err := netsim.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	type tickRec struct {
		possessor uint32
		ball      geom.Vec3
		players   map[uint32]soccer.PlayerTruth
	}
	var ticks []tickRec
	var cast measure.Cast
	var bt *BallTruth
	var poses []measure.Pose
	record := func(tr *soccer.Truth) {
		rec := tickRec{possessor: tr.Possessor, ball: tr.Ball.Pos, players: map[uint32]soccer.PlayerTruth{}}
		poses = poses[:0]
		for _, p := range tr.Players {
			rec.players[p.ID] = p
			slot := int(p.ID - soccer.FirstPlayerID)
			for len(poses) <= slot {
				poses = append(poses, measure.Pose{})
			}
			poses[slot] = measure.Pose{Pos: p.Pos, Gen: p.Gen, In: true}
		}
		cast.Tick(tr.Time, poses)
		ticks = append(ticks, rec)
	}
	v, err := NewVirtual(Config{Seed: 1, Bots: 1, Link: link, PairedLinks: true, OnTick: func(tr *soccer.Truth) {
		bt.Tick(tr)
		record(tr)
	}})
	if err != nil {
		t.Fatal(err)
	}
	var start soccer.Truth
	v.Truth(&start)
	if bt, err = NewBallTruth(soccer.Rules{}, 60, &start); err != nil {
		t.Fatal(err)
	}
	record(&start)
	v.RunUntil(60 * time.Second)

	tick := time.Second / 60
	horiz := func(v geom.Vec3) float64 { return math.Hypot(v.X, v.Z) }
	samples := bt.Truth.Samples()
	steps, won := 0, 0
	for k := 1; k < len(ticks); k++ {
		id := ticks[k-1].possessor
		if id == soccer.NoPlayer || ticks[k].possessor != id || samples[k].Cut || samples[k].Jump {
			continue
		}
		a, okA := ticks[k-1].players[id]
		b, okB := ticks[k].players[id]
		if !okA || !okB || a.Gen != b.Gen {
			continue
		}
		offA := a.Rot().Conj().Rotate(ticks[k-1].ball.Sub(a.Pos))
		offB := b.Rot().Conj().Rotate(ticks[k].ball.Sub(b.Pos))
		reach := max(horiz(offA), horiz(offB))
		turn := math.Abs(geom.WrapAngle(b.Yaw - a.Yaw))
		steps++
		if k >= 2 && ticks[k-2].possessor != id {
			won++
		}
		slot := int(id - soccer.FirstPlayerID)
		t0 := time.Duration(k-1) * tick
		for q := range 4 {
			u0, u1 := t0+time.Duration(q)*tick/4, t0+time.Duration(q+1)*tick/4
			pu0, _ := cast.Position(slot, u0)
			pu1, _ := cast.Position(slot, u1)
			rel := horiz(bt.Truth.At(u1).Sub(bt.Truth.At(u0)).Sub(pu1.Sub(pu0)))
			if allowed := reach*turn/4 + horiz(offB.Sub(offA))/4 + 1e-6; rel > allowed {
				t.Fatalf("tick %d quarter %d: the ball moved %.4f m against its carrier, at most %.4f m allowed", k, q, rel, allowed)
			}
		}
	}
	if steps < 300 || won < 5 {
		t.Fatalf("%d carried steps, %d of them leaving the tick the ball was won at", steps, won)
	}
	t.Logf("%d carried steps, %d leaving the tick the ball was won at", steps, won)
}
