package protocol_test

import (
	"fmt"

	"github.com/tether-net/tether/protocol"
)

// A predicting client sends its packet of moves as a Moves message; the tag,
// not the game's bytes, tells the server it is not a plain input.
func ExampleAppendMoves() {
	packet := []byte{0x01, 0x2a} // the game's bytes, opaque here
	msg := append(protocol.AppendMoves(nil, 12), packet...)

	m, err := protocol.Decode(msg)
	fmt.Println(err, m.Tag == protocol.TagMoves, m.Input.Seq, len(msg), m.Body)
	// Output: <nil> true 12 4 [1 42]
}
