package match_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/lab"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/movement"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/server"
)

// TestMeterIsTheLab plays the lab's soccer scenario (every shipped ball
// method on a lossy link, 20 s) as a virtual match measured by a Meter, and
// gets the lab's figures for every client, field for field: the Meter is the
// lab's measurement of a soccer client, fed from the match's hooks.
func TestMeterIsTheLab(t *testing.T) {
	scen, err := lab.Preset("lossy")
	if err != nil {
		t.Fatal(err)
	}
	link := scen.Clients[0].Link
	scen.Game, scen.DurationS, scen.Clients = lab.GameSoccer, 20, nil
	for _, m := range replicate.Methods() {
		scen.Clients = append(scen.Clients, lab.Client{Name: string(m), Clock: lab.ClockTether, Ball: string(m), Link: link})
	}
	want, err := lab.Run(scen, lab.Options{})
	if err != nil {
		t.Fatal(err)
	}

	var spans measure.Spans
	for _, b := range link.Blackouts {
		at := time.Duration(b.AtS * float64(time.Second))
		spans = append(spans, measure.Span{From: at, To: at + time.Duration(b.LenS*float64(time.Second))})
	}
	cfg := match.Config{Seed: scen.Seed, Bots: len(scen.Clients), Link: link, PairedLinks: true,
		Server: server.Config{TickHz: scen.TickHz, SnapshotHz: scen.SnapshotHz}, FrameHz: scen.FrameHz,
		Balls: replicate.Methods(), Predicts: func(i int) bool { return replicate.Methods()[i] != replicate.MethodResim }}
	mc := match.MeterConfig{WarmUp: 2 * time.Second}
	for i := range scen.Clients {
		mc.Bots = append(mc.Bots, match.MeteredBot{Up: ms(link.Up.LatencyMs), Down: ms(link.Down.LatencyMs),
			Spikes: link.Up.Spikes != nil || link.Down.Spikes != nil, Blackouts: spans, Predicts: cfg.Predicts(i)})
	}
	mc.TickHz = scen.TickHz
	meter, err := match.NewMeter(mc)
	if err != nil {
		t.Fatal(err)
	}
	var v *match.Virtual
	cfg.OnTick = func(t *soccer.Truth) { meter.Tick(t, v.Game().Stats().Kicks) }
	cfg.OnFrame = func(b *match.Bot, f *client.Frame, _ *soccer.View) { meter.Frame(b, f) }
	cfg.OnMove = meter.Moved
	cfg.OnCorrection = func(b *match.Bot, c movement.Correction) { meter.Corrected(b, v.Sched.Now(), c) }
	if v, err = match.NewVirtual(cfg); err != nil {
		t.Fatal(err)
	}
	var start soccer.Truth
	v.Truth(&start)
	meter.Tick(&start, 0)
	end := time.Duration(scen.DurationS * float64(time.Second))
	v.RunUntil(end)
	meter.Stop(v.Bots())
	kicks, predicted, ownFrames := 0, 0, 0
	for i, res := range want.Results {
		fig := meter.Figures(i, end)
		kicks += *fig.Ball.Kicks
		ownFrames += fig.Own.Frames
		if fig.Ball.KicksPredicted != nil {
			predicted += *fig.Ball.KicksPredicted
		}
		got := lab.Result{Client: res.Client, ClockMethod: res.ClockMethod, BallMethod: res.BallMethod, Net: res.Net,
			Clock: fig.Clock, Ball: fig.Ball, Others: &fig.Others, Own: &fig.Own}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(res)
		if string(g) != string(w) {
			t.Errorf("%s: the meter's\n%s\nthe lab's\n%s", res.Client, g, w)
		}
	}
	// Not a match of empty figures: kicks, predicted kicks and frames of the
	// own predicted players were measured.
	t.Logf("%d kicks, %d predicted, %d frames of own players", kicks, predicted, ownFrames)
	if kicks == 0 || predicted == 0 || ownFrames == 0 {
		t.Errorf("%d kicks, %d predicted, %d frames of own players: want some of each", kicks, predicted, ownFrames)
	}
}

func ms(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
