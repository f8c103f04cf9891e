// Package web is the live view of a match: a page that draws the pitch (or
// an arena) from above with the server's true state and what every client
// shows at the same moment, a table of each client's live figures, and keys
// (and in an arena the mouse) that let a person play one player.
//
// A Hub serves the page and its WebSocket (Handler), and fans out the frames
// given to Publish to every connected page. The page, its script and its style
// sheet are embedded in the binary, so nothing needs building.
//
// # Delivery
//
// Publish encodes the frame once and queues it for every page without
// waiting: each page has a queue of 4 frames, and a page that falls behind
// loses its oldest queued frames, so a slow page skips ahead rather than
// slowing the publisher or showing old frames. A page that cannot take one
// message within 5 s is disconnected; the page reconnects by itself, with a
// back-off of 0.25 s doubling up to 4 s. A page that connects gets the pitch
// first, then the newest frame, then every later frame it keeps up with.
// Numbers are rounded on the wire: positions to the millimetre, server time
// to the millisecond; NaN and infinities go as unknown.
//
// # Messages
//
// All messages are JSON text. The hub sends {"type": "pitch", "pitch":
// {Pitch}} (with "play": true when HubConfig.Play is set: the page then
// offers "Play in this browser") and {"type": "frame", "t": ..., "truth": {World}, "clients":
// [{ClientView}]}, with the field names of the JSON tags of Pitch, Frame and
// the types inside it. The page sends {"type": "keys", "up": bool, "down":
// bool, "left": bool, "right": bool, "sprint": bool, "kick": bool} each time
// its key state changes, and a state with no key down when it loses focus;
// over an arena it adds the mouse: "primary" and "secondary" (its buttons
// held), "aiming" and "aim": [x, z] (the point of the ground it is over,
// metres), sent at most 30 times a second as it moves (KeyInput).
// Anything else from a page is counted in Stats.BadMessages and ignored; a
// message over 512 bytes ends the connection.
//
// # Exposure
//
// The view lets whoever opens it steer a player, so the Hub refuses what a
// hostile page could send: WebSockets from another origin; any request whose
// Host header is not an IP address, localhost or one of HubConfig.Hosts (a
// page using DNS rebinding carries its own name there); WebSockets beyond
// HubConfig.MaxPages (16), or MaxPagesPerAddr (4) from one address; and
// messages beyond HubConfig.MaxInputHz (120 a second, ignored, and the page
// cut off once it sent twice that many in excess). Serve keeps at most
// HubConfig.MaxConns (256) connections open, closing the longest idle for a
// new one, and times out slow headers, bodies and idle keep-alives.
// `tether demo` warns when -http listens beyond the loopback interface.
//
// # The page
//
// A Pitch with Arena set is drawn as an arena: a floor closed by walls,
// with its Pillars and no goals. Its table shows each client's projectile
// error (ClientStats.ProjErrM) in place of the ball's two errors; players
// show their aim (Player.Facing) and health; the truth's projectiles are
// solid and each client's are rings in its colour (dashed while
// predicted); the server's recent shots (World.Marks) fade over 0.6 s, a
// hitscan shot as a line and a hit as a red ring, "HIT" over the person's.
// The mouse aims, its left button fires a projectile and its right button
// a hitscan shot, and the header counts the person's projectiles and hits
// that the server confirmed. For tests, tetherStats adds arena, truth (the
// newest frame's), projectiles, fired, hits and aimSent, and
// window.tetherPoint(x, z) gives the page coordinates of a point of the
// ground.
//
// The page draws the pitch with +X to the right and +Z down. In the ghost view
// (the default) the truth is drawn as solid discs and each client's players
// and ball as rings in that client's colour, with a line from the client's
// ball to the true ball; the side-by-side view gives the truth and each client
// a pitch of its own. The page draws at the display's rate, moving between
// the two newest frames, and a jump of more than 8 m between frames (a
// kickoff) is drawn as a jump. Keys: W A S D or the arrows to run, Shift to
// sprint, Space to kick. For tests the page keeps window.tetherStats =
// {framesDrawn, clientsShown, lastUpdate, framesReceived, connected, ball}:
// canvas frames drawn (also readable as frames), clients drawn in the last
// one, the time of the newest frame in milliseconds since the Unix epoch,
// frames received, whether the socket is open, and the true ball's position
// in the newest frame.
//
// With HubConfig.Play set the page offers "Play in this browser": it loads
// play/wasm_exec.js and play/client.wasm (a Go client built for
// WebAssembly, such as tether demo's), stops drawing and steering through
// the hub, and lends the client its canvas and keys: window.tetherPlay =
// {keys(), draw(json)}, where keys() returns the key state with kicks (the
// kick key's presses so far) and draw takes a frame in the hub's format,
// the client's view in the place of the truth. While playing the table
// keeps the hub's figures and tetherStats.truth the hub's newest truth;
// the client keeps its own figures in tetherStats.play. Play serves the
// endpoints such a client needs (a connect token, the WebTransport and
// WebSocket carriers, the built client); WasmBuild builds a game's client
// on first use, with the Go toolchain, into the user cache directory.
//
// # Lifetime
//
// Close disconnects every page and waits for the goroutines that serve them,
// then closes the channel of Inputs. The http.Server that serves Handler is
// the caller's: shut it down too (its Shutdown does not wait for WebSocket
// connections, which Close ends).
package web
