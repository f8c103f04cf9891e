package lab

import (
	"time"

	tclient "github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
)

// ownRecord feeds a client's own player to its meter: the server's moves of
// it and its teleports, the client's corrections, frames and moves.
type ownRecord struct {
	sc     *soccerClient
	meter  measure.OwnMeter
	gen    uint8 // the player's teleport generation by the server's moves
	hasGen bool
}

func newOwnRecord(sc *soccerClient, predicted bool) ownRecord {
	c := sc.c
	return ownRecord{sc: sc, meter: measure.OwnMeter{
		WarmUp: warmUp, Asym: c.asym, Blackouts: c.blackouts, Predicted: predicted,
		Up: time.Duration(c.spec.Link.Up.LatencyMs * float64(time.Millisecond)),
	}}
}

// ownMoves is the hook the soccer match calls with every move of a
// predicted player the server applies.
func (sm *soccerMatch) ownMove(b *match.Bot, m *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
	o := &sm.clients[b.Index].own.meter
	o.Moved(m.Time, s.Pos)
	o.Applied(int(m.Seq))
}

// ownCorrection is the hook the soccer match calls with every adjustment or
// reset a client applies.
func (sm *soccerMatch) ownCorrection(b *match.Bot, c movement.Correction) {
	if c.Kind == movement.Adjust {
		sm.clients[b.Index].own.meter.Corrected(sm.now(), c.Error)
	}
}

// ownTick notes the teleports of the client's player in the server's truth.
func (o *ownRecord) tick(tr *soccer.Truth) {
	for _, p := range tr.Players {
		if p.Client != o.sc.bot.Slot() || !p.Predicted {
			continue
		}
		if o.hasGen && p.MovedGen != o.gen {
			o.meter.Teleported(p.Moved.Pos)
		}
		o.gen, o.hasGen = p.MovedGen, true
	}
}

// frame records the own player as frame f at true time now drew it.
func (o *ownRecord) frame(now time.Duration, f *tclient.Frame) {
	d := measure.OwnDrawn{T: now, Est: f.Server}
	if f.Ready && f.HasSelf {
		if e := f.Find(f.Self); e != nil {
			d.OK, d.Pos, d.RenderTime, d.Predicted, d.Cut = true, e.Pos, e.RenderTime, e.Predicted, e.Cut
		}
	}
	o.meter.Frame(d)
	if g := o.sc.bot.Game(); g != nil && g.Own() != nil {
		o.meter.Made(int(g.Own().Seq()), now)
	}
}
