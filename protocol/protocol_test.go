package protocol

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/tether-net/tether/clock"
	"github.com/tether-net/tether/event"
)

func samples() [][]byte {
	game := []byte{1, 2, 3}
	return [][]byte{
		AppendWelcome(nil, Welcome{Self: 3, TickHz: 60, SnapshotHz: 30}),
		append(AppendSnapshot(nil, Snapshot{Tick: 1234, Regular: true}), game...),
		AppendSnapshot(nil, Snapshot{Tick: 1}),
		AppendEvent(nil, event.Event{ID: 9, Kind: 1, Time: 3 * time.Second, Actor: 2}),
		AppendPong(nil, clock.Pong{ID: 4, Epoch: 7, Recv: time.Second, Send: time.Second + time.Millisecond}),
		AppendPing(nil, clock.Ping{ID: 4}),
		append(AppendInput(nil, Input{Seq: 77, Sent: 5 * time.Second, View: 4900 * time.Millisecond}), game...),
		AppendInput(nil, Input{Seq: 1}),
		append(AppendReply(nil), game...),
		append(AppendMoves(nil, 77, 300), game...),
		AppendAck(nil, 123456),
	}
}

func TestRoundTrip(t *testing.T) {
	want := []Tag{TagWelcome, TagSnapshot, TagSnapshot, TagEvent, TagPong, TagPing, TagInput, TagInput, TagReply, TagMoves, TagAck}
	for i, b := range samples() {
		m, err := Decode(b)
		if err != nil || m.Tag != want[i] {
			t.Fatalf("sample %d: %v, tag %d", i, err, m.Tag)
		}
		switch i {
		case 0:
			if m.Welcome != (Welcome{Self: 3, TickHz: 60, SnapshotHz: 30}) {
				t.Fatalf("%+v", m.Welcome)
			}
		case 1:
			if m.Snapshot != (Snapshot{Tick: 1234, Regular: true}) || !bytes.Equal(m.Body, []byte{1, 2, 3}) || len(b) != 1+2+3 {
				t.Fatalf("%+v %v in %d bytes", m.Snapshot, m.Body, len(b))
			}
		case 3:
			if m.Event.ID != 9 || m.Event.Time != 3*time.Second || m.Event.Actor != 2 {
				t.Fatalf("%+v", m.Event)
			}
		case 4:
			if m.Pong != (clock.Pong{ID: 4, Epoch: 7, Recv: time.Second, Send: time.Second + time.Millisecond}) {
				t.Fatalf("%+v", m.Pong)
			}
		case 6:
			if m.Input != (Input{Seq: 77, Sent: 5 * time.Second, View: 4900 * time.Millisecond}) || len(m.Body) != 3 {
				t.Fatalf("%+v", m.Input)
			}
		case 9:
			if m.Input != (Input{Seq: 77}) || m.Ack != 300 || len(m.Body) != 3 {
				t.Fatalf("%+v", m.Input)
			}
		case 10:
			if m.Ack != 123456 || len(b) != 4 {
				t.Fatalf("ack %d in %d bytes", m.Ack, len(b))
			}
		case 8:
			if !bytes.Equal(m.Body, []byte{1, 2, 3}) {
				t.Fatalf("reply body %v", m.Body)
			}
		}
		// Every strict prefix of a message without game bytes is truncated.
		if i == 0 || i == 3 || i == 4 || i == 5 {
			for n := range len(b) {
				if _, err := Decode(b[:n]); !errors.Is(err, ErrTruncated) {
					t.Fatalf("sample %d prefix %d: %v", i, n, err)
				}
			}
			if _, err := Decode(append(append([]byte(nil), b...), 0)); !errors.Is(err, ErrMalformed) {
				t.Fatalf("sample %d with a trailing byte: %v", i, err)
			}
		}
	}
	for _, b := range [][]byte{{0}, {99}, {byte(TagWelcome), 3, 0, 30}} {
		if _, err := Decode(b); !errors.Is(err, ErrMalformed) {
			t.Fatalf("%x: %v", b, err)
		}
	}
}

func TestAppendAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendSnapshot(buf[:0], Snapshot{Tick: 5, Regular: true})
		_, _ = Decode(buf)
		buf = AppendInput(buf[:0], Input{Seq: 5, Sent: time.Second})
		_, _ = Decode(buf)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func FuzzDecode(f *testing.F) {
	for _, b := range samples() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		var again []byte
		switch m.Tag {
		case TagWelcome:
			again = AppendWelcome(nil, m.Welcome)
		case TagSnapshot:
			again = append(AppendSnapshot(nil, m.Snapshot), m.Body...)
		case TagInput:
			again = append(AppendInput(nil, m.Input), m.Body...)
		case TagMoves:
			again = append(AppendMoves(nil, m.Input.Seq, m.Ack), m.Body...)
		case TagPing:
			again = AppendPing(nil, m.Ping)
		case TagReply:
			again = append(AppendReply(nil), m.Body...)
		default:
			return
		}
		m2, err := Decode(again)
		if err != nil || m2.Tag != m.Tag || m2.Welcome != m.Welcome || m2.Snapshot != m.Snapshot || m2.Input != m.Input || m2.Ack != m.Ack || !bytes.Equal(m2.Body, m.Body) {
			t.Fatalf("re-encoding %+v gave %+v (%v)", m, m2, err)
		}
	})
}

// A snapshot's time is its tick's at the welcome's rate, as the server
// steps it (server.Tick.Time, N times 1 s/TickHz in nanoseconds), in whole
// wire.TimeUnits.
func TestTickTime(t *testing.T) {
	for _, tc := range []struct {
		hz   uint16
		tick uint64
		want time.Duration
	}{
		{60, 0, 0},
		{60, 1, 16666 * time.Microsecond},
		{60, 60, 999999 * time.Microsecond}, // 60 × 16666666 ns
		{60, 1234, 20566665 * time.Microsecond},
		{30, 3, 99999 * time.Microsecond}, // 3 × 33333333 ns
		{1000, 7, 7 * time.Millisecond},
		{0, 5, 0}, // no rate: a welcome with none does not decode
	} {
		if got := (Welcome{TickHz: tc.hz}).TickTime(tc.tick); got != tc.want {
			t.Errorf("tick %d at %d Hz: %v, want %v", tc.tick, tc.hz, got, tc.want)
		}
	}
}
