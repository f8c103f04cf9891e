// Command tag is a template for your own game on Tether: a game of tag in
// which up to 16 players chase 200 coins that slide about a 40 m square. It
// runs a server and a bot client for each player in one process, over real
// UDP on loopback, and prints what each client cost on the wire.
//
// Copy the directory and change the rules. The files, in the order to read
// them:
//
//   - replicate.go: what is replicated, declared (the schema) and filled in
//     each tick (Replicate). The library does the bytes.
//   - move.go: the own player's move function, shared by client and server,
//     for prediction (package movement).
//   - game.go: the server side: the rules, players joining and leaving, their
//     moves arriving.
//   - client.go: the client side: the schema, how entities are drawn, the own
//     player predicted; and a bot that walks toward the nearest coin.
//   - play.go: the wiring: a server, connect tokens, clients, over UDP.
//
// Run it with
//
//	go run ./examples/tag -bots 16 -duration 10s
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/tether-net/tether/netsim"
)

func main() {
	var o options
	flag.IntVar(&o.bots, "bots", 16, fmt.Sprintf("bot clients, 1 to %d", maxPlayers))
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long they play")
	flag.StringVar(&o.addr, "addr", "127.0.0.1:0", "the server's UDP address")
	flag.Parse()
	r, err := play(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r.write(os.Stdout)
}

// write prints a run's figures: per client, its traffic on the wire
// (datagrams as sent, netcode's headers and netsim.HeaderBytes of IPv4 and
// UDP headers each included), the coins its player took, the server's
// corrections of its prediction and its frames; then what the server's
// replication layer spent on each kind of entity.
func (r *result) write(w io.Writer) {
	secs := r.played.Seconds()
	kbps := func(bytes, datagrams uint64) float64 {
		return float64(bytes+netsim.HeaderBytes*datagrams) * 8 / 1000 / secs
	}
	fmt.Fprintf(w, "%d bots played %.1f s against %s\n", len(r.clients), secs, r.addr)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tconnected\tdown kbps\tup kbps\tcoins taken\tcorrections\tframes predicted\t")
	for i, c := range r.clients {
		fmt.Fprintf(tw, "%d\t%v\t%.1f\t%.1f\t%d\t%d\t%d/%d\t\n", i+1, c.connected,
			kbps(c.wire.BytesIn, c.wire.PacketsIn), kbps(c.wire.BytesOut, c.wire.PacketsOut),
			c.taken, c.corrections, c.predicted, c.frames)
	}
	tw.Flush()
	st := r.replica
	n := float64(max(st.Snapshots, 1))
	fmt.Fprintf(w, "server: %d snapshots (%d deltas), bits a snapshot: players %.0f, coins %.0f; %d entities left out by the budget\n",
		st.Snapshots, st.Deltas, st.KindBits[kindPlayer]/n, st.KindBits[kindCoin]/n, st.LeftOut)
}
