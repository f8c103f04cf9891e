// Package agones reports a game server's lifecycle (package ops) to Agones,
// the open game server orchestrator on Kubernetes, through the REST API of
// the SDK sidecar that Agones runs in every game server pod
// (http://localhost:$AGONES_SDK_HTTP_PORT): POST /ready when the lifecycle
// becomes Ready, POST /allocate when it becomes Allocated (a match is in
// use, so Agones neither reallocates nor scales the server down), POST
// /health at an interval while the process is healthy and not yet shut down
// (Agones marks a server that stops pinging Unhealthy and replaces it), and
// POST /shutdown when the process has drained or its match is over. Every
// POST sends the empty JSON object. GameServer reads the GameServer record
// (GET /gameserver): its name for the logs and, with Dynamic or
// Passthrough ports, the address clients reach the server at
// (GameServer.PublicAddress), read before the server starts. While Ready,
// Run reads the record every HealthEvery and follows an allocation Agones
// made (a GameServerAllocation) into Allocated. SetCounter keeps one of the
// GameServer's Counters (PATCH /v1beta1/counters/NAME, the Counters API,
// beta) at a count and capacity: a process hosting several matches
// reports its matches in use in the Counter rooms, as Agones' high-density
// pattern does. Calls are retried while the
// sidecar is not up yet, as the Agones documentation advises; every try is
// counted (Calls, for tether_agones_calls_total) and a failed one logged.
// The Agones Go SDK is not used: the REST API is documented, small, and
// keeps Tether free of its dependencies.
//
// # Other orchestrators
//
// An adapter for another platform watches the same ops.Lifecycle. A GameLift
// adapter would call the GameLift server SDK's ProcessReady (with the UDP
// port and a health-check callback that returns the /healthz verdict) on
// Ready, ActivateGameSession when a session starts (Allocated), and
// ProcessEnding on exit; its OnProcessTerminate callback would call
// Lifecycle.Drain, as SIGTERM does here. An Edgegap deployment needs no SDK
// calls: the container's readiness comes from /readyz, the match's end is
// the process exiting 0 after a drain, and Edgegap's stop request arrives
// as SIGTERM.
package agones
