// Package live runs an arena (package game/arena) live: its server and
// bot players over real UDP on 127.0.0.1, each bot through an emulated
// link (package netsim), as tether demo -game arena does.
//
// Start starts the match. Its hooks (Config.OnShot, OnProjectile, OnClaim,
// OnFrame) feed a measurement such as the lab's arena record. For the live
// page (package web), Pitch is the arena to draw, Frame fills the page's
// frame (the server's truth, with its projectiles and the shots it judged,
// and each bot's view with its figures), and Steer lets a page's keys and
// mouse play bot 0's player through the hub's inputs: its moves go through
// that bot's client and link, predicted, so a person plays with the
// network the page shows.
//
// Times are server time (time.Duration since the server started),
// positions metres in the arena's ground plane.
package live
