// Package match runs a whole soccer match: an authoritative server
// (package server with a soccer.Game) and bot clients (package client with
// soccer.ClientGame and soccer.Bot), each behind an emulated link (package
// netsim). It runs the same cores two ways:
//
//   - Virtual runs everything in virtual time on a netsim.Scheduler: payloads
//     travel the links' Up and Down paths, client clocks are offset and drift
//     as the links say, and a 30-second match takes a fraction of a second and
//     gives the same result for the same seed. This is what tests and the lab
//     use.
//   - Live runs the server and each bot over real UDP sockets on the loopback
//     interface, through netcode, each socket wrapped by netsim.NewPacketConn
//     with its direction of the bot's link: the demo's setup.
//
// Both expose the server's true state after every tick (soccer.Truth) and
// every client's frames (client.Frame and the soccer.View built from it), and
// let a caller take over any client's input (a person playing through the
// emulated link). Every bot's client predicts its own player unless
// Config.NoPrediction (or Config.Predicts) says otherwise; the moves the
// server applies, and the corrections clients apply, are reported through
// Config.OnMove and Config.OnCorrection.
//
// A Meter fed from those hooks measures every bot with package measure's
// meters (frames at Bot.TrueTime), in Virtual and in Live alike: it is how
// the lab measures a soccer client and how tether demo -headless does, so
// both report the same figures by one code path. A HindsightMeter measures
// a bot that has no view of the server's truth (tether bot).
package match
