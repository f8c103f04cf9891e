package movement

import (
	"errors"
	"time"
)

// ErrNotPredicting is returned by Predicting.Reply before Start.
var ErrNotPredicting = errors.New("tether/movement: not predicting")

// Predicting is the own character of a game's client side that predicts
// it: its Client, made when a frame first places the character (Start),
// and what package client's Predictor asks of a game around it, the packet
// of moves due (AppendInput) and the server's replies (Reply). Embedded in
// a game's client side, it gives the game those two methods; the game's
// Predict starts it and moves the Client. The zero value predicts nothing
// yet. Not safe for concurrent use.
type Predicting[S, I any] struct {
	c *Client[S, I]
}

// Start makes the Client, starting from state initial, if it is not made
// yet (cfg, g and initial are then ignored), and returns it; or an error
// wrapping ErrConfig.
func (p *Predicting[S, I]) Start(cfg ClientConfig, g Game[S, I], initial S) (*Client[S, I], error) {
	if p.c == nil {
		c, err := NewClient(cfg, g, initial)
		if err != nil {
			return nil, err
		}
		p.c = c
	}
	return p.c, nil
}

// Own returns the Client, or nil before Start.
func (p *Predicting[S, I]) Own() *Client[S, I] { return p.c }

// AppendInput is package client's Predictor.AppendInput: once started, the
// packet of moves due at server time now (Client.AppendPacket), send
// saying whether one is, and predicting true; before, dst and false.
func (p *Predicting[S, I]) AppendInput(dst []byte, now time.Duration) (b []byte, send, predicting bool) {
	if p.c == nil {
		return dst, false, false
	}
	b, send = p.c.AppendPacket(dst, now)
	return b, send, true
}

// Reply is package client's Predictor.Reply: the server's acknowledgements
// and adjustments of the moves (Client.HandleReply), received at server time
// now; ErrNotPredicting before Start.
func (p *Predicting[S, I]) Reply(b []byte, now time.Duration) error {
	if p.c == nil {
		return ErrNotPredicting
	}
	return p.c.HandleReply(b, now)
}
