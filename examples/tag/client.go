package main

import (
	"math"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/timeline"
)

// view is the client side: a client.Game, client.Replicated and
// client.Predictor (its AppendInput, the packet of moves due, and Reply, the
// server's acknowledgements and corrections, are movement.Predicting's).
// The layer decodes every snapshot by the schema; the other players and the
// coins are drawn from their timelines, interpolated a little in the past;
// the own player is drawn at the present, predicted.
type view struct {
	movement.Predicting[state, input]
}

func newView() (*view, error) {
	// The prediction starts from a guess; the server's first answer (a
	// reset) puts the player where the server has it.
	v := &view{}
	if _, err := v.Start(movement.ClientConfig{SendInterval: time.Second / 30}, moves{}, state{}); err != nil {
		return nil, err
	}
	return v, nil
}

// Schema implements client.Replicated: the server's schema.
func (v *view) Schema() *replica.Schema { return schema }

// Timeline implements client.Game: every kind is interpolated between
// snapshots and extrapolated in a straight line past the newest (the zero
// value).
func (v *view) Timeline(uint8) timeline.Config { return timeline.Config{} }

// RenderClock implements client.Game: the default adaptive render delay.
func (v *view) RenderClock() timeline.Config { return timeline.Config{} }

// Predict implements client.Predictor: the frame's input (as given to
// SetInput) moves the own player at once, and the frame draws it where the
// prediction has it. Until the server's first reset it is drawn from
// snapshots like the others.
func (v *view) Predict(now time.Duration, data []byte, f *client.Frame) (client.Entity, bool) {
	var in input
	_, _ = moves{}.DecodeInput(&in, data) // no input yet: stand still
	own := v.Own()
	own.Move(now, f.RenderTime, in)
	if !own.Synced() {
		return client.Entity{}, false
	}
	s, pos, cut := own.Draw(now)
	return client.Entity{Pos: pos, Vel: s.Vel, Rot: geom.Identity, Cut: cut}, true
}

var (
	_ client.Game       = (*view)(nil)
	_ client.Replicated = (*view)(nil)
	_ client.Predictor  = (*view)(nil)
)

// bot plays one client from what it draws: it walks toward the nearest coin.
// It counts what the report shows.
type bot struct {
	in        []byte
	frames    int // frames that drew the own player
	predicted int // of which predicted (client.Entity.Predicted)
	coins     int // the most coins one frame drew
	taken     int // coins its player took: its Tag, as last drawn
}

// frame is the client driver's OnFrame: it returns the input to send.
func (b *bot) frame(f *client.Frame) []byte {
	me := f.Find(f.Self)
	if !f.Ready || !f.HasSelf || me == nil {
		return nil
	}
	b.frames++
	b.taken = int(me.Tag)
	if me.Predicted {
		b.predicted++
	}
	var goal *client.Entity
	coins := 0
	for i := range f.Entities {
		if e := &f.Entities[i]; e.Kind == kindCoin {
			coins++
			if goal == nil || e.Pos.Dist(me.Pos) < goal.Pos.Dist(me.Pos) {
				goal = e
			}
		}
	}
	b.coins = max(b.coins, coins)
	var in input
	if goal != nil {
		d := goal.Pos.Sub(me.Pos).Norm()
		in = input{X: int8(math.Round(d.X * 127)), Z: int8(math.Round(d.Z * 127))}
	}
	b.in = moves{}.AppendInput(b.in[:0], in)
	return b.in
}
