package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// ErrInvalidPitch is wrapped by the error SetPitch returns for a Pitch field out
// of range; the message names the field.
var ErrInvalidPitch = errors.New("tether/web: invalid pitch")

// Pitch is what the page draws under the players, in metres. The pitch is
// centred on the origin: its length runs along X, with the goal lines at
// x = ±Length/2, and its width along Z. The page looks down from above with +X
// to the right and +Z towards the bottom of the screen.
type Pitch struct {
	Length     float64 `json:"length"`      // between the goal lines, along X
	Width      float64 `json:"width"`       // between the touch lines, along Z
	GoalWidth  float64 `json:"goal_width"`  // between the inner faces of the posts
	GoalHeight float64 `json:"goal_height"` // from the grass to the crossbar
	GoalDepth  float64 `json:"goal_depth"`  // from the goal line to the back net
	Margin     float64 `json:"margin"`      // from the lines to the boards
	// Arena, if set, draws an arena instead of a pitch: a floor of Length
	// by Width closed by walls Margin thick, no lines and no goals
	// (GoalWidth may be 0), and the Pillars on it.
	Arena   bool     `json:"arena,omitempty"`
	Pillars []Pillar `json:"pillars,omitempty"`
}

// Pillar is a square pillar standing in an arena: its centre and half its
// side, metres.
type Pillar struct {
	X    float64 `json:"x"`
	Z    float64 `json:"z"`
	Half float64 `json:"half"`
}

// DefaultPitch returns the sizes of a regulation pitch, the same as the soccer
// package's default: 105 m × 68 m, boards 3 m outside the lines, goals 7.32 m
// wide, 2.44 m high and 2 m deep. A Hub shows it until SetPitch is called.
func DefaultPitch() Pitch {
	return Pitch{Length: 105, Width: 68, GoalWidth: 7.32, GoalHeight: 2.44, GoalDepth: 2, Margin: 3}
}

// Validate reports the first field of p out of range, wrapping ErrInvalidPitch.
func (p Pitch) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
		min  float64 // exclusive when positive is set
		pos  bool
	}{
		{"Length", p.Length, 0, true}, {"Width", p.Width, 0, true},
		{"GoalWidth", p.GoalWidth, 0, !p.Arena}, {"GoalHeight", p.GoalHeight, 0, false},
		{"GoalDepth", p.GoalDepth, 0, false}, {"Margin", p.Margin, 0, false},
	} {
		switch {
		case math.IsNaN(f.v) || math.IsInf(f.v, 0):
			return fmt.Errorf("%w: Pitch.%s = %v, want a finite number", ErrInvalidPitch, f.name, f.v)
		case f.pos && f.v <= 0:
			return fmt.Errorf("%w: Pitch.%s = %v, want more than 0", ErrInvalidPitch, f.name, f.v)
		case f.v < 0:
			return fmt.Errorf("%w: Pitch.%s = %v, want 0 or more", ErrInvalidPitch, f.name, f.v)
		}
	}
	if p.GoalWidth >= p.Width {
		return fmt.Errorf("%w: Pitch.GoalWidth = %v, want less than Width = %v", ErrInvalidPitch, p.GoalWidth, p.Width)
	}
	for i, b := range p.Pillars {
		if !(b.Half > 0) || math.IsInf(b.Half, 0) || math.IsNaN(b.X+b.Z) || math.IsInf(b.X+b.Z, 0) {
			return fmt.Errorf("%w: Pitch.Pillars[%d] = %+v, want finite numbers and Half more than 0", ErrInvalidPitch, i, b)
		}
	}
	return nil
}

// Frame is one moment of the match as the page shows it: the server's true
// state and what every client shows at the same moment.
type Frame struct {
	ServerTime float64      `json:"t"`       // server time, seconds
	Truth      World        `json:"truth"`   // the server's true state
	Clients    []ClientView `json:"clients"` // every client's view, in a stable order
}

