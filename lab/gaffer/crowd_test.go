package gaffer_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/tether-net/tether/game/crowd"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/lab/gaffer"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// crowdRun steps the crowd (1,000 spheres, seed 1) for ticks at 60 Hz and
// calls each with every tick's world: positions, velocities and the
// physics' rotations.
func crowdRun(tb testing.TB, ticks int, each func(tick uint64, tm time.Duration, w *replica.World)) {
	g, err := crowd.NewGame(crowd.Config{Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	var w replica.World
	for n := uint64(1); n <= uint64(ticks); n++ {
		tm := time.Duration(n) * time.Second / 60
		g.Step(server.Tick{N: n, Time: tm, Dt: time.Second / 60}, nil)
		w.Reset()
		for i := range g.Config().Bodies {
			b := g.Body(i)
			w.Add(replica.Entity{ID: uint32(i), State: kinematic.State{Pos: b.Pos, Vel: b.Vel, Rot: b.Rot}})
		}
		each(n, tm, &w)
	}
}

// crowdConfig is the format adapted to the crowd's arena.
func crowdConfig() gaffer.Config {
	return gaffer.Config{Bodies: crowd.DefaultBodies, HalfWidth: crowd.HalfSize(crowd.DefaultBodies)}
}

// The bytes per snapshot of the article's coder and of the replication
// layer (crowd's schema: position to 1 mm, velocity to 5 cm/s, linear
// prediction; and the same with a 9-bit rotation) on the crowd, 60
// snapshots a second, every client acknowledging each snapshot a round
// trip after it was sent, no loss. The article's coder is run on the
// spheres' rotations in the physics (the article's full coder), and on the
// identity (as the crowd's replicated world leaves Rot).
func TestCrowdBytes(t *testing.T) {
	ticks := 60 * 20
	if testing.Short() {
		ticks = 60 * 4
	}
	const warm = 120 // ticks left out of the figures
	rtts := []uint64{1, 4, 7}
	plain := crowd.Schema
	rotated, err := replica.NewSchema(replica.Kind{Fields: []replica.Field{replica.Position(1000, replica.XYZ), replica.Velocity(20, replica.XYZ), replica.Rotation(9)}})
	if err != nil {
		t.Fatal(err)
	}
	layer, layerRot := replica.NewEncoder(plain, replica.Config{}), replica.NewEncoder(rotated, replica.Config{})
	gaf, gafRot := gaffer.NewEncoder(crowdConfig()), gaffer.NewEncoder(crowdConfig())
	for c := range rtts {
		layer.Join(c, replica.NoSelf)
		layerRot.Join(c, replica.NoSelf)
		gaf.Join(c)
		gafRot.Join(c)
	}
	names := []string{"gaffer, rotation", "gaffer, identity", "replica", "replica, rotation(9)"}
	bytes := make([][]float64, len(names))
	most := make([][]int, len(names))
	for i := range bytes {
		bytes[i], most[i] = make([]float64, len(rtts)), make([]int, len(rtts))
	}
	var unrotated replica.World
	var buf []byte
	crowdRun(t, ticks, func(tick uint64, tm time.Duration, w *replica.World) {
		unrotated.Reset()
		lw, rw := layer.World(), layerRot.World()
		lw.Reset()
		rw.Reset()
		for i := range w.Len() {
			e := *w.Entity(i)
			lw.Add(e)
			rw.Add(e)
			e.State.Rot = geom.Quat{} // the identity
			unrotated.Add(e)
		}
		for c, rtt := range rtts {
			acked := tick - min(tick, rtt)
			sizes := [...]int{
				len(gafRot.Append(buf[:0], c, tick, w, acked)),
				len(gaf.Append(buf[:0], c, tick, &unrotated, acked)),
				len(layer.Append(buf[:0], c, tick, tm, acked, 0)),
				len(layerRot.Append(buf[:0], c, tick, tm, acked, 0)),
			}
			if tick > warm {
				for k, n := range sizes {
					bytes[k][c] += float64(n) / float64(ticks-warm)
					most[k][c] = max(most[k][c], n)
				}
			}
		}
	})
	t.Logf("bytes per snapshot, mean (most) over %d s after %d s, by round trip:", (ticks-warm)/60, warm/60)
	head := fmt.Sprintf("%-22s", "")
	for _, r := range rtts {
		head += fmt.Sprintf(" %14s", fmt.Sprintf("%d ms", r*1000/60))
	}
	t.Log(head)
	for k, name := range names {
		row := fmt.Sprintf("%-22s", name)
		for c := range rtts {
			row += fmt.Sprintf(" %7.1f (%4d)", bytes[k][c], most[k][c])
		}
		t.Log(row)
	}
	for c := range rtts {
		t.Logf("replica / gaffer at %d ms: %.3f (identity), %.3f (rotation, both)", rtts[c]*1000/60, bytes[2][c]/bytes[1][c], bytes[3][c]/bytes[0][c])
		if bytes[1][c] > bytes[0][c] || bytes[1][c] == 0 {
			t.Errorf("gaffer: %.1f bytes unrotated, %.1f rotated", bytes[1][c], bytes[0][c])
		}
	}
}

// BenchmarkAppend encodes the crowd for one client, a round trip of 7
// ticks, quantising its world each time; BenchmarkDecode decodes a
// snapshot of the crowd against the one before.
func BenchmarkAppend(b *testing.B) {
	worlds, _ := crowdSnapshots(b)
	enc := gaffer.NewEncoder(crowdConfig())
	enc.Join(0)
	buf := make([]byte, 0, 8192)
	b.ReportAllocs()
	b.ResetTimer()
	tick := uint64(0)
	for b.Loop() {
		tick++
		buf = enc.Append(buf[:0], 0, tick, &worlds[tick%uint64(len(worlds))], tick-min(tick, 7))
	}
}

// BenchmarkAppendClients encodes the crowd for 8 clients a tick, each a
// round trip of 7 ticks: the world is quantised once a tick.
func BenchmarkAppendClients(b *testing.B) {
	const clients = 8
	worlds, _ := crowdSnapshots(b)
	enc := gaffer.NewEncoder(crowdConfig())
	for c := range clients {
		enc.Join(c)
	}
	buf := make([]byte, 0, 8192)
	b.ReportAllocs()
	tick := uint64(0)
	for b.Loop() {
		tick++
		for c := range clients {
			buf = enc.Append(buf[:0], c, tick, &worlds[tick%uint64(len(worlds))], tick-min(tick, 7))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*clients), "ns/client")
}

func BenchmarkDecode(b *testing.B) {
	_, snaps := crowdSnapshots(b)
	dec := gaffer.NewDecoder(crowdConfig())
	last := len(snaps) - 1
	for i, s := range snaps {
		if _, _, _, err := dec.Decode(nil, uint64(i+1), 0, s); err != nil {
			b.Fatal(err)
		}
	}
	// The last snapshot again: against the one before, which the decoder
	// still holds.
	out := make([]replica.Entity, 0, crowd.DefaultBodies)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if out, _, _, err = dec.Decode(out[:0], uint64(last+1), 0, snaps[last]); err != nil {
			b.Fatal(err)
		}
	}
}

// crowdSnapshots returns 2 s of the crowd's worlds after 2 s, and their
// snapshots each against the one before.
func crowdSnapshots(b *testing.B) ([]replica.World, [][]byte) {
	var worlds []replica.World
	crowdRun(b, 240, func(tick uint64, _ time.Duration, w *replica.World) {
		if tick > 120 {
			var c replica.World
			for i := range w.Len() {
				c.Add(*w.Entity(i))
			}
			worlds = append(worlds, c)
		}
	})
	enc := gaffer.NewEncoder(crowdConfig())
	enc.Join(0)
	snaps := make([][]byte, len(worlds))
	for i := range worlds {
		snaps[i] = enc.Append(nil, 0, uint64(i+1), &worlds[i], uint64(i))
	}
	return worlds, snaps
}
