package measure

// OthersMetrics measure how a client (in the lab's soccer game) draws the other
// players' characters, one sample per other player per frame after the
// warm-up, the positions on the ground.
type OthersMetrics struct {
	// PresentM is |drawn - true position now|, metres. Samples in the half
	// second after the player was teleported (a kickoff) are left out, as
	// the ball's are.
	PresentM Stat `json:"present_m"`
	// FidelityM is |drawn - true position at the render time the client
	// claims to show the player at|, metres, over the same samples (those
	// whose render time the truth covers): how faithfully the client
	// reproduces the moment it shows.
	FidelityM Stat `json:"fidelity_m"`
	// Pops counts the samples outside blackouts where |ΔR - ΔX| > 5 cm, ΔX
	// being the player's true motion over that frame's advance of its render
	// time; a teleport (a kickoff) drawn as one, or one in the truth over
	// the frame, is not a pop.
	Pops int `json:"pops"`
	// Samples is how many there were.
	Samples int `json:"samples"`
}

// OwnMetrics measure, in the soccer game, how a client shows its own player
// when it predicts it (package movement): drawn at the present from its own
// inputs, corrected by the server when the server's simulation of its moves
// differs by more than 2 cm. X is here the server's path of the player by the
// time of its moves: the state after each move the server applied, at the
// move's end (the client's clock), joined linearly; frames after the warm-up
// are measured. The span from a teleport (a kickoff) to the frame that shows
// it is left out, and so are the frames in a blackout and the second after it
// (the client played a world it could not see; what the server made of it
// shows as corrections).
type OwnMetrics struct {
	// Corrections counts the server's adjustments the client applied after
	// the warm-up (resets, which a teleport or the first contact causes, are
	// not corrections); CorrectionsPerMin is that over the run after the
	// warm-up, per minute.
	Corrections       int     `json:"corrections"`
	CorrectionsPerMin float64 `json:"corrections_per_min"`
	// CorrectionM is the size of each: how far the client's prediction after
	// the corrected move was from the server's state after it, metres.
	CorrectionM Stat `json:"correction_m"`
	// PresentM is |R(L) - X(T(L) + a)|, a being the link's unobservable
	// asymmetry (up - down base latency)/2 as in clock.err_ms: how far the
	// drawn player is from where the server has it for the moment the
	// client can know as now, metres.
	PresentM Stat `json:"present_m"`
	// Pops counts frames where |ΔR - ΔX| > 5 cm, ΔX being the server's path
	// over the frame's advance of render time (the client's estimate of
	// server time: the predicted player is drawn at it).
	Pops int `json:"pops"`
	// InputDelayFrames is, per frame, how many frames after the one an input
	// was decided at the drawn player first shows it: 0 when the next frame
	// does (the frame's move is made with it and drawn at once); without
	// prediction, the frames until the player's render time reaches the
	// input's time plus the link's base latency up. A predicting client's
	// frames count from its first predicted frame: before it, it is starting
	// up (FirstPredictedS).
	InputDelayFrames Stat `json:"input_delay_frames"`
	// FirstPredictedS is the true time of the first frame drawn from the
	// client's own moves, seconds (0: none): connecting, the clock getting
	// ready and the first moves' round trip to the server's reset.
	FirstPredictedS float64 `json:"first_predicted_s"`
	// InputsLost counts the client's moves the server never applied, made
	// after the warm-up, outside blackouts and more than a second before
	// the end.
	InputsLost int `json:"inputs_lost"`
	// Frames is how many frames were measured; Predicted says whether the
	// client predicts its player (ball method resim does not: see the
	// soccer game's documentation).
	Frames    int  `json:"frames"`
	Predicted bool `json:"predicted"`
}

// NetMetrics is the client's traffic: every byte on the wire, the transport's
// header and 28 bytes of IPv4 and UDP headers per datagram included, averaged over the run, in kilobits per second; Clock*
// counts the clock method's own messages alone.
type NetMetrics struct {
	DownKbps      float64 `json:"down_kbps"`
	UpKbps        float64 `json:"up_kbps"`
	ClockDownKbps float64 `json:"clock_down_kbps"`
	ClockUpKbps   float64 `json:"clock_up_kbps"`
	// Down and Up, where measured, split DownKbps and UpKbps by kind.
	Down *NetKinds `json:"down_by_kind,omitempty"`
	Up   *NetKinds `json:"up_by_kind,omitempty"`
}

// NetKinds splits one direction's traffic, kilobits per second, by what the
// bytes carried: the messages of each kind (tag and body) and Headers, the
// rest: every datagram's IPv4, UDP and netcode headers, the reliable
// channel's header and framing, and its resends. The fields add up to the
// direction's total.
type NetKinds struct {
	Snapshots float64 `json:"snapshots"`
	Inputs    float64 `json:"inputs"`  // inputs and predicted moves
	Acks      float64 `json:"acks"`    // a client's acknowledgements of the snapshots it keeps as baselines
	Replies   float64 `json:"replies"` // the game's answers to inputs: acks, adjustments
	Clock     float64 `json:"clock"`   // pings and pongs
	Events    float64 `json:"events"`
	Headers   float64 `json:"headers"`
}
