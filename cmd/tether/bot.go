package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/game/soccer"
	"github.com/tether-net/tether/game/soccer/match"
	"github.com/tether-net/tether/internal/privfile"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netcode"
	"github.com/tether-net/tether/netsim"
	"github.com/tether-net/tether/transport/udp"
)

// botConnectWait is how long a bot waits to connect before giving up (the
// token's own timeouts usually end the attempt sooner).
const botConnectWait = 15 * time.Second

// runBot connects to a server with a connect token, plays one player as a bot
// (soccer.Bot, deciding from what its client draws) and prints what it
// measured after a warm-up of a second: the clock's own error bound (a bot
// cannot know the server's true time), the ball's render delay, extrapolated
// and frozen frames, and the traffic in datagrams with 28 bytes of IPv4 and
// UDP header each.
//
// Without the server's truth the lab's ball.pops cannot be measured exactly:
// the bot estimates them in hindsight, against the ball states it received
// (match.HindsightMeter). In virtual matches (seeds 1-50, 4 bots, 60 s) it
// counts 146, 1161, 392 and 555 pops where the server's truth gives 230,
// 1362, 368 and 485 (broadband, wan, mobile, lossy; see match's tests).
// fidelity_m is the distance from the drawn ball to that curve at its render
// time.
func runBot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bot", stderr,
		"usage: tether bot [-token FILE] [-duration D] [-json] [-seed N] [-protocol-id ID]",
		"       tether token ... | tether bot [-duration D]",
		"Connects to a tether serve with a connect token, plays one player as a bot, and prints",
		"its clock bound, render delay, traffic and ball smoothness.",
	)
	tokenPath := fs.String("token", "", "connect token file from tether token -o (raw or base64); without it, the base64 token is read from standard input")
	duration := fs.Duration("duration", 30*time.Second, "how long to play once connected (0: until interrupted)")
	asJSON := fs.Bool("json", false, "print the metrics as JSON")
	seed := fs.Uint64("seed", 0, "seed of the bot's decisions (0: from the clock)")
	pid := protocolFlag(fs, "protocol id of the game, as given to tether serve; a token for another is refused before sending")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *duration < 0 {
		return usagef("-duration %v: want 0 (until interrupted) or more", *duration)
	}
	tok, err := readToken(*tokenPath, os.Stdin)
	if err != nil {
		return err
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())
	}

	start := time.Now()
	pb, err := dialBot(tok, *pid, *seed)
	if err != nil {
		return err
	}
	driver := pb.driver
	defer driver.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	wait := time.NewTimer(botConnectWait)
	defer wait.Stop()
	select {
	case <-driver.Connected():
	case <-driver.Done():
		return fmt.Errorf("could not connect to %s: %v%s", servers(tok), driver.Transport().State(), connectCauses(driver.Transport().State()))
	case <-wait.C:
		return fmt.Errorf("not connected to %s after %v: %v%s", servers(tok), botConnectWait, driver.Transport().State(), connectCauses(netcode.StateRequestTimedOut))
	case <-ctx.Done():
		return nil
	}
	slot := driver.Transport().ClientIndex()
	if !*asJSON {
		fmt.Fprintf(stdout, "tether bot: connected to %s in slot %d after %v; playing", servers(tok), slot, time.Since(start).Round(time.Millisecond))
		if *duration > 0 {
			fmt.Fprintf(stdout, " for %v", *duration)
		}
		fmt.Fprintln(stdout)
	}
	playCtx := ctx
	if *duration > 0 {
		var cancel context.CancelFunc
		playCtx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	var ended error
	select {
	case <-playCtx.Done():
	case <-driver.Done():
		ended = fmt.Errorf("connection ended: %v", driver.Transport().State())
	}
	stop()
	rep, err := pb.finish(slot, time.Since(start))
	ended = cmp.Or(ended, err)
	if *asJSON {
		if err := printJSON(stdout, rep); err != nil {
			return err
		}
	} else if err := rep.write(stdout); err != nil {
		return err
	}
	return ended
}

// tokenRefused explains a token the client refused before sending.
func tokenRefused(err error) error {
	switch {
	case errors.Is(err, netcode.ErrTokenExpired):
		return fmt.Errorf("%w; mint a new one (tether token; -expiry sets how long it lasts)", err)
	case errors.Is(err, netcode.ErrProtocolID):
		return fmt.Errorf("%w; mint it with tether token -protocol-id matching the server's, or give -protocol-id", err)
	}
	return err
}

