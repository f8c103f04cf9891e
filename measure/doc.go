// Package measure is Tether's one definition of what a client shows and how
// well: the server's true trajectory of a body between its ticks, the pop,
// frozen and extrapolated frames, the clock's error, the ball's fidelity,
// presence and render delay, and the statistics every report gives (Stat).
// The lab (virtual time), tether demo -headless and tether bot (live) report
// the same schema from these same functions.
//
// It takes plain records and knows no game, client or server: the true body
// after each server tick (Sample, appended to a Truth), and each client frame
// (Frame for the clock, Drawn for a body, OtherDrawn and OwnDrawn for the
// characters), and the characters' true poses after each tick (Pose,
// recorded by a Cast). Meters (ClockMeter, BallMeter, OthersMeter, OwnMeter,
// KickMeter for a client's own kicks, and EntityMeter for any game's
// replicated entities by kind, fed the world the server replicated)
// summarise frames as they come, holding a frame only until the truth it is
// measured against has arrived, and keep per sample only what the quantiles
// need (Series: about a byte a sample), so long runs stay small. A Truth can
// forget the ticks no frame can still ask for (Truth.Forget). A client that
// cannot know the server's truth (tether bot) measures against its truth in
// hindsight instead: the states it received, joined as a Truth (Hindsight).
//
// The definitions (the design document's "Metrics"): L is a client frame,
// T(L) the true server time then, R(L) the drawn position, X the true
// trajectory and d(L) = T(L) minus the server time the client renders at L.
// Fidelity is |R(L) - X(T(L) - d(L))|, presence |R(L) - X(T(L))|, delay
// d(L). A pop is a frame whose drawn motion differs from the true motion over
// the frame's advance of render time by more than PopM; across a teleport or
// a jump the server made no motion is true, so no frame across one is a pop.
// Statistics are over the frames after a warm-up; frames in the TeleportSpan
// after a teleport are left out of the error statistics, frames in a
// blackout of the link out of fidelity, pops and frozen frames, and frames in
// the Recovery after one out of frozen frames too.
package measure
