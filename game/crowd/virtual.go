package crowd

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/harness"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/replica"
	"github.com/tether-net/tether/server"
)

// VirtualConfig configures a Virtual crowd. The zero value gives the
// defaults noted.
type VirtualConfig struct {
	// Game configures the crowd; its OnSnapshot is the Virtual's own.
	Game Config
	// SnapshotHz is the rate of snapshots; 0 means the tick rate (60 Hz).
	SnapshotHz int
	// FrameHz is the clients' frame rate; 0 means 60.
	FrameHz int
	// Budget is the server's byte budget of a snapshot
	// (server.Config.SnapshotBudget); 0 means one MTU-safe packet.
	Budget int
	// Links are the clients' links, one client each; every link is seeded
	// with Seed (identically seeded links: a paired comparison).
	Links []netsim.LinkConfig
	Seed  uint64
	// WarmUp is the true time before which nothing is measured; 0 means
	// 2 s.
	WarmUp time.Duration
	// Games, if set, are the client sides of the clients, by index (a nil
	// one: ClientGame), and Encode encodes the snapshots of the clients it
	// accepts, by index, in place of the replication layer
	// (server.Config.Encode): a baseline codec measured beside the layer in
	// the same run, as the lab's. What Encode appends is counted as the
	// client's snapshot bytes.
	Games  []client.Game
	Encode func(i int, dst []byte, tick uint64, t time.Duration, w *replica.World, acked uint64) ([]byte, bool)
	// OnEncode, if set, is called before every client's snapshot is
	// encoded, by the layer or by Encode, with the client's server slot,
	// the tick, its server time and the world the crowd replicated;
	// OnFrame with every frame client i draws and its harness client; and
	// OnReceived with every snapshot client i decoded. They are where a
	// meter of any game's entities (the lab's) taps the run.
	OnEncode   func(slot int, tick uint64, t time.Duration, w *replica.World)
	OnFrame    func(i int, hc *harness.Client, f *client.Frame)
	OnReceived func(i int, s *client.Snapshot)
}

// AckEvery is the crowd's clients' client.Config.AckEvery: they acknowledge
// every baseline at once, in a packet of its own, rather than every 100 ms
// as the client does by default, so the snapshots measured are coded against
// the freshest baseline a link allows. It costs more up than it saves down:
// testdata/crowd-gaffer.json on lan 57.2 kbps down and 26.1 up, against
// 68.4 and 7.1 every 100 ms; on wan 90.4 and 21.0 against 99.7 and 7.1.
const AckEvery = -1

// Virtual is a crowd watched by clients over emulated links in virtual
// time (package harness), measured by a Meter.
type Virtual struct {
	game  *Game
	rig   *harness.Rig
	meter *Meter
}

// NewVirtual sets up the crowd and its clients, which join 10 ms apart
// from time 0; run it with RunUntil.
func NewVirtual(cfg VirtualConfig) (*Virtual, error) {
	if cfg.WarmUp == 0 {
		cfg.WarmUp = 2 * time.Second
	}
	v := &Virtual{}
	slots := map[int]*ClientMeter{}
	gc := cfg.Game
	gc.OnSnapshot = func(e Encoded) {
		if c := slots[e.Client]; c != nil {
			c.Encoded(e)
		}
	}
	var err error
	if v.game, err = NewGame(gc); err != nil {
		return nil, err
	}
	tickHz := v.game.cfg.TickHz
	mc := MeterConfig{WarmUp: cfg.WarmUp}
	for _, l := range cfg.Links {
		mc.Clients = append(mc.Clients, measure.LinkOf(l))
	}
	v.meter = NewMeter(v.game.cfg.Bodies, mc)
	snapHz := cfg.SnapshotHz
	if snapHz == 0 {
		snapHz = tickHz
	}
	sc := server.Config{TickHz: tickHz, SnapshotHz: snapHz, SnapshotBudget: cfg.Budget, MaxClients: max(1, len(cfg.Links)),
		OnTick: func(t server.Tick) { v.meter.Tick(v.game, t) }}
	if cfg.Encode != nil || cfg.OnEncode != nil {
		sc.Encode = func(dst []byte, slot int, tick uint64, t time.Duration, w *replica.World, acked uint64) ([]byte, bool) {
			if cfg.OnEncode != nil {
				cfg.OnEncode(slot, tick, t, w)
			}
			if cfg.Encode == nil {
				return dst, false
			}
			i := -1
			for _, hc := range v.rig.Clients() {
				if hc.Slot() == slot {
					i = hc.Index
				}
			}
			if i < 0 {
				return dst, false
			}
			n := len(dst)
			b, ok := cfg.Encode(i, dst, tick, t, w, acked)
			if ok {
				v.meter.Client(i).Encoded(Encoded{Client: slot, Time: t, Bytes: len(b) - n, Delta: acked != 0})
			}
			return b, ok
		}
	}
	if v.rig, err = harness.New(harness.Config{Server: sc, FrameHz: cfg.FrameHz}, v.game); err != nil {
		return nil, fmt.Errorf("tether/crowd: %w", err)
	}
	for i, l := range cfg.Links {
		cm := v.meter.Client(i)
		var game client.Game = &ClientGame{}
		if i < len(cfg.Games) && cfg.Games[i] != nil {
			game = cfg.Games[i]
		}
		_, err := v.rig.Join(time.Duration(i)*10*time.Millisecond, harness.ClientConfig{Link: l, Seed: cfg.Seed, Game: game,
			Core: client.Config{AckEvery: AckEvery, OnSnapshot: func(_ time.Duration, s *client.Snapshot) {
				cm.Received(s)
				if cfg.OnReceived != nil {
					cfg.OnReceived(i, s)
				}
			}},
			OnFrame: func(hc *harness.Client, f *client.Frame) {
				if hc.Slot() >= 0 {
					slots[hc.Slot()] = cm
				}
				cm.Frame(hc.Now(), f, hc.Core().Clock().Stats().Samples > 0)
				if cfg.OnFrame != nil {
					cfg.OnFrame(i, hc, f)
				}
			}})
		if err != nil {
			return nil, fmt.Errorf("tether/crowd: %w", err)
		}
	}
	return v, nil
}

// RunUntil runs the crowd and its clients to true time t.
func (v *Virtual) RunUntil(t time.Duration) { v.rig.RunUntil(t) }

// Game returns the server's game.
func (v *Virtual) Game() *Game { return v.game }

// Rig returns the harness the crowd runs on.
func (v *Virtual) Rig() *harness.Rig { return v.rig }

// Figures returns client i's figures, its traffic averaged over the time
// run so far.
func (v *Virtual) Figures(i int) Figures {
	return v.meter.Figures(i, v.rig.Clients()[i].Traffic(), v.rig.Now())
}
