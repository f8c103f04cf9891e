package drill

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/replicate"
	"github.com/tether-net/tether/timeline"
)

// ClientGame is the client side of the drill: a client.Game and a
// client.Viewer. Create it with NewClientGame.
type ClientGame struct {
	tickHz int
	method replicate.Method
	ball   timeline.Config
	clock  timeline.Config
	view   replicate.View // the ball's, once made
}

// ClientConfig configures a ClientGame. The zero value is the default.
type ClientConfig struct {
	// TickHz is the server's tick rate, at which the client's copy of the
	// world steps; 0 means 60.
	TickHz int
	// Ball is how the ball is shown; "" means replicate.MethodTether.
	Ball replicate.Method
	// Timeline configures the ball's timeline (MethodTether); nil means
	// DefaultTimeline. Its Extrapolate, if nil, is the ball's own physics.
	Timeline *timeline.Config
	// RenderClock configures the render delay (client.Game.RenderClock);
	// nil means DefaultRenderClock.
	RenderClock *timeline.Config
}

// DefaultTimeline is the ball's timeline configuration by default: a
// correction for a kick heard late is blended out with a 50 ms time constant
// rather than the timeline's 100 ms (still no faster than its 2 m/s), so the
// picture is wrong for half as long with no visible jump.
func DefaultTimeline() timeline.Config {
	return timeline.Config{CorrectionTime: 50 * time.Millisecond}
}

// DefaultRenderClock is the render delay's configuration by default. As the
// ball's own physics predicts it exactly until the next kick, a frame drawn
// past the newest state costs nothing unless a kick happens in it. So the
// render clock lets LateShare of the frames be late, more than the
// timeline's default, over 10 s of arrivals (at 30 Hz) rather than 3 s,
// which keeps a brief latency spike a small share of the window instead of
// raising the delay for seconds after it is over.
func DefaultRenderClock() timeline.Config {
	return timeline.Config{LateShare: LateShare, Window: 300}
}

// LateShare is the ball's render clock's share of frames drawn past the
// newest state by default (timeline.Config.LateShare).
const LateShare = 0.3

// NewClientGame returns the client side of the drill, or an error for an
// unknown method or a bad tick rate.
func NewClientGame(cfg ClientConfig) (*ClientGame, error) {
	if cfg.TickHz == 0 {
		cfg.TickHz = 60
	}
	if cfg.TickHz < 1 || cfg.TickHz > 1000 {
		return nil, fmt.Errorf("tether/drill: ClientConfig.TickHz = %d, want 1 to 1000", cfg.TickHz)
	}
	m, err := replicate.ParseMethod(string(cfg.Ball))
	if err != nil {
		return nil, err
	}
	g := &ClientGame{tickHz: cfg.TickHz, method: m, ball: DefaultTimeline(), clock: DefaultRenderClock()}
	if cfg.Timeline != nil {
		g.ball = *cfg.Timeline
	}
	if cfg.RenderClock != nil {
		g.clock = *cfg.RenderClock
	}
	if g.ball.Extrapolate == nil {
		w, ball, err := NewWorld(cfg.TickHz)
		if err != nil {
			return nil, err
		}
		horizon := g.ball.MaxExtrapolation
		if horizon <= 0 {
			horizon = 500 * time.Millisecond
		}
		back := soccer.BallExtrapolator(soccer.DefaultRules())
		g.ball.Extrapolate = replicate.NewWorldExtrapolator(w, ball, horizon, back.Extrapolate).Extrapolate
	}
	return g, nil
}

// Method returns how the ball is shown.
func (g *ClientGame) Method() replicate.Method { return g.method }

// Schema implements client.Replicated.
func (g *ClientGame) Schema() *replica.Schema { return Schema() }

// Timeline implements client.Game.
func (g *ClientGame) Timeline(uint8) timeline.Config { return g.ball }

// RenderClock implements client.Game.
func (g *ClientGame) RenderClock() timeline.Config { return g.clock }

// View implements client.Viewer: the ball's view for a method other than
// MethodTether, over the client's own copy of the world.
func (g *ClientGame) View(_ uint32, kind uint8) replicate.View {
	if kind != KindBall || g.method == replicate.MethodTether {
		return nil
	}
	w, ball, err := NewWorld(g.tickHz)
	if err != nil {
		return nil // checked in NewClientGame
	}
	v, err := replicate.NewView(g.method, w, ball)
	if err != nil {
		return nil // checked in NewClientGame
	}
	g.view = v
	return v
}

// BallView returns the ball's view, or nil before the first state or for
// MethodTether: for its statistics (a *replicate.WorldResim's re-simulated
// ticks).
func (g *ClientGame) BallView() replicate.View { return g.view }

var (
	_ client.Game       = (*ClientGame)(nil)
	_ client.Replicated = (*ClientGame)(nil)
	_ client.Viewer     = (*ClientGame)(nil)
)