// World is the state of the match that the page draws: the ball, the players
// and the score, and in a game that shoots, the projectiles in flight and
// the marks of recent hits.
type World struct {
	Ball        Ball         `json:"ball"`
	Players     []Player     `json:"players"`
	Score       [2]int       `json:"score"`                 // goals of team 0 and team 1
	Projectiles []Projectile `json:"projectiles,omitempty"` // not sent when empty
	Marks       []Mark       `json:"marks,omitempty"`       // not sent when empty
}

// Projectile is a projectile in flight: its centre, metres, and the player
// who fired it. Predicted marks one the shooter's own client draws before
// the server has confirmed it.
type Projectile struct {
	ID        int        `json:"id"` // 0 while only predicted
	Shooter   int        `json:"shooter"`
	Pos       [3]float64 `json:"pos"`
	Predicted bool       `json:"predicted,omitempty"`
}

// Mark is a shot the server judged, for the page to draw for a moment: a
// hitscan shot's line From the shooter To where it stopped, or a
// projectile's end (From = To). Hit is the player it hit, or -1. T is the
// server time it was judged, seconds: the page fades a mark with its age.
type Mark struct {
	T       float64    `json:"t"`
	Shooter int        `json:"shooter"`
	From    [3]float64 `json:"from"`
	To      [3]float64 `json:"to"`
	Hit     int        `json:"hit"`
}

// Ball is the ball's centre, in metres (X, Y up, Z), and who has it.
type Ball struct {
	Pos   [3]float64 `json:"pos"`
	Owner int        `json:"owner"` // the possessor's player ID, or -1 for a free ball
}

// Player is one player character. Pos is the point on the grass under it, in
// metres (X, Y up, Z). Human marks the player that the page's keys drive.
// Facing (a unit vector on the ground) and Health (0 to 100) are drawn
// when set, and not sent when zero.
type Player struct {
	ID     int        `json:"id"`
	Team   int        `json:"team"` // 0 or 1
	Pos    [3]float64 `json:"pos"`
	Human  bool       `json:"human"`
	Facing [3]float64 `json:"facing,omitzero"`
	Health int        `json:"health,omitzero"`
}

// ClientView is what one client shows, with its live figures. Name labels it on
// the page; Link names its network (a netsim preset such as "wan", or any
// short text); Ball names how it shows the ball (a replicate.Method such as
// "tether" or "resim", or any short text).
type ClientView struct {
	Name  string      `json:"name"`
	Link  string      `json:"link"`
	Ball  string      `json:"ball"`
	World World       `json:"world"`
	Stats ClientStats `json:"stats"`
}

// ClientStats are one client's live figures. A NaN field is unknown (say, the
// clock has had no reply yet) and shows as a dash.
type ClientStats struct {
	ClockErrMs float64 `json:"clock_err_ms"` // |client's estimate of server time - server time|, ms
	// BallFidelityM is how far the drawn ball is from where the true ball
	// was at the server time the client renders it at (its fidelity to the
	// moment it claims to show), metres.
	BallFidelityM float64 `json:"ball_fidelity_m"`
	// BallPresentM is how far the drawn ball is from where the true ball is
	// now, metres: the gap the page draws as a line from a client's ball to
	// the true one, mostly the render delay times the ball's speed.
	BallPresentM float64 `json:"ball_present_m"`
	DelayMs      float64 `json:"delay_ms"`  // render delay behind the estimated server time, ms
	DownKbps     float64 `json:"down_kbps"` // received from the server, kilobits per second
	UpKbps       float64 `json:"up_kbps"`   // sent to the server, kilobits per second
	// ProjErrM is how far the client draws projectiles from where the
	// server has them at the same moment, metres: a game that shoots sets
	// it (not sent when 0; the page shows the column for an arena).
	ProjErrM float64 `json:"proj_err_m,omitzero"`
}

