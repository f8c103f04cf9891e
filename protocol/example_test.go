package protocol_test

import (
	"fmt"
	"time"

	"github.com/tether-net/tether/protocol"
)

// A predicting client sends its packet of moves as a Moves message; the tag,
// not the game's bytes, tells the server it is not a plain input.
func ExampleAppendMoves() {
	h := protocol.Input{Seq: 12, Sent: 3 * time.Second, View: 2900 * time.Millisecond}
	packet := []byte{0x01, 0x2a} // the game's bytes, opaque here
	msg := append(protocol.AppendMoves(nil, h), packet...)

	m, err := protocol.Decode(msg)
	fmt.Println(err, m.Tag == protocol.TagMoves, m.Input.Seq, m.Input.View, m.Body)
	// Output: <nil> true 12 2.9s [1 42]
}
