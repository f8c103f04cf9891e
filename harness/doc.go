// Package harness runs one server core (package server) and any number of
// client cores (package client) in virtual time, each client behind its own
// emulated link (package netsim). It is game-agnostic: a game plugs in
// through server.Game and client.Game, as it does live.
//
// Everything runs on one netsim.Scheduler: payloads travel the links' Up and
// Down paths, a client's clock is offset and drifts as its link says, the
// server ticks at its rate and every client renders frames by its own clock.
// Nothing reads a wall clock, so a minute of play runs in a fraction of a
// second and the same inputs give the same run, bit for bit. Tests and the lab
// drive the shipped cores with it.
//
// What a client does at a frame is the caller's: ClientConfig.OnFrame runs
// after the client core rendered the frame and before it sends what it owes,
// so it is where a bot decides its input (client.Client.SetInput).
//
// The transport is modelled, not run: a join is a request up the link and an
// answer down, repeated every 100 ms until both arrive (netcode's handshake,
// without its cryptography), and every payload counts netcode's header and
// the IPv4 and UDP headers in Traffic.
package harness