// KeyInput is the key and mouse state of a page, sent by the page whenever
// it changes. Up, Down, Left and Right are as the page shows the pitch: Up
// is -Z, Down +Z, Left -X and Right +X. Sprint is Shift, Kick is Space; a
// tap of Space arrives as a KeyInput with Kick set followed by one without.
// Primary and Secondary are the mouse's left and right buttons held over
// the view, tapped likewise. Aim is the point of the ground the mouse was
// last over, metres (x, z), valid when Aiming; the page sends it at most
// 30 times a second as the mouse moves.
type KeyInput struct {
	Up        bool       `json:"up"`
	Down      bool       `json:"down"`
	Left      bool       `json:"left"`
	Right     bool       `json:"right"`
	Sprint    bool       `json:"sprint"`
	Kick      bool       `json:"kick"`
	Primary   bool       `json:"primary"`
	Secondary bool       `json:"secondary"`
	Aiming    bool       `json:"aiming"`
	Aim       [2]float64 `json:"aim"`
}

// Steer passes a page's inputs from in (Hub.Inputs) to take, in order,
// until in is closed, and calls release each time idle passes after an
// input with nothing held (Held): a person who takes a player over with
// a key gives it back by leaving the keys alone. It returns when in is
// closed.
func Steer(in <-chan KeyInput, idle time.Duration, take func(KeyInput), release func()) {
	t := time.NewTimer(idle)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case k, ok := <-in:
			if !ok {
				return
			}
			take(k)
			if k.Held() {
				t.Stop()
			} else {
				t.Reset(idle)
			}
		case <-t.C:
			release()
		}
	}
}

// Axes returns the direction the keys of k ask for, as the page shows the
// pitch: x is +1 for Right alone, -1 for Left alone, else 0; z is +1 for
// Down alone, -1 for Up alone, else 0.
func (k KeyInput) Axes() (x, z float64) { return axis(k.Right, k.Left), axis(k.Down, k.Up) }

// axis is +1, -1 or 0 as pos or neg alone is held.
func axis(pos, neg bool) float64 {
	switch {
	case pos && !neg:
		return 1
	case neg && !pos:
		return -1
	}
	return 0
}

// Held reports whether k holds a key or a mouse button down.
func (k KeyInput) Held() bool {
	return k.Up || k.Down || k.Left || k.Right || k.Sprint || k.Kick || k.Primary || k.Secondary
}

// Precision of the numbers sent to pages, in decimal places: millimetres for
// positions (a tenth of one for the ball's fidelity, often under a
// millimetre), milliseconds for time, and two places for the other figures.
const (
	posPlaces  = 3
	timePlaces = 3
	statPlaces = 2
)

