// Package netsim is a seeded network link emulator for tests, the lab and
// local play: latency, jitter drawn from several distributions, random and
// burst loss, duplication, reordering, asymmetric directions, latency spikes,
// bandwidth limits, blackouts, and the client's clock offset and drift.
//
// # Units
//
// Configuration (LinkConfig and its parts, which are also the lab's JSON
// scenario format) names its unit in every field: milliseconds (_ms),
// seconds (_s), kilobits per second (_kbps, 1 kbit = 1000 bits), parts per
// million (_ppm); rates and probabilities are fractions in [0, 1]. The API
// takes and returns time as time.Duration since an arbitrary origin: virtual
// time in tests and the lab starts at 0. Sizes are payload bytes; the 28-byte
// IPv4 + UDP header (HeaderBytes) is added for wire counts and serialisation.
//
// # Pieces
//
//   - Path emulates one direction: Send returns when (and whether, and how
//     many times) a datagram arrives. A Link is a client's Up and Down paths
//     and its Clock.
//   - Scheduler runs callbacks in virtual time, so a whole match can be
//     simulated deterministically and much faster than real time.
//   - PacketConn applies a Direction to a real net.PacketConn in real time.
//
// # Determinism
//
// Every random choice comes from seeded hashes and PCG streams; there is no
// global random source and no clock inside Path or Scheduler. A datagram's
// fate — lost, duplicated, the jitter of each copy — is a function of the
// path's seed, its direction, its send time and its index among the datagrams
// sent at that same instant; the latency spike schedule is a stream of its own
// that depends only on time. So what stays stable when a protocol changes:
//
//   - sending one datagram more or less, or other sizes, leaves the fate of
//     every other datagram (by send time) as it was; methods compared on
//     identically seeded links meet identical network conditions at the
//     instants they send;
//   - spikes, blackouts and loss bursts in time (Loss.BurstMs) are the same
//     whatever is sent;
//   - burst loss (Loss.MeanBurst > 1) is a Gilbert–Elliott chain stepped once
//     per datagram by that datagram's keyed draw, so an extra datagram changes
//     nothing unless it moves the chain, which then re-couples within about a
//     burst (on the wan preset, 985 of 1000 insertions changed no other fate,
//     the largest change was 19 datagrams);
//   - a bandwidth limit's queue depends on sizes and on every datagram before.
//
// A datagram sent at another instant (a protocol that sends at 30 Hz instead
// of 60, or a reply sent a little later) draws a fresh fate: stable draws make
// a figure move for what the protocol sends when, not for where a sequential
// stream happened to be.
package netsim
