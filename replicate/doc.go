// Package replicate is the client's view of a server-owned physics body —
// the ball — in four modes: snapshot interpolation (Interp) and the three
// physics replication modes of Unreal Engine 5, Default (Velocity),
// Predictive Interpolation (Predictive) and Resimulation (Resim).
//
// # Time and units
//
// Every time is a time.Duration of server time. A kinematic.State carries
// the server time it holds at; Receive takes with it arrival, the client's
// estimate of server time when it arrived; Render takes now, the client's estimate of
// server time at the frame being drawn (package clock provides both; now
// must be smooth and should not go back). Nothing in the package reads a
// clock, does I/O, starts a goroutine or draws a random number. Positions
// are metres, velocities metres per second, angular velocities radians per
// second in the world frame (Y up), rotations unit quaternions.
//
// Velocity, Predictive and Resim step a simulation at a fixed tick that must
// be the server's: server states are expected at whole ticks (Time = n ×
// Tick), and the client's ticks fall on the same grid of server time.
//
// # The modes
//
// Interp draws the body on the curve through the server's states, a render
// delay behind now (package timeline). It never shows a correction, and it
// shows the past: its Frame.Time is the render time.
//
// The other three show the present: their Frame.Time is now, and Frame.Pos
// is where they predict the server has the body at now. All three simulate
// the body on the client, in the game's own world, and draw it between the
// two ticks around now.
//
// Velocity (Unreal's Default) forward-predicts each server state to the
// present with the client's physics and, tick by tick, sets the body's
// velocity to the predicted server velocity plus the position error over
// CorrectionTime. Predictive (Unreal's Predictive Interpolation) blends the
// body's own velocity toward the server's over about a send interval and
// shifts its position toward the server's over a time set by the send
// interval and the round trip, both measured; Interact sets aside the server
// states that predate a push by the local player, so the push shows at once.
// Resim (Unreal's Resimulation) keeps a history of the whole world, rolls it
// back to the tick of a server state that differs from it (10 cm, 4°,
// 0.5 m/s or 2 rad/s by default) and re-simulates to now, with the local
// player's recorded inputs; its render jump is blended out.
//
// # Which mode when
//
// Every mode that shows the present pops at an unforeseen kick: the true
// motion changes a one-way delay before any client can know, and it can
// change by more than a frame's worth of visible motion at once. The three
// present modes differ little where the client's physics is the server's
// and only kicks surprise it; they differ where the client's world is not
// the server's. The lab (tether lab) reports each mode's present error,
// fidelity and pops against an oracle on the same links:
//
//   - Interp: bodies the local player never touches, when a faithful path
//     matters more than timeliness (replays, spectators, far-away bodies). It
//     costs nothing but the buffer.
//   - Velocity: server-owned bodies the local player does not touch, shown
//     on time. A local push is overwritten by the next correction. It costs
//     a step of a one-body world per tick while a correction runs.
//   - Predictive: bodies the local player pushes when a rollback of the whole
//     world is too costly: the push shows at once and is blended toward the
//     server's verdict. Its corrections are the gentlest.
//   - Resim: bodies the local player interacts with (the ball in a match):
//     the player's own kick moves the ball in the same frame. When the
//     server makes the kick as of the moment the player made it and from
//     where and in which direction the client's world kicked it, within
//     tolerances (as the soccer game does), its confirmation moves the ball
//     little: what remains is the players the ball met in the round trip
//     after the kick, above all a defender pressed against the dribble:
//     where they ran then is their own clients' inputs, which no client can
//     know. A predicted kick the server never makes (the player lost the
//     ball in the round trip) is corrected like any other state. It costs a
//     re-simulation of the world over the round trip at each correction
//     (BenchmarkResimRollback12 and 30 time it) and a history of 56 bytes
//     per body per tick.
//
// # Corrections
//
// A mode blends a correction out only while the blend moves the picture by
// less than BlendSpeed (2.5 m/s, a little under 5 cm per 60 Hz frame); a
// larger error is shown as one jump. Blending a large error keeps it on
// screen for as long as the blend lasts and moves the picture visibly in
// every frame of it: with Unreal's settings (Resimulation's jumps blended up
// to 2.5 m over 0.3 s; Default's correction with a 0.6 s time constant up
// to a 4 m snap) resim and velocity show a larger present error and more
// pops than with the defaults (TestUnrealSettingsTradeoff checks it). Each
// mode's SnapDistance sets it otherwise.
//
// # Resim's requests
//
// Resim does not own the world. Like GGRS, its Update returns requests that
// the game performs on its world, in order, before calling Render:
// SaveState (store every body into the given Cell), LoadState (set every
// body from the Cell) and AdvanceTick (apply the given input, step once).
// Every SaveState is followed by the LoadState of the same cell, so the world
// always runs from the quantised state the history holds and a
// re-simulation repeats the first run bit for bit. WorldResim performs them
// on a physics.World and is a View.
//
// The world must be deterministic: the same state and input must give the
// same next state. ResimConfig.CheckDistance turns on the sync test, which
// on every Update re-simulates the last ticks and compares the checksums of
// the cells with the first run's; the package's tests run it in CI.
//
// The history holds ResimConfig.History (1 s by default) of ticks: a server
// state older than that is dropped. A Cell keeps each body's position
// exactly (float64), velocity and angular velocity as float32 and rotation
// as its smallest three components on 20 bits: 56 bytes per body per tick.
// The server's states put into the history for their tick stay there, so a
// later rollback through that tick applies them again.
package replicate
