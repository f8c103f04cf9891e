// Package ops is what an orchestrator sees of a game server process: one
// small lifecycle state machine (Starting, Ready, Allocated, Draining) that
// the process and the orchestrator adapters share, and the admin HTTP
// endpoints built on it (/healthz, /readyz, and optionally /metrics and
// net/http/pprof).
//
// # Lifecycle
//
// A process starts in Starting, moves to Ready once it accepts players, to
// Allocated once a match is in use (the orchestrator allocated it, or a
// player joined), back to Ready when a match is over and the process takes
// another (Release), and to Draining when it is told to stop (SIGTERM, the
// orchestrator's shutdown, or a match over): it then admits nobody, lets
// the match run for a grace period or until its players leave, tells the
// remaining players (netcode's disconnect packet) and exits. Draining is
// final. A MatchClock says when a match is over: its full time, every
// player gone for a while, or nobody come since the allocation. Adapters for
// orchestrators (package ops/agones) watch the transitions and report them;
// a GameLift or Edgegap adapter would do the same with their calls.
//
// A process that hosts several matches (tether serve -matches) gives each
// its own Lifecycle and MatchClock, Allocated while the match is in use
// and Released when it ends, and keeps one for the process that the
// adapters report: Allocated while any match is in use (or the
// orchestrator allocated it), Ready again once every match is free.
//
// # Admin endpoints
//
// Handler serves /healthz (200 while the process is live: the caller's
// Health check passes), /readyz (200 while Ready or Allocated, 503 while
// Starting or Draining: load balancers and matchmakers stop sending players
// at once), /metrics when a metrics handler is given (package ops/prom), and
// /debug/pprof/ when asked. Serve it on a loopback or cluster-internal
// address only.
//
// # A game server's process
//
// The rest is what a game server's main needs around a server.UDP, as
// tether serve uses it: TickHealth fails the health checks once the tick
// loop stalls; Drain stops admitting players and lets the match run out its
// grace period; UsedTokens keeps the connect tokens used in a file (each
// until it expires, the file bounded), so a
// restarted server still refuses them; RefusalLog says why connection
// requests were refused, without letting a flood of them flood the log.
package ops
