package lab

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tether-net/tether/netsim"
)

// Scenario is one lab run: a server and the clients that watch it, each through
// its own emulated link. Its JSON form is the scenario file format of the design
// document; unknown fields are errors.
type Scenario struct {
	Name       string  `json:"name"`
	Seed       uint64  `json:"seed"`
	DurationS  float64 `json:"duration_s"`
	TickHz     int     `json:"tick_hz"`
	SnapshotHz int     `json:"snapshot_hz"`
	FrameHz    int     `json:"frame_hz"`
	Game       string  `json:"game"`
	// LateShare is the render delay's knob for every client
	// (timeline.Config.LateShare: the share of frames that may be drawn
	// past the newest snapshot); 0 means the game's default.
	LateShare float64 `json:"late_share,omitempty"`
	// SnapshotBudget is server.Config.SnapshotBudget; 0 means one packet.
	SnapshotBudget int      `json:"snapshot_budget,omitempty"`
	Clients        []Client `json:"clients"`
}

// Client is one client of a scenario: how it estimates the server's clock, how it
// shows the ball, and the link it connects through.
type Client struct {
	Name  string            `json:"name"`
	Clock string            `json:"clock"`
	Ball  string            `json:"ball"`
	Link  netsim.LinkConfig `json:"link"`
}

// Defaults filled in for fields a scenario file leaves out.
const (
	DefaultSeed       = 1
	DefaultDurationS  = 60
	DefaultTickHz     = 60
	DefaultSnapshotHz = 30
	DefaultFrameHz    = 60
	DefaultGame       = GameBallDrill
)

// Games the lab can run: the ball drill, and the soccer match with bots
// (package game/soccer/match), in which each client of the scenario is one
// bot's client.
const (
	GameBallDrill = "ball-drill"
	GameSoccer    = "soccer"
	GameCrowd     = "crowd" // the crowd scene, package game/crowd
)

// Clock methods.
const (
	ClockTether  = "tether"
	ClockOneShot = "oneshot"
	ClockUE4     = "ue4"
)

// Ball methods.
const (
	BallTether = "tether"
	BallSeed   = "seed"
	// Unreal Engine 5's physics replication modes (package replicate), and
	// the oracle: a reference, not a method (see BallMetrics and report.md's
	// definitions).
	BallVelocity   = "velocity"
	BallPredictive = "predictive"
	BallResim      = "resim"
	BallOracle     = "oracle"
	// BallOraclePlayers is the other reference, of the soccer game: the
	// tether client's ball, drawn past the newest snapshot where the match
	// truly was, as if it knew every player's future motion exactly (and
	// so every touch): the best an interpolating client could do at
	// tether's render delay.
	BallOraclePlayers = "oracle-players"
	// BallGaffer is game crowd's baseline codec: the bit-packer of Gaffer
	// On Games' "Snapshot Compression" (package lab/gaffer) in place of the
	// replication layer.
	BallGaffer = "gaffer"
)

var (
	games        = []string{GameBallDrill, GameSoccer, GameArena, GameCrowd}
	clockMethods = []string{ClockTether, ClockOneShot, ClockUE4}
	ballMethods  = []string{BallTether, BallSeed, BallVelocity, BallPredictive, BallResim, BallOracle, BallOraclePlayers, BallGaffer}
)

// ErrScenario is wrapped by every error about a scenario's content.
var ErrScenario = errors.New("tether/lab: bad scenario")

func scenarioErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrScenario, fmt.Sprintf(format, args...))
}

// Preset returns the built-in scenario named after a link preset (lan,
// broadband, wan, mobile, lossy): the ball drill for 60 s, with clients that
// compare every clock method and every ball method (and the oracle) side by
// side through identically seeded copies of that link.
func Preset(name string) (Scenario, error) {
	link, err := netsim.Preset(name)
	if err != nil {
		return Scenario{}, fmt.Errorf("%w: unknown scenario %q (presets: %s)", ErrScenario, name, strings.Join(netsim.PresetNames(), ", "))
	}
	s := Scenario{
		Name: name,
		Clients: []Client{
			{Name: "tether", Clock: ClockTether, Ball: BallTether, Link: link},
			{Name: "seed", Clock: ClockOneShot, Ball: BallSeed, Link: link},
			{Name: "ue4", Clock: ClockUE4, Ball: BallTether, Link: link},
			{Name: "velocity", Clock: ClockTether, Ball: BallVelocity, Link: link},
			{Name: "predictive", Clock: ClockTether, Ball: BallPredictive, Link: link},
			{Name: "resim", Clock: ClockTether, Ball: BallResim, Link: link},
			{Name: "oracle", Clock: ClockTether, Ball: BallOracle, Link: link},
		},
	}
	return s.withDefaults(), s.withDefaults().Validate()
}

