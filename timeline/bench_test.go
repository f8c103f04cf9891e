package timeline

import (
	"math"
	"testing"
	"time"

	"github.com/tether-net/tether/geom"
)

// benchTimeline is a timeline in steady state: a ball on an arc sent every
// 33 ms, arriving 40 ms late. The arc is free flight for as long as the
// benchmark runs, so the extrapolator has no floor.
func benchTimeline(b *testing.B) (*Timeline, time.Duration) {
	tl, err := New(Config{Extrapolate: Ballistic{Gravity: geom.V(0, -9.81, 0), Floor: math.Inf(-1)}.Extrapolate})
	if err != nil {
		b.Fatal(err)
	}
	at := time.Duration(0)
	for i := 0; i < 300; i++ {
		tl.Insert(arc(at), at+40*ms)
		tl.Sample(at + 40*ms)
		at += 33 * ms
	}
	return tl, at
}

// BenchmarkInsert appends to a full buffer (no Sample prunes it, so each
// Insert also evicts the oldest state).
func BenchmarkInsert(b *testing.B) {
	tl, at := benchTimeline(b)
	b.ReportAllocs()
	for b.Loop() {
		tl.Insert(arc(at), at+40*ms)
		at += 33 * ms
	}
}

// BenchmarkInsertSample is one arrival and one frame, the steady state of a
// 30 Hz stream (the frame recomputes the target delay after the arrival).
func BenchmarkInsertSample(b *testing.B) {
	tl, at := benchTimeline(b)
	b.ReportAllocs()
	for b.Loop() {
		tl.Insert(arc(at), at+40*ms)
		tl.Sample(at + 40*ms)
		at += 33 * ms
	}
}

func BenchmarkSample(b *testing.B) {
	tl, at := benchTimeline(b)
	// Frames 1/60 s apart between two arrivals; re-arm every 2 frames.
	now := at + 40*ms
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tl.Insert(arc(at), now)
			at += 33 * ms
		}
		now += 16667 * time.Microsecond
		tl.Sample(now)
		i++
	}
}

// BenchmarkSampleContact samples segments that contain a contact whose knot
// state was lost, each solved once and then evaluated from the cache.
func BenchmarkSampleContact(b *testing.B) {
	tl, at := benchTimeline(b)
	now := at + 40*ms
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			s := arc(at)
			if i%4 == 0 {
				s.Vel = s.Vel.Add(geom.V(-15, 2, 4))
			}
			tl.Insert(s, now)
			at += 33 * ms
		}
		now += 16667 * time.Microsecond
		tl.Sample(now)
		i++
	}
}