// connectCauses explains a connection attempt that ended in st.
func connectCauses(st netcode.ClientState) string {
	switch c := st.Causes(); {
	case st == netcode.StateRequestTimedOut:
		return "\n" + c + "\ntether serve logs the reason for each refused request."
	case c != "":
		return "\n" + c
	}
	return ""
}

// playBot is a bot playing through a client driver, measured by its meter.
type playBot struct {
	driver *client.UDP
	meter  *match.HindsightMeter
}

// dialBot starts a bot connecting with tok to a server running protocol pid;
// seed seeds its decisions.
func dialBot(tok *netcode.ConnectToken, pid, seed uint64) (*playBot, error) {
	conn, err := udp.ListenFor(tok.ServerAddresses)
	if err != nil {
		return nil, err
	}
	m := match.NewHindsightMeter(soccer.Rules{}, botWarmUp)
	b, err := match.Dial(conn, tok, match.Config{Seed: seed, NoPrediction: true,
		OnSnapshot: func(_ *match.Bot, _ time.Duration, s *client.Snapshot) { m.Snapshot(s) },
		OnFrame:    func(_ *match.Bot, f *client.Frame, _ *soccer.View) { m.Frame(f) },
	}, udp.ClientConfig{Netcode: netcode.ClientConfig{ProtocolID: pid}})
	if err != nil {
		conn.Close()
		return nil, tokenRefused(err)
	}
	driver := b.Driver()
	return &playBot{driver: driver, meter: m}, nil
}

// finish stops the bot and returns its figures over played.
func (pb *playBot) finish(slot int, played time.Duration) (*botReport, error) {
	ts := pb.driver.Transport().Stats()
	var cs clockSummary
	pb.driver.Do(func(c *client.Client) {
		st := c.Clock().Stats()
		cs = clockSummary{MinRTTMs: durMs(st.MinDelay), DriftPPM: roundTo(st.DriftPPM, 3), Pings: st.Pings, Replies: st.Samples}
	})
	err := pb.driver.Close()
	if errors.Is(err, udp.ErrClosed) {
		err = nil
	}
	return report(slot, played, pb.meter.Figures(), ts, cs), err
}

// maxTokenFile bounds a token file: a token is 2048 bytes, 2732 in base64.
const maxTokenFile = 8 << 10

// readToken reads a connect token from path (2048 raw bytes, or base64), or
// base64 from stdin when path is empty.
func readToken(path string, stdin io.Reader) (*netcode.ConnectToken, error) {
	var b []byte
	var err error
	from := path
	if path == "" {
		from = "standard input"
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return nil, usagef("no token: give -token FILE, or pipe the base64 token from tether token into standard input")
		}
		b, err = privfile.ReadAll(stdin, from, maxTokenFile)
	} else {
		b, err = privfile.Read(path, maxTokenFile)
	}
	if err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	tok := new(netcode.ConnectToken)
	if len(b) == netcode.ConnectTokenSize {
		err = tok.UnmarshalBinary(b)
	} else if err = tok.UnmarshalText(b); len(bytes.TrimSpace(b)) == 0 {
		err = fmt.Errorf("%s is empty", from)
	}
	if err != nil {
		return nil, fmt.Errorf("token from %s: neither a %d-byte token nor base64 of one: %w", from, netcode.ConnectTokenSize, err)
	}
	return tok, nil
}

func servers(tok *netcode.ConnectToken) string {
	s := make([]string, len(tok.ServerAddresses))
	for i, a := range tok.ServerAddresses {
		s[i] = a.String()
	}
	return strings.Join(s, ", ")
}

// botWarmUp: the bot's figures leave out the frames of its first second,
// while its clock and render delay settle.
const botWarmUp = time.Second

