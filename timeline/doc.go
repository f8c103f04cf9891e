// Package timeline buffers the timestamped states a client receives for one
// remote entity (a ball, another player) and turns them into a smooth rendered
// motion: snapshot interpolation with an adaptive render delay.
//
// # Time
//
// Every time is a time.Duration of server time. A kinematic.State carries the
// server time it describes; Insert takes, with each state, the client's
// estimate of server time when it arrived; Sample takes the estimated server
// time of the frame being drawn ("now"). The estimate must be smooth and monotonic (package clock
// provides one). The timeline renders at a render time behind now; the
// difference, the render delay, is reported with every frame.
//
// # Render delay
//
// The delay adapts to the link, by one knob: Config.LateShare, the share of
// frames that may be drawn late, past the newest state received (5 % by
// default). Each arrival gives a lateness, arrival time minus state time;
// the gaps between states give the send interval, and the states missing
// from them the loss rate. A frame draws the render time, which falls
// anywhere in the send interval; it is late if the next state after the
// render time has not arrived (nor, if that one was lost, the one after).
// Over a sliding window of recent arrivals (Config.Window) the target delay
// is the least at which the expected share of late frames is LateShare,
// clamped to [Config.MinDelay, Config.MaxDelay]. On a link with no jitter
// that is the lateness plus 1 - LateShare of the send interval; jitter and
// loss add what they need. A body the extrapolator predicts well (a ball
// between kicks) loses little in a late frame and can take a larger share; a
// body moved by inputs no client foresees (a player) shows a correction
// after each, and wants a small one. No more is added: every millisecond of
// delay is a millisecond the picture lags the present.
//
// The render clock is never set: it advances by the time elapsed since the
// previous Sample multiplied by a scale within [MinScale, MaxScale] =
// [0.9, 1.1], so the delay changes smoothly and the render time never goes
// backwards. A deficit (the link got slower, a spike) is closed quickly, an
// excess slowly, and the window keeps a spike in view for a few seconds, so a
// burst of lateness raises the delay at once and it comes back down gently.
//
// # Curves
//
// Between two states position follows the first state's motion as
// Config.Extrapolate predicts it, plus a residual that brings it to the
// second: the cubic Hermite curve from zero to the difference between the
// second state and the prediction, in position and in velocity. With Linear
// (or any extrapolator exact for constant acceleration) that is the cubic
// Hermite curve through both positions with both velocities, which reproduces
// a ballistic arc or a ball decelerating on the ground exactly; with an
// extrapolator that knows the body's physics (drag, spin, walls, the same
// integrator as the server's) the curve follows what the server simulated
// between its states, bounces included. Where the velocity is discontinuous
// in a way the extrapolator cannot know, at a kick, the server should send a
// state with Knot set and the velocity leaving the contact, at the contact or
// at the end of the step that had it.
//
// A segment ending at a knot contains a contact, and so does one whose
// residual velocity is larger than Config.ContactAccel allows over it, or
// whose residual is far from a smooth motion (the knot was lost, or never
// flagged). Its curve is the first state's motion extrapolated forward and
// the second's run backward, switching where the two come closest: for a
// kick or a bounce, with an extrapolator exact between contacts, they meet
// at the contact itself, wherever in the step it fell.
//
// Rotation is slerped along the shortest arc, unless the angular velocities
// say the body turned more than half a turn between the states, in which case
// it turns the way they say.
//
// Past the newest state the timeline extrapolates with Config.Extrapolate
// (Linear by default; Ballistic for a body under gravity above a floor, which
// a ball needs: linear extrapolation misses every bounce; best of all, the
// body's own physics, stepped as the server steps it) for at most
// Config.MaxExtrapolation, then holds still and says so (Frame.Frozen). A
// body moved by its controls (a character) is best extrapolated under the
// control it had, held: the sender puts it in kinematic.State.Input and the
// extrapolator reads it there (the timeline only hands it on).
//
// Two states further apart than Config.MaxExtrapolation (a blackout) are not
// joined by a curve: nothing is known of the motion between them. Over the
// first part of such a gap the timeline shows the earlier state's motion, held
// past the bound as when it was the newest; over the last half of the gap (at
// most Config.MaxExtrapolation of it) it shows the later state's motion run
// backward, so when data resumes the picture rejoins the true path at once,
// with a single jump (see Corrections), and then follows it.
//
// # Corrections
//
// When new data changes the curve under the render time (a late state filling
// a gap, the real path arriving after an extrapolation) the rendered position
// does not jump: the difference becomes an offset that is blended out at
// most at Config.MaxCorrectionSpeed, exponentially with Config.CorrectionTime.
// A difference larger than Config.SnapDistance is shown as a jump instead
// (Frame.Snapped), since blending it would show a wrong position for too long. A body held still for
// lack of data stays where it is held while new data is still too old to draw
// from (an outage's backlog coming back a few states at a time), and jumps, or
// blends, once the data reaches the render time: one jump, not one a batch.
//
// A state with Cut set (a teleport, a kickoff reset) is a discontinuity: the
// timeline never interpolates into it from earlier states, and the first frame
// rendered at or after it has Frame.Cut set and no correction offset.
//
// # Ordering and memory
//
// States may arrive in any order. One arriving late that still lies after the
// state the current frame is drawn from is used; a duplicate is ignored but
// for its Cut, which the state held takes on; one
// older than that is dropped and counted in Stats.Late. A late Cut is never
// dropped: it is applied at the next frame. The buffer has a fixed capacity and
// Sample discards the states the render time has passed. Insert and Sample do
// not allocate.
//
// The timeline does no I/O, reads no clock and starts no goroutine; it is not
// safe for concurrent use.
package timeline
