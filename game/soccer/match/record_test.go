package match

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/netsim"
)

// A client's frames measured from its FrameRecords, posted as JSON
// batches, give the figures its frames give the Meter directly: in a
// virtual match on the wan link, bot 0 is measured both ways, as row 0 (a
// bot's) and as a row Add added (a browser's), for 30 s; every figure of the
// two rows is the same.
func TestRecordMeasuresAsFrame(t *testing.T) {
	link, _ := netsim.Preset("wan")
	mb := MeteredBot{Link: measure.LinkOf(link), Predicts: true}
	meter, err := NewMeter(MeterConfig{WarmUp: 2 * time.Second, Bots: []MeteredBot{mb, mb}})
	if err != nil {
		t.Fatal(err)
	}
	// The records' clock starts 10 s before true time, on a wall clock.
	epoch := time.Unix(1_700_000_000, 0)
	origin := epoch.Add(-10 * time.Second)
	rm := newRecordMeter(meter, mb, 32, epoch, nil)
	// The row is added before the first tick, as the bots' are, so that
	// its warm-up ends when theirs does (a row added later warms up from
	// then).
	row := meter.Add(mb)
	var (
		v       *Virtual
		batch   FrameBatch
		corrs   []RecordedCorrection
		self    uint32
		batches int
	)
	post := func() {
		b, err := json.Marshal(&batch)
		if err != nil {
			t.Fatal(err)
		}
		if err := rm.take(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		batch.Frames = batch.Frames[:0]
		batches++
	}
	batch.Origin = origin.UnixNano()
	v, err = NewVirtual(Config{Seed: 5, Bots: 2, Link: link,
		OnTick: func(tr *soccer.Truth) { meter.Tick(tr, v.Game().Stats().Kicks) },
		OnFrame: func(b *Bot, f *client.Frame, _ *soccer.View) {
			meter.Frame(b, f)
			if b.Index != 0 {
				return
			}
			if self = f.Self; f.HasSelf && rm.rows[batch.Session] == nil {
				rm.rows[batch.Session] = &recordRow{row: row, self: self}
			}
			r := NewFrameRecord(b.TrueTime(f.Local)+10*time.Second, f, b.Game(), b.Input(), b.Client().Clock().Stats().Samples > 0)
			r.Corrections, corrs = corrs, nil
			batch.Frames = append(batch.Frames, r)
			if len(batch.Frames) >= 30 && f.HasSelf {
				post()
			}
		},
		OnMove: func(b *Bot, mv *movement.Move[soccer.MoveInput], s soccer.PlayerState) {
			meter.Moved(b, mv, s)
			if b.Index == 0 {
				rm.moved(self, mv, s)
			}
		},
		OnCorrection: func(b *Bot, c movement.Correction) {
			meter.Corrected(b, v.Sched.Now(), c)
			if rc, ok := Correction(v.Sched.Now()+10*time.Second, c); ok && b.Index == 0 {
				corrs = append(corrs, rc)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A server that shortens every move (they last 16.7 ms) corrects the
	// prediction often, so the corrections' path is compared too.
	v.Game().SetMovement(movement.ServerConfig{MaxMoveDelta: 10 * time.Millisecond})
	const end = 30 * time.Second
	v.RunUntil(end)
	if len(batch.Frames) > 0 {
		post()
	}
	meter.Stop(v.Bots()[:1])
	if meter.Rows() != 3 {
		t.Fatalf("%d rows, want 3 (two bots, one record)", meter.Rows())
	}
	bot, rec := meter.Figures(0, end), meter.Figures(2, end)
	if bot.Ball.Frames < 1000 || bot.Own.Frames < 1000 || bot.Own.Corrections == 0 {
		t.Fatalf("bot 0 measured %d frames of the ball, %d of its own player, %d corrections: too few to compare", bot.Ball.Frames, bot.Own.Frames, bot.Own.Corrections)
	}
	if !reflect.DeepEqual(bot, rec) {
		t.Errorf("figures from records differ from the frames':\n bot    %+v\n record %+v", bot, rec)
	}
	t.Logf("%d batches; ball %d frames, %d pops, fidelity p99 %.4f m; own %d frames, %d corrections",
		batches, rec.Ball.Frames, rec.Ball.Pops, rec.Ball.FidelityM.P99, rec.Own.Frames, rec.Own.Corrections)
}

// A batch that is not JSON, names no player or one beyond the server's
// slots, or another player than its session's first batch did, is refused
// with errBatch; frames before the one that knows its player go in that
// player's row.
func TestRecordMeterRefuses(t *testing.T) {
	meter, err := NewMeter(MeterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rm := newRecordMeter(meter, MeteredBot{}, 4, time.Now(), nil)
	for _, body := range []string{`{"frames": [`, `[1, 2]`, `{"frames": [{"self": 5, "hasSelf": true}]}`, `{"frames": [{"self": 0, "hasSelf": true}]}`} {
		if err := rm.take(strings.NewReader(body)); !errors.Is(err, errBatch) {
			t.Errorf("%s: %v, want errBatch", body, err)
		}
	}
	if err := rm.take(strings.NewReader(`{"frames": [{"t": 1, "self": 3}]}`)); !errors.Is(err, errBatch) {
		t.Errorf("a batch with no player: %v, want errBatch", err)
	}
	if err := rm.take(strings.NewReader(`{"frames": [{"t": 1, "self": 3}, {"t": 2, "self": 4, "hasSelf": true}]}`)); err != nil {
		t.Fatal(err)
	}
	if meter.Rows() != 1 {
		t.Errorf("%d rows, want 1 (player 4's)", meter.Rows())
	}
	if err := rm.take(strings.NewReader(`{"frames": [{"t": 3, "self": 3, "hasSelf": true}]}`)); !errors.Is(err, errBatch) {
		t.Errorf("a session's batch naming another player: %v, want errBatch", err)
	}
}

// FuzzRecordMeter: no batch crashes the record meter.
func FuzzRecordMeter(f *testing.F) {
	r := FrameRecord{T: time.Second, Ready: true, Self: 1, HasSelf: true, Server: time.Second, OwnSeq: 3,
		Entities:    []RecordedEntity{{ID: soccer.BallID}, {ID: 1, Kind: soccer.KindPlayer, Predicted: true}},
		Corrections: []RecordedCorrection{{T: time.Second, Error: 0.1}}}
	b, _ := json.Marshal(FrameBatch{Origin: 5, Frames: []FrameRecord{r, r}})
	f.Add(b)
	f.Add([]byte(`{"frames": [{"self": 4, "hasSelf": true, "ownSeq": -1}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		meter, err := NewMeter(MeterConfig{})
		if err != nil {
			t.Fatal(err)
		}
		var tr soccer.Truth
		meter.Tick(&tr, 0)
		rm := newRecordMeter(meter, MeteredBot{Predicts: true}, 8, time.Unix(0, 0), nil)
		if err := rm.take(bytes.NewReader(body)); err != nil && !errors.Is(err, errBatch) {
			t.Fatalf("error %v is not errBatch", err)
		}
		meter.Stop(nil)
		for i := range meter.Rows() {
			meter.Figures(i, time.Minute)
		}
	})
}

// The record meter is bounded: at most BrowserSlots sessions get a row, a
// batch holds at most 300 frames and a row an hour of them, and with the
// server's counters a batch's player must be a connected browser's.
func TestRecordMeterBounds(t *testing.T) {
	meter, err := NewMeter(MeterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rm := newRecordMeter(meter, MeteredBot{}, 32, time.Now(), nil)
	batch := func(session uint64, frames int) string {
		return fmt.Sprintf(`{"session": %d, "frames": [%s{"t": 1, "self": 3, "hasSelf": true}]}`, session, strings.Repeat(`{"t": 1},`, frames-1))
	}
	for s := range uint64(BrowserSlots) {
		if err := rm.take(strings.NewReader(batch(s, 1))); err != nil {
			t.Fatalf("session %d: %v", s, err)
		}
	}
	if err := rm.take(strings.NewReader(batch(100, 1))); !errors.Is(err, errBatch) || meter.Rows() != BrowserSlots {
		t.Fatalf("session %d: %v, %d rows; want errBatch, %d rows", BrowserSlots+1, err, meter.Rows(), BrowserSlots)
	}
	if err := rm.take(strings.NewReader(batch(0, maxBatchFrames+1))); !errors.Is(err, errBatch) {
		t.Fatalf("a batch of %d frames: %v, want errBatch", maxBatchFrames+1, err)
	}
	rm.rows[0].frames = maxRowFrames - 1
	if err := rm.take(strings.NewReader(batch(0, 2))); !errors.Is(err, errBatch) {
		t.Fatalf("a row's frames beyond %d: %v, want errBatch", maxRowFrames, err)
	}
	if err := rm.take(strings.NewReader(batch(0, 1))); err != nil {
		t.Fatalf("a row's last frame: %v", err)
	}

	playing := newRecordMeter(meter, MeteredBot{}, 32, time.Now(), func(id uint32) (NetCounters, bool) { return NetCounters{}, id == 4 })
	if err := playing.take(strings.NewReader(batch(1, 1))); !errors.Is(err, errBatch) || len(playing.rows) != 0 {
		t.Fatalf("a batch of player 3, whom no browser plays: %v", err)
	}
}
