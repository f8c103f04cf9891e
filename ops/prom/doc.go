// Package prom exports a tether server's statistics in the Prometheus text
// format through github.com/prometheus/client_golang. The cores keep their
// plain Stats structs; a Collector reads a Snapshot of one match's at every scrape
// (through the caller's function, which takes the driver's locks) and turns
// it into metrics named tether_*: the tick loop (ticks, overruns, skipped
// ticks, a histogram of tick times with a bucket at the 60 Hz budget),
// clients (connected, slots, joins, leaves, refused, a histogram of their
// round trips as the server's reliable channel sees them, sampled by
// SampleRTT), payloads and datagrams in and out, netcode's drops by
// reason, the movement checks and the game's bad inputs, whether the match
// is in use; each labelled match="N", the match's number in its process,
// which may host several (tether serve -matches). Process adds the
// process's lifecycle state and the calls made to Agones. Handler serves
// them with the Go runtime's and the process's own metrics (CPU seconds,
// resident memory) and tether_build_info.
//
// Clients' clock error and render delay are measured on the clients, which
// the server cannot see; the bots of tether load report them.
package prom
