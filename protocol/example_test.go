package protocol_test

import (
	"fmt"

	"github.com/tether-net/tether/protocol"
)

// A predicting client sends its packet of moves as a Moves message; the tag,
// not the game's bytes, tells the server it is not a plain input. Its header
// also acknowledges the newest snapshot the client keeps as a baseline (tick
// 300 here; 0 when there is nothing new), where an Ack message would cost
// its own tag and framing.
func ExampleAppendMoves() {
	packet := []byte{0x01, 0x2a} // the game's bytes, opaque here
	msg := append(protocol.AppendMoves(nil, 12, 300), packet...)

	m, err := protocol.Decode(msg)
	fmt.Println(err, m.Tag == protocol.TagMoves, m.Input.Seq, m.Ack, len(msg), m.Body)
	// Output: <nil> true 12 300 6 [1 42]
}
