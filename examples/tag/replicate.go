package main

import (
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replica"
)

// What is replicated: this file is all the game writes for its snapshots.
// It declares two kinds of entity and the precision of their fields; the
// replication layer (package replica) sends each client a delta against the
// newest snapshot it acknowledged, within a packet, and the client decodes
// it into entities drawn on timelines. No game code writes a byte.

// The kinds, in the schema's order.
const (
	kindPlayer uint8 = iota
	kindCoin
)

// schema is shared by the server and every client.
var schema, errSchema = replica.NewSchema(
	replica.Kind{Name: "player", Fields: []replica.Field{
		replica.Position(1000, replica.XZ).Within(1), // to the mm, on the ground
		replica.Velocity(100, replica.XZ),            // to the cm/s
		replica.Tag()}},                              // the coins taken
	replica.Kind{Name: "coin", Fields: []replica.Field{
		replica.Position(1000, replica.XZ).Within(1),
		replica.Velocity(1000, replica.XZ)}},
)

// Replication implements server.Replicated: the schema, and the layer's
// defaults (every entity relevant to every client).
func (g *game) Replication() (*replica.Schema, replica.Config) { return schema, replica.Config{} }

// Replicate implements server.Replicated: every player and coin of the tick.
// An entity no longer added is gone, for every client.
func (g *game) Replicate(w *replica.World) {
	for i, p := range g.players {
		if p.mv != nil {
			s := p.mv.State()
			w.Add(replica.Entity{ID: uint32(i), Kind: kindPlayer, Tag: uint8(min(p.taken, 255)),
				State: kinematic.State{Pos: s.Pos, Vel: s.Vel}})
		}
	}
	for _, c := range g.coins {
		w.Add(replica.Entity{ID: c.id, Kind: kindCoin, State: kinematic.State{Pos: c.pos, Vel: c.vel}})
	}
}