// botReport is what tether bot prints.
type botReport struct {
	Slot     int          `json:"slot"`
	PlayedS  float64      `json:"played_s"`
	Frames   int          `json:"frames"`
	NotReady int          `json:"not_ready_frames"` // after the warm-up
	Clock    clockSummary `json:"clock"`
	// Ball is measured as the lab measures it (measure.BallMeter), each
	// frame at the bot's estimate of server time, against the hindsight
	// curve (measure.Hindsight; see runBot's documentation): fidelity_m is the distance from
	// the drawn ball to the curve at its render time, delay_ms the render
	// delay behind the estimate, present_m the distance to the curve at
	// the estimate; blackout_frames counts the frames where the curve is
	// unknown. PopFrames counts the frames the pops were judged over.
	Ball struct {
		measure.BallMetrics
		PopFrames int `json:"pop_frames"`
	} `json:"ball"`
	Net struct {
		DownKbps     float64 `json:"down_kbps"`    // datagrams received plus 28 bytes each
		UpKbps       float64 `json:"up_kbps"`      // datagrams sent plus 28 bytes each
		DatagramsIn  uint64  `json:"datagrams_in"` // received
		BytesIn      uint64  `json:"bytes_in"`     // their bytes, netcode headers included
		DatagramsOut uint64  `json:"datagrams_out"`
		BytesOut     uint64  `json:"bytes_out"`
	} `json:"net"`
}

// clockSummary is the bot's clock: its reported error bound, and the
// estimator's view of the link.
type clockSummary struct {
	BoundMs  measure.Stat `json:"bound_ms"`   // the clock's own error bound, after the warm-up
	MinRTTMs float64      `json:"min_rtt_ms"` // least round trip seen, less the server's hold
	DriftPPM float64      `json:"drift_ppm"`  // estimated server clock rate over ours, minus 1
	Pings    uint64       `json:"pings"`
	Replies  uint64       `json:"replies"`
}

// report returns the bot's figures: what its meter measured over played,
// its transport's counters and its clock.
func report(slot int, played time.Duration, fig match.HindsightFigures, ts netcode.ClientStats, cs clockSummary) *botReport {
	r := &botReport{Slot: slot, PlayedS: roundTo(played.Seconds(), 3), Frames: fig.Frames, NotReady: fig.NotReady, Clock: cs}
	r.Clock.BoundMs = fig.BoundMs
	r.Ball.BallMetrics, r.Ball.PopFrames = fig.Ball, fig.PopFrames
	secs := played.Seconds()
	rate := func(bytes, n uint64) float64 { return roundTo(float64(bytes+n*netsim.HeaderBytes)*8/secs/1000, 3) }
	r.Net.DownKbps, r.Net.UpKbps = rate(ts.BytesIn, ts.PacketsIn), rate(ts.BytesOut, ts.PacketsOut)
	r.Net.DatagramsIn, r.Net.BytesIn, r.Net.DatagramsOut, r.Net.BytesOut = ts.PacketsIn, ts.BytesIn, ts.PacketsOut, ts.BytesOut
	return r
}

// write prints the report as a short table.
func (r *botReport) write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	c, b := r.Clock, r.Ball
	fmt.Fprintf(tw, "slot\t%d\n", r.Slot)
	fmt.Fprintf(tw, "played\t%.1f s, %d frames (%d without a clock after the warm-up)\n", r.PlayedS, r.Frames, r.NotReady)
	fmt.Fprintf(tw, "clock bound\tp50 %.2f ms, p99 %.2f ms, max %.2f ms\n", c.BoundMs.P50, c.BoundMs.P99, c.BoundMs.Max)
	fmt.Fprintf(tw, "clock\tleast round trip %.1f ms, drift %+.1f ppm, %d pings, %d replies\n", c.MinRTTMs, c.DriftPPM, c.Pings, c.Replies)
	fmt.Fprintf(tw, "render delay\tmean %.1f ms, p99 %.1f ms\n", b.DelayMs.Mean, b.DelayMs.P99)
	fmt.Fprintf(tw, "ball\t%d frames, %d extrapolated, %d frozen, %d after a teleport\n", b.Frames, b.ExtrapFrames, b.FrozenFrames, b.TeleportFrames)
	fmt.Fprintf(tw, "pops\t%d in %d frames judged (against the states received, in hindsight)\n", b.Pops, b.PopFrames)
	fmt.Fprintf(tw, "fidelity\tp99 %.3f m, max %.3f m (to the states received, at render time)\n", b.FidelityM.P99, b.FidelityM.Max)
	fmt.Fprintf(tw, "down\t%.1f kbit/s (%d datagrams, %d bytes)\n", r.Net.DownKbps, r.Net.DatagramsIn, r.Net.BytesIn)
	fmt.Fprintf(tw, "up\t%.1f kbit/s (%d datagrams, %d bytes)\n", r.Net.UpKbps, r.Net.DatagramsOut, r.Net.BytesOut)
	return tw.Flush()
}
