package match

import (
	"time"

	"github.com/tether-net/tether/client"
	"github.com/tether-net/tether/measure"
	"github.com/tether-net/tether/netsim"
)

// NetCounters are a live bot's traffic counters at one moment
// (Bot.NetCounters), between two of which NetBetween measures its traffic.
type NetCounters struct {
	At                   time.Duration // server time they were read at
	PacketsIn, BytesIn   uint64        // datagrams received, their bytes
	PacketsOut, BytesOut uint64        // datagrams sent, their bytes
	// In and Out are the bytes of the messages received and sent, by kind
	// (client.Stats); the clock's are its pings' and pongs'.
	In, Out measure.NetKinds
}

// NetCounters reads a live bot's counters at server time now; before the
// bot dialled they are zero.
func (b *Bot) NetCounters(now time.Duration) NetCounters {
	n := NetCounters{At: now}
	d := b.Driver()
	if d == nil {
		return n
	}
	st := d.Transport().Stats()
	n.PacketsIn, n.BytesIn, n.PacketsOut, n.BytesOut = st.PacketsIn, st.BytesIn, st.PacketsOut, st.BytesOut
	d.Do(func(c *client.Client) {
		st := c.Stats()
		n.In = measure.NetKinds{Snapshots: float64(st.SnapshotBytesIn), Replies: float64(st.ReplyBytesIn), Events: float64(st.EventBytesIn), Clock: float64(st.ClockBytesIn)}
		n.Out = measure.NetKinds{Inputs: float64(st.InputBytesOut), Acks: float64(st.AckBytesOut), Clock: float64(st.ClockBytesOut)}
	})
	return n
}

// NetBetween returns a live bot's traffic between two readings: the bytes
// of the datagrams it received (down: after its link's loss and duplicates)
// and sent (up), netcode's header included, plus 28 bytes of IPv4 and UDP
// header each (netsim.HeaderBytes); the clock's messages alone (their bytes
// inside the payloads); and both directions by kind, the rest of each
// (headers, framing, resends) in Headers.
func NetBetween(a, b NetCounters) measure.NetMetrics {
	secs := (b.At - a.At).Seconds()
	if secs <= 0 {
		return measure.NetMetrics{}
	}
	rate := func(bytes float64) float64 { return measure.Round(max(0, bytes) * 8 / secs / 1000) }
	down := float64(b.BytesIn - a.BytesIn + (b.PacketsIn-a.PacketsIn)*netsim.HeaderBytes)
	up := float64(b.BytesOut - a.BytesOut + (b.PacketsOut-a.PacketsOut)*netsim.HeaderBytes)
	kinds := func(total float64, a, b measure.NetKinds) *measure.NetKinds {
		k := measure.NetKinds{Snapshots: rate(b.Snapshots - a.Snapshots), Inputs: rate(b.Inputs - a.Inputs), Acks: rate(b.Acks - a.Acks),
			Replies: rate(b.Replies - a.Replies),
			Clock:   rate(b.Clock - a.Clock), Events: rate(b.Events - a.Events)}
		k.Headers = max(0, measure.Round(rate(total)-k.Snapshots-k.Inputs-k.Acks-k.Replies-k.Clock-k.Events))
		return &k
	}
	return measure.NetMetrics{
		DownKbps: rate(down), UpKbps: rate(up),
		ClockUpKbps: rate(b.Out.Clock - a.Out.Clock), ClockDownKbps: rate(b.In.Clock - a.In.Clock),
		Down: kinds(down, a.In, b.In), Up: kinds(up, a.Out, b.Out),
	}
}
