// Package soccer is the showcase game: a soccer match on a pitch with boards
// around it, simulated by the server and drawn by clients. It plugs into
// packages server and client as any game would: Game implements server.Game,
// ClientGame implements client.Game.
//
// # Pitch and units
//
// The pitch is centred on the origin of a Y-up world in metres: its length
// runs along X, with the goal lines at x = ±Length/2, and its width along Z;
// the grass is the plane y = 0. DefaultPitch, DefaultBall and DefaultPlayer
// give the sizes and materials of a regulation match, and Pitch.AddTo builds
// them into a physics.World. Speeds are metres per second, angles radians,
// times time.Duration. Home attacks the goal at +X, Away the goal at -X.
//
// # Rules
//
// The ball is either free, simulated by the physics world (bounces, rolling,
// the posts and nets), or in possession: kept in front of its possessor on the
// ground (Rules.DribbleOffset ahead, reached within Rules.CarryBlend of winning
// it along a client.Blend, which snapshots send so that clients draw the same
// way there), moving with it. A free ball is won by the nearest player touching it;
// it is lost by a kick (a ground pass or a lofted shot, Rules.Kick, never
// aimed back into the kicker, Rules.KickAim) or by a tackle. A kick is made
// as of the moment its client made it (the send time of the input carrying
// it, less the input's ActionAge; at most Rules.MaxRewind back): the ball
// leaves from where it was then (or from where the input claims it was, within
// Rules.KickTolerance) and is brought to the present through the
// players' recorded paths, so a client that shows its own kick at once need
// not correct it for the input's trip. A tackle is judged by rewind
// (event.History): at the server time the tackling client was showing when it
// acted (the input's view time less its ActionAge, at most Rules.MaxRewind
// back), the tackler must have been within Rules.TackleReach
// of the player with the ball. A ball wholly over a goal line, between the
// posts and under the crossbar, scores; after Rules.GoalPause everyone is
// teleported to the kickoff positions. A ball that leaves over the boards is
// put back inside.
//
// Players move by Rules.Move, a pure function of a PlayerState and an Input
// (direction, sprint, action) shared by the server and, for prediction, the
// client. An action (pass, shot, tackle) happens once each time the input's
// ActionSeq changes, so repeated and lost inputs neither repeat nor lose it.
//
// # Prediction
//
// A client may predict its own player (ClientGame.Prediction, package
// movement): each frame's input moves it at once, with Rules.Step, in the
// world the frame shows (MoveInput's Env: whether it had the ball, where the
// players it might touch were drawn), and its moves go to the server
// several times over, delta-coded. The server applies them on arrival with
// the same Rules.Step and answers with acknowledgements, adjustments (the
// client's position was more than 2 cm off: it restores the server's state
// and replays its later moves, smoothing the difference out) and resets (a
// kickoff). Contacts between players are predicted, not corrected: a move
// meets the other players where its client drew them, which the server takes
// from the move when that is within Rules.ContactTolerance (plus
// Rules.ContactLead of running) of its record of what it sent at the move's
// view time, and from the record otherwise; a player's move is never pushed
// by the server afterwards. Possession is taken from the move likewise if the
// record agrees within 100 ms. In the world (what the ball meets, what
// snapshots carry, what tackles are judged on) a predicted player is its
// applied moves replayed a little behind the newest (movement.Replayed), so
// that bursts of moves do not jerk it; Truth has both, PlayerState and
// Moved.
//
// # The match step and the ball methods
//
// One function steps the match world, the server's and the clients' alike:
// the physics step (players' capsules and the ball), the players kept inside
// the boards, the carry and the touch. The server's Game drives its players
// by their inputs and moves before it and applies goals, kicks and tackles
// after it; a World, a client's copy of the match world, runs its players on
// as they last ran. ClientGame.BallMethod selects how a client shows the
// ball (package replicate's methods): the default timeline, the seed,
// velocity and predictive views of the ball alone, or resim, which
// re-simulates a World from the snapshots (the ball, every player, who has
// the ball) and predicts the own player's kicks there: each is kicked at
// once in the client's world, as the server's Game kicks (Rules.Kick,
// Rules.KickAim), and its inputs claim where the ball left from
// (Input.KickFrom; ClientGame.PrepareInput).
//
// # What travels
//
// Inputs are a few bytes (AppendInput, DecodeInput); a predicting client sends
// packets of moves instead (movement.AppendPacket, in the protocol's Moves
// messages), each move an Input and its Env. Snapshots are the replication
// layer's (package replica): Game implements server.Replicated and
// ClientGame client.Replicated, declaring two kinds (Schema): the ball (a
// kinematic.State at the wire's precision, its generation, and who carries
// it, where in the carrier's frame and how it blends there, a
// replica.Attach field) and the players (position, velocity, facing, rate
// of turning, the velocity asked for, team, generation). A regular snapshot
// holds the score (its meta, DecodeScore), the ball and every player; at a
// kick, a contact or a possession change an extra one goes, the ball's
// state there a knot, preceded by the state of the tick before when that
// was not sent, which holds the players (replica.Entity.Hold: a client
// keeps them as it had them) but at a kickoff. For KnotRepeat after a jump
// each regular snapshot repeats the knot, and a carrier's previous tick
// goes with it. The layer codes each
// client's snapshot against the newest it acknowledged, with soccer's own
// predictors (a player leaning toward the velocity it asks for, a ball
// rolling and turned ahead by its spin), within the server's byte budget,
// where the ball and its carriers go first; 64 players fit one packet.
// Kicks, tackles, goals, kickoffs and restarts are events (package event)
// on the reliable channel; a kick's and a tackle's carry the ball's state
// leaving them, so a client that learns of one late draws the ball as far
// along as its age. A teleport changes the entity's generation, which
// clients turn into a cut. Every decoder returns an error on bad input and
// is fuzzed.
//
// # Bots
//
// Bot plays one player from what its client shows (View, built from a
// client.Frame), delay included: it dribbles toward goal, shoots in range,
// passes when pressed, chases and tackles, supports and guards, so that the
// ball moves the whole match. Package soccer/match runs a server and bots in
// virtual time or over loopback UDP.
package soccer