// ParseScenario reads a scenario file. Fields left out take their defaults; an
// unknown field or a bad value is an error naming it.
func ParseScenario(r io.Reader) (Scenario, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Scenario{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return Scenario{}, fmt.Errorf("%w: %v", ErrScenario, err)
	}
	if dec.More() {
		return Scenario{}, scenarioErr("trailing data after the scenario object")
	}
	s = s.withDefaults()
	return s, s.Validate()
}

func (s Scenario) withDefaults() Scenario {
	s.Seed = cmp.Or(s.Seed, DefaultSeed)
	s.DurationS = cmp.Or(s.DurationS, DefaultDurationS)
	s.TickHz = cmp.Or(s.TickHz, DefaultTickHz)
	s.SnapshotHz = cmp.Or(s.SnapshotHz, DefaultSnapshotHz)
	s.FrameHz = cmp.Or(s.FrameHz, DefaultFrameHz)
	s.Game = cmp.Or(s.Game, DefaultGame)
	s.Clients = append([]Client(nil), s.Clients...)
	for i := range s.Clients {
		c := &s.Clients[i]
		c.Name = cmp.Or(c.Name, fmt.Sprintf("c%d", i+1))
		c.Clock = cmp.Or(c.Clock, ClockTether)
		c.Ball = cmp.Or(c.Ball, BallTether)
	}
	return s
}

// Validate reports the first bad value in s, naming the field and what it allows.
func (s Scenario) Validate() error {
	switch {
	case s.DurationS < 3 || s.DurationS > 3600:
		return scenarioErr("duration_s = %v, want 3 <= duration_s <= 3600 (the first 2 s are warm-up)", s.DurationS)
	case s.TickHz < 1 || s.TickHz > 1000:
		return scenarioErr("tick_hz = %d, want 1..1000", s.TickHz)
	case s.SnapshotHz < 1 || s.SnapshotHz > s.TickHz:
		return scenarioErr("snapshot_hz = %d, want 1..tick_hz (%d)", s.SnapshotHz, s.TickHz)
	case s.FrameHz < 1 || s.FrameHz > 1000:
		return scenarioErr("frame_hz = %d, want 1..1000", s.FrameHz)
	case !slices.Contains(games, s.Game):
		return scenarioErr("game = %q, want one of %s", s.Game, strings.Join(games, ", "))
	case len(s.Clients) == 0:
		return scenarioErr("clients is empty, want at least one client")
	case len(s.Clients) > 64:
		return scenarioErr("%d clients, want at most 64", len(s.Clients))
	case !(s.LateShare >= 0 && s.LateShare < 1):
		return scenarioErr("late_share = %v, want 0 <= late_share < 1", s.LateShare)
	}
	seen := map[string]bool{}
	for i, c := range s.Clients {
		switch {
		case seen[c.Name]:
			return scenarioErr("clients[%d].name = %q is used twice", i, c.Name)
		case !slices.Contains(clockMethods, c.Clock):
			return scenarioErr("clients[%d].clock = %q, want one of %s", i, c.Clock, strings.Join(clockMethods, ", "))
		case !slices.Contains(ballMethods, c.Ball):
			return scenarioErr("clients[%d].ball = %q, want one of %s", i, c.Ball, strings.Join(ballMethods, ", "))
		case c.Ball == BallOraclePlayers && s.Game != GameSoccer:
			return scenarioErr("clients[%d].ball = %q is a reference of game %s (the drill has no players)", i, c.Ball, GameSoccer)
		}
		seen[c.Name] = true
		if err := c.Link.Validate(); err != nil {
			return fmt.Errorf("%w: clients[%d].link: %v", ErrScenario, i, err)
		}
	}
	switch s.Game {
	case GameSoccer:
		return s.validateSoccer()
	case GameArena:
		return s.validateArena()
	}
	return nil
}
