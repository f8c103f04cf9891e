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
// Every random choice comes from PCG streams seeded explicitly; there is no
// global random source and no clock inside Path or Scheduler. The same
// config, seed and sequence of Send times give the same fates, whatever the
// payload sizes (see Path for the exact contract), so methods compared on
// identically seeded links meet identical network conditions.
package netsim
