package match

import (
	"slices"
	"testing"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replicate"
)

// TestResimOwnKicks: bots whose clients show the ball by the resim method
// (soccer.ClientGame.BallMethod) predict their own kicks in their
// re-simulated world: the drawn ball leaves at the very next frame (its
// motion over that frame differs from its motion into the kick's frame by
// more than 2 cm, for every kick that changed the ball's velocity by at
// least twice that: 2.4 m/s); the server kicks from where the inputs claim the ball
// was; and when the server's states show the kick, the ball drawn in the
// present hardly moves (a median under 2 cm; what moves it is what the
// client could not know: a defender the ball meets soon after).
func TestResimOwnKicks(t *testing.T) {
	const dur = 45 * time.Second
	link, err := netsim.Preset("broadband")
	if err != nil {
		t.Fatal(err)
	}
	type drawn struct {
		pos    [2]geom.Vec3 // the ball in the last two frames, newest first
		frames int
		kicks  int // predicted kicks seen so far
	}
	bots := make([]drawn, 4)
	predicted, shown := 0, 0
	v, err := NewVirtual(Config{Seed: 1, Bots: len(bots), Ball: replicate.MethodResim, NoPrediction: true, Link: link,
		OnFrame: func(b *Bot, f *client.Frame, _ *soccer.View) {
			d := &bots[b.Index]
			e := f.Find(soccer.BallID)
			if !f.Ready || e == nil {
				d.frames = 0
				return
			}
			if kicks := b.Game().PredictedKicks(); len(kicks) > d.kicks {
				// The kick was predicted at the frame before.
				n := len(kicks)
				if d.frames >= 2 && b.Harness().Now() > 2*time.Second && kicks[n-1].Change >= 2.4 {
					predicted++
					before, after := d.pos[0].Sub(d.pos[1]), e.Pos.Sub(d.pos[0])
					if after.Sub(before).Len() > 0.02 {
						shown++
					}
				}
				d.kicks = n
			}
			d.pos[1], d.pos[0] = d.pos[0], e.Pos
			d.frames++
		}})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(dur)
	var corr []float64
	confirmed := 0
	for _, b := range v.Bots() {
		for _, k := range b.Game().PredictedKicks() {
			if k.Confirmed {
				confirmed++
				corr = append(corr, k.Correction)
			}
		}
		if st, ok := b.Game().ResimStats(); !ok || st.Rollbacks == 0 {
			t.Errorf("bot %d: resim stats %+v, %v", b.Index, st, ok)
		}
	}
	st := v.Game().Stats()
	slices.Sort(corr)
	t.Logf("%d kicks predicted after the warm-up, %d shown at the next frame; %d confirmed, correction median %.3f m, max %.3f m; the server took %d claims of %d kicks",
		predicted, shown, confirmed, corr[len(corr)/2], corr[len(corr)-1], st.KicksClaimed, st.Kicks)
	if predicted < 10 || shown != predicted {
		t.Errorf("%d of %d predicted kicks shown at the next frame, want all of at least 10", shown, predicted)
	}
	if st.KicksClaimed < uint64(confirmed)*8/10 {
		t.Errorf("the server took %d claimed origins, want most of the %d kicks confirmed", st.KicksClaimed, confirmed)
	}
	if m := corr[len(corr)/2]; m > 0.02 {
		t.Errorf("median correction %.3f m, want ≤ 0.02 m", m)
	}
}
