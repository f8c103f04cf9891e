package movement_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/tether-net/tether/geom"
	"github.com/tether-net/tether/movement"
)

// runner is a character that runs east or west at 4 m/s.
type runner struct{}

type runState struct{ X float64 }

func (runner) Move(s runState, m *movement.Move[int8]) runState {
	s.X += float64(m.Input) * 4 * m.Dt.Seconds()
	return s
}
func (runner) Pos(s runState) geom.Vec3 { return geom.V(s.X, 0, 0) }
func (runner) Clamp(in int8) (int8, bool) {
	return max(-1, min(1, in)), true
}
func (runner) Combine(a, b int8) bool                 { return a == b }
func (runner) AppendInput(dst []byte, in int8) []byte { return append(dst, byte(in)) }
func (runner) DecodeInput(in *int8, b []byte) (int, error) {
	if len(b) < 1 {
		return 0, movement.ErrTruncated
	}
	*in = int8(b[0])
	return 1, nil
}
func (runner) AppendState(dst []byte, s runState) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.X))
}
func (runner) DecodeState(s *runState, b []byte) (int, error) {
	if len(b) < 8 {
		return 0, movement.ErrTruncated
	}
	s.X = math.Float64frombits(binary.LittleEndian.Uint64(b))
	return 8, nil
}

// A client predicts its frames at once, the server applies them and
// answers.
func Example() {
	var g movement.Game[runState, int8] = runner{}
	cli, _ := movement.NewClient(movement.ClientConfig{}, g, runState{})
	srv, _ := movement.NewServer(movement.ServerConfig{}, g, runState{}, nil)
	frame := time.Second / 60
	var packets [][]byte
	for i := range 4 {
		now := time.Duration(i) * frame
		s := cli.Move(now, now-100*time.Millisecond, 1)
		if b, ok := cli.AppendPacket(nil, now); ok {
			packets = append(packets, b)
		}
		fmt.Printf("frame %d drawn at x = %.3f\n", i, s.X)
	}
	for _, b := range packets {
		_ = srv.Receive(100*time.Millisecond, b)
		if r := srv.AppendReply(nil, 100*time.Millisecond); len(r) > 0 {
			_ = cli.HandleReply(r, 150*time.Millisecond)
		}
	}
	// The server's first answer is a reset that syncs the client (whose
	// prediction started from a guess); it replays its moves on top.
	fmt.Printf("server at x = %.3f, client stats %+v\n", srv.State().X, cli.Stats())
	// Output:
	// frame 0 drawn at x = 0.000
	// frame 1 drawn at x = 0.067
	// frame 2 drawn at x = 0.133
	// frame 3 drawn at x = 0.200
	// server at x = 0.200, client stats {Moves:3 Combined:0 Packets:3 Resends:0 Acks:0 Corrections:0 Resets:1 Snaps:0 Duplicates:0 BadReplies:0 Replayed:2 Dropped:0 Gaps:0 Saved:2}
}
