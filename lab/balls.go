package lab

import (
	"time"

	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/kinematic"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/timeline"
)

// ballView is a client's way of showing the server's ball.
type ballView interface {
	// receive takes a state from a snapshot; arrival is the client's estimate
	// of server time when it arrived.
	receive(s kinematic.State, arrival time.Duration)
	// render returns what the client draws at estimated server time now.
	render(now time.Duration) ballFrame
}

// ballFrame is the ball as a client draws it at one frame.
type ballFrame struct {
	ok           bool // something to draw
	pos          geom.Vec3
	rot          geom.Quat
	renderTime   time.Duration // the server time the client claims to show
	extrapolated bool          // past the newest state received
	frozen       bool          // held still for lack of data
	cut          bool          // the first frame after a teleport, drawn as a jump
}

// newBallView returns the ball method named method, for a server stepping
// its world at tickHz.
func newBallView(method string, c *client, tickHz int) ballView {
	switch method {
	case BallSeed:
		return &replicatedBall{view: &replicate.Seed{}}
	case BallVelocity, BallPredictive, BallResim:
		return newReplicatedBall(method, tickHz)
	case BallOracle:
		return newOracleBall(c, tickHz)
	}
	return newTetherBall(tickHz, tetherBallConfig())
}

// tetherBall is Tether's snapshot interpolation: the timeline, predicting the
// ball with the server's own ball physics.
type tetherBall struct{ tl *timeline.Timeline }

// tetherBallConfig is the timeline configuration of the tether ball method;
// its Extrapolate is the ball's own physics (see ballPredictor). Since that
// predicts the ball exactly until the next kick, the render delay need not
// cover the late tail of the arrivals: a state later than the delay costs
// nothing unless a kick happens in it. So the lateness quantile is 85 % rather
// than 95 %, over 10 s of arrivals rather than 3 s, which keeps a brief
// latency spike (a tenth to half a second on a mobile link) a small share of
// the window instead of raising the delay for seconds after it is over. The
// delay is then mostly the median lateness plus three quarters of the send
// interval (the timeline's default), which covers a lost state, and so a lost
// kick, on links with little jitter.
//
// When a kick is heard late, the correction is blended out with a 50 ms time
// constant rather than the default 100 ms, still no faster than the default
// 2 m/s: the picture is wrong for half as long, with no visible jump.
func tetherBallConfig() timeline.Config {
	return timeline.Config{Quantile: 0.85, Window: 300, CorrectionTime: 50 * time.Millisecond}
}

func newTetherBall(tickHz int, cfg timeline.Config) *tetherBall {
	back := soccer.BallExtrapolator(soccer.DefaultRules())
	horizon := cfg.MaxExtrapolation
	if horizon <= 0 {
		horizon = 500 * time.Millisecond
	}
	w, ball := newBallWorld(tickHz)
	cfg.Extrapolate = replicate.NewWorldExtrapolator(w, ball, horizon, back.Extrapolate).Extrapolate
	tl, err := timeline.New(cfg)
	if err != nil {
		panic(err)
	}
	return &tetherBall{tl: tl}
}

func (b *tetherBall) receive(s kinematic.State, arrival time.Duration) {
	b.tl.Insert(s, arrival)
}

func (b *tetherBall) render(now time.Duration) ballFrame {
	f := b.tl.Sample(now)
	return ballFrame{ok: f.Valid, pos: f.Pos, rot: f.Rot, renderTime: f.Time, extrapolated: f.Extrapolated, frozen: f.Frozen, cut: f.Cut}
}