// appendFrame appends f to b as the page's frame message. Numbers are rounded
// to the places above; NaN and infinities are written as null.
func appendFrame(b []byte, f *Frame) []byte {
	b = append(b, `{"type":"frame","t":`...)
	b = appendNum(b, f.ServerTime, timePlaces)
	b = append(b, `,"truth":`...)
	b = appendWorld(b, &f.Truth)
	b = append(b, `,"clients":[`...)
	for i := range f.Clients {
		c := &f.Clients[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendString(b, c.Name)
		b = append(b, `,"link":`...)
		b = appendString(b, c.Link)
		b = append(b, `,"ball":`...)
		b = appendString(b, c.Ball)
		b = append(b, `,"world":`...)
		b = appendWorld(b, &c.World)
		b = append(b, `,"stats":{"clock_err_ms":`...)
		b = appendNum(b, c.Stats.ClockErrMs, statPlaces)
		b = append(b, `,"ball_fidelity_m":`...)
		b = appendNum(b, c.Stats.BallFidelityM, posPlaces+1)
		b = append(b, `,"ball_present_m":`...)
		b = appendNum(b, c.Stats.BallPresentM, posPlaces)
		b = append(b, `,"delay_ms":`...)
		b = appendNum(b, c.Stats.DelayMs, statPlaces)
		b = append(b, `,"down_kbps":`...)
		b = appendNum(b, c.Stats.DownKbps, statPlaces)
		b = append(b, `,"up_kbps":`...)
		b = appendNum(b, c.Stats.UpKbps, statPlaces)
		if c.Stats.ProjErrM != 0 {
			b = append(b, `,"proj_err_m":`...)
			b = appendNum(b, c.Stats.ProjErrM, posPlaces+1)
		}
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

func appendWorld(b []byte, w *World) []byte {
	b = append(b, `{"ball":{"pos":`...)
	b = appendVec(b, w.Ball.Pos)
	b = append(b, `,"owner":`...)
	b = strconv.AppendInt(b, int64(w.Ball.Owner), 10)
	b = append(b, `},"players":[`...)
	for i := range w.Players {
		p := &w.Players[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(p.ID), 10)
		b = append(b, `,"team":`...)
		b = strconv.AppendInt(b, int64(p.Team), 10)
		b = append(b, `,"pos":`...)
		b = appendVec(b, p.Pos)
		b = append(b, `,"human":`...)
		b = strconv.AppendBool(b, p.Human)
		if p.Facing != ([3]float64{}) {
			b = append(b, `,"facing":`...)
			b = appendVec(b, p.Facing)
		}
		if p.Health != 0 {
			b = append(b, `,"health":`...)
			b = strconv.AppendInt(b, int64(p.Health), 10)
		}
		b = append(b, '}')
	}
	b = append(b, `],"score":[`...)
	b = strconv.AppendInt(b, int64(w.Score[0]), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(w.Score[1]), 10)
	b = append(b, ']')
	if len(w.Projectiles) > 0 {
		b = append(b, `,"projectiles":[`...)
		for i := range w.Projectiles {
			p := &w.Projectiles[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, int64(p.ID), 10)
			b = append(b, `,"shooter":`...)
			b = strconv.AppendInt(b, int64(p.Shooter), 10)
			b = append(b, `,"pos":`...)
			b = appendVec(b, p.Pos)
			if p.Predicted {
				b = append(b, `,"predicted":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(w.Marks) > 0 {
		b = append(b, `,"marks":[`...)
		for i := range w.Marks {
			m := &w.Marks[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"t":`...)
			b = appendNum(b, m.T, timePlaces)
			b = append(b, `,"shooter":`...)
			b = strconv.AppendInt(b, int64(m.Shooter), 10)
			b = append(b, `,"from":`...)
			b = appendVec(b, m.From)
			b = append(b, `,"to":`...)
			b = appendVec(b, m.To)
			b = append(b, `,"hit":`...)
			b = strconv.AppendInt(b, int64(m.Hit), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendVec(b []byte, v [3]float64) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNum(b, x, posPlaces)
	}
	return append(b, ']')
}

// appendNum appends x with at most places decimals, without trailing zeros; NaN
// and infinities become null.
func appendNum(b []byte, x float64, places int) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, x, 'f', places, 64)
	if places > 0 {
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
		if b[len(b)-1] == '.' {
			b = b[:len(b)-1]
		}
	}
	if string(b[start:]) == "-0" {
		b = append(b[:start], '0')
	}
	return b
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD, and
// <, > and & are escaped, as encoding/json does.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// pitchMessage is the page's pitch message for p; play says the page can
// play in the browser (HubConfig.Play), opts what its client may ask for.
func pitchMessage(p Pitch, play bool, opts playOptions) []byte {
	b, err := json.Marshal(struct {
		Type  string `json:"type"`
		Pitch Pitch  `json:"pitch"`
		Play  bool   `json:"play,omitempty"`
		playOptions
	}{"pitch", p, play, opts})
	if err != nil { // only finite numbers reach here
		panic(err)
	}
	return b
}

// keysMessage is what a page sends: {"type":"keys", "up": true, ...}.
type keysMessage struct {
	Type string `json:"type"`
	KeyInput
}
