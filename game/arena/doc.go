// Package arena is a small top-down shooter on Tether's public API, and the
// example to copy for a game of your own: 2 to 16 players run about a walled
// arena with pillars, each predicting its own character, and fire two
// weapons that show the two ways a server-authoritative game makes a shot
// fair over a lagging network.
//
//   - A projectile travels (ProjectileSpeed). The server spawns it as a
//     timestamped event (package event), at the time and place the
//     shooter's move fired it; every client draws it fast-forwarded by its
//     age (event.Event.At), so one seen 80 ms late starts 80 ms along, where
//     the server has it. The shooter's own client draws it at once, predicted
//     from its own move, and takes the server's in its place when that
//     arrives: the two agree, as the move was simulated alike on both sides.
//   - A hitscan shot hits at once. Its client sends, with the move that fired
//     it, the server time it was showing the other players at (package
//     movement's Move.View); the server rewinds the other players to that
//     moment as that client's snapshots had them (event.Seen, fed with
//     what each snapshot carried) and judges the shot there, so what the
//     shooter saw is what counts. It rewinds no further back than Config.MaxRewind
//     (250 ms by default, event.RewindTo): the anti-abuse bound, beyond which
//     a client's claim to be showing an older moment is not believed.
//
// # How it plugs in
//
// Game is the server side (server.Game, server.Replicated and
// server.Replier): Join gives each client a player, Input hands its packets
// of moves to a movement.Replayed, Step moves the projectiles, and
// Replicate fills the replication layer's world (package replica) with
// every player's position, velocity, aim and health, as Schema declares
// them: each player as the others see it, its applied moves replayed a
// little behind the newest (the Replayed's movement.Shown), so that it does
// not wobble with the bursts its packets arrive in. The layer codes each client's snapshot
// against the newest one it acknowledged, and hands the game every player
// each snapshot carried (replica.Config.OnEntity), which it records for
// rewind; the game writes no bytes. ClientGame is the client side (client.Game, client.Replicated and
// client.Predictor): the layer decodes the players by the same Schema, and
// Predict moves the own player at once with the same move function as the
// server (Step), predicts its shots, and takes the frame's events (the
// projectiles fired and ended). Bot plays a player from the frames its
// client draws.
//
// # Measured
//
// The lab runs it (lab/testdata/arena-*.json: tether lab -scenario-file
// lab/testdata/arena-wan.json) with half the clients drawing projectiles the
// naive way (ClientConfig.NaiveSpawn) and reports, against the server's
// truth, how far each client draws projectiles from the server's
// (proj.spawn_err_m) and how often the server's judgement of a hitscan shot
// agrees with its shooter's (hits.agree), with rewind and without; tether
// demo -game arena -headless does the same live over UDP.
//
// # Units
//
// The arena lies in the ground plane (y = 0) of a Y-up world, centred on the
// origin, HalfX by HalfZ metres each way. Positions are metres, speeds metres
// per second, aims radians (AimDir), times time.Duration of server time.
package arena
