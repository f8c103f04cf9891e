// Package movement predicts a player's own character on its client and keeps
// the server authoritative over it, after the scheme of Unreal's character
// movement: saved moves, combining, redundant sending, server-side checks,
// acknowledgements and adjustments, and replay of the moves the server has
// not yet answered.
//
// # The game's part
//
// A game plugs in through Game: the move function, which must be
// deterministic and shared by client and server (the same state and move give
// the same result, bit for bit), and the encodings of an input and a state.
// A move meets the world as the client drew it: Move.View is the server time
// the client showed when it made the move, and the game's Move looks up what
// it needs at that time (the other characters to keep out of, whether the
// character carried something), the client from what it drew and the server
// from its record of what it sent. The server's world and the client's
// picture then agree, and a contact with another character is predicted
// without correction.
//
// # Client
//
// Client.Move turns each frame into a move: the frame's input, held from the
// previous frame's time to this one's (the client's estimate of server time,
// in whole wire.TimeUnits), simulated at once on the predicted state, so the
// frame shows its own input (no frame of delay). The input is simulated as
// the server will see it: clamped by Game.Clamp and passed through its
// encoding. A frame longer than MaxMoveDelta becomes several moves; one
// longer than MaxGap (a suspended program, a clock jump) simulates nothing.
// Moves are saved, up to ClientConfig.MaxMoves, until the server
// acknowledges them. A game's client side embeds a Predicting, which makes
// its Client when a frame first places the character and answers package
// client's Predictor for it (AppendInput, Reply).
//
// Client.AppendPacket builds the packet to send, at most one per
// SendInterval (with 3/4 of it as tolerance; before the server's first reset,
// one per move): moves made in between extend the newest move instead of
// adding one, where Game.Combine says the inputs allow it, up to
// MaxMoveDelta, and the extended move is simulated again from its start, as
// the server will. A move once sent is never extended. A game sets the packet
// rate (ClientConfig.SendInterval): each packet's headers outweigh its moves.
// Each packet carries the new moves and those of the previous Redundancy
// packets (by default the packets of 100 ms), oldest first, up to PacketMoves
// (16): so up to Redundancy consecutive lost packets lose no input, and no
// move is sent more than 1+Redundancy times however long its acknowledgement
// takes. Longer runs of loss are the acknowledgements' business: when the
// server holds moves behind a missing one (Reply.Gap), or acknowledges the
// moves before one the client sent well over a round trip ago, or nothing
// has been acknowledged for twice the usual time to an acknowledgement (an
// outage; then once a round trip while it lasts), the client sends every move
// not acknowledged once more, oldest first, so the moves of an outage are
// applied rather than skipped. The packet ends with the predicted position
// after its last move, to the millimetre, each coordinate modulo 4 m. It is
// bit-packed: a move after the first travels as its change from the one
// before (the change of its length, and each byte of its input that
// differs, as its difference), a few bits when the input changed little,
// two when it did not; the first move's start and input travel as their
// change from the anchor, the newest move the server acknowledged (which the
// server keeps a while), and numbers the server knows nearly (the first
// move's, the newest adjustment applied) as their low bits. A packet carries
// one lag, its newest move's: each move's View is its end less it.
//
// # Server
//
// Server applies one client's moves in order, each exactly once: a move is
// known by its number (Move.Seq), copies of moves already applied are
// ignored. A packet whose moves do not follow those applied (one before it
// is late, or lost) is held back, up to ServerConfig.GapWait (400 ms), while
// the server acknowledges what it has, at once and flagged Gap (Reply.Gap),
// so that the client sends the missing moves again without waiting for its
// usual time to an acknowledgement; moves that never arrive are counted in ServerStats.Lost, their
// time simulated with the next move's input, up to MaxMoveDelta. Each move is
// checked:
//
//   - its end must be later than the previous move's: otherwise it is skipped
//     (ServerStats.BadTimes);
//   - it lasts at most MaxMoveDelta (125 ms): a longer one is shortened
//     (ServerStats.Clamped);
//   - its end may not be more than ServerConfig.TimeAllowance (100 ms) past
//     the server's clock. Detection is on by default: a move ending later is
//     shortened to end at the server's clock plus the allowance (to nothing if
//     the client is already there), counted in ServerStats.Ahead, and the
//     client is flagged (Server.Flagged); its position then disagrees and it
//     is corrected. A client with a clock running fast, by 5 % or tenfold,
//     therefore moves no longer than the server's clock allows, plus the
//     allowance and one MaxMoveDelta; one running slow loses time and is never
//     flagged; one whose clock jumps back simply has its moves skipped until
//     they are new again. The allowance covers the error of the client's
//     estimate of server time, a few milliseconds with package clock, with a
//     wide margin;
//   - its input is clamped (a direction longer than 1, a power above 1) by
//     Game.Clamp, and one with NaN or Inf is replaced by the zero input
//     (ServerStats.BadInputs);
//   - its View is bounded to at most ServerConfig.MaxViewLag (1 s) before its
//     end, and never after the end or the server's clock.
//
// After the packet's last move the server compares the client's position
// with its own: within ServerConfig.MaxError (2 cm) it owes an
// acknowledgement of the newest move, sent at most every AckInterval (50 ms);
// beyond it an adjustment: the server's state after that move, with the
// move's number and time. The server then judges no other position of that
// client until the client confirms it has applied the adjustment (each
// packet echoes the newest adjustment applied, Packet.Fix), and sends it
// again every ResendInterval until then, so one error costs one adjustment,
// however many packets the client sent before it learned of it. A teleport
// (Server.Teleport) and the first packet owe a reset: the same, but shown at
// once by the client and not counted as a correction.
//
// # What the others see
//
// The server applies a client's moves as its packets arrive, in bursts
// with the link's jitter; a character copied from the Server's state into
// what the other clients are sent moves by those bursts, and they draw it
// wobbling. Shown replays the applied moves (each one's resulting state,
// at its end) through a timeline a little behind the newest, at most
// ShownConfig.MaxDelay: the game sends the others, and judges them
// against, Shown.At at its tick, and answers the own client from the
// Server. A Replayed is the two together: a Server whose applied moves,
// and teleports, reach its Shown.
//
// # Reconciliation
//
// Client.HandleReply applies the server's replies. An acknowledgement
// forgets the moves it covers. An adjustment or a reset restores the server's
// state after the move it names, forgets that move and the older ones, and
// replays the newer ones on top with the inputs and views they were made
// with, so the prediction continues from the server's truth. The difference
// between where the character was drawn and where the replayed prediction
// puts it becomes a render offset (Offset) that decays exponentially with
// Smoothing.Time but never faster than Smoothing.MaxSpeed, so a correction
// never moves the drawing by more than a few centimetres a frame; beyond
// Smoothing.Snap it is shown at once. Client.Draw returns where to draw.
//
// # Wire
//
// Packets and replies have their own encodings (AppendPacket, DecodePacket,
// AppendReply, DecodeReply), with the game's inputs and states inside. A
// packet travels in a message of its own kind (package protocol's Moves, which
// the server hands the game with server.Input.Moves set), so the game tells it
// from a plain input by the message, not by its bytes. Decoders return
// ErrTruncated or ErrMalformed and are fuzzed.
//
// # Time and units
//
// Every time is a time.Duration of server time: the client's estimate on the
// client, the server's clock on the server. Positions are metres. Nothing in
// the package reads a clock, starts a goroutine or does I/O; Client and
// Server are not safe for concurrent use.
package movement
