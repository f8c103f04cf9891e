package clock

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"
)

var (
	testPings = []Ping{{0}, {1}, {127}, {128}, {1 << 20}, {math.MaxUint32}}
	testPongs = []Pong{
		{},
		{ID: 1, Epoch: 1, Recv: time.Second, Send: time.Second},
		{ID: 300, Epoch: 9, Recv: 3600 * time.Second, Send: 3600*time.Second + 16666*time.Microsecond},
		{ID: math.MaxUint32, Epoch: math.MaxUint32, Recv: -5 * time.Hour, Send: -5*time.Hour + time.Millisecond},
		{ID: 7, Epoch: 2, Recv: 1500 * time.Nanosecond, Send: 2999 * time.Nanosecond}, // below the resolution
		{ID: 8, Recv: math.MinInt64, Send: math.MaxInt64},
		{ID: 9, Recv: math.MaxInt64, Send: math.MaxInt64},
	}
)

// truncated returns p as the wire carries it: times in whole microseconds.
func truncated(p Pong) Pong {
	recv := p.Recv / wireUnit * wireUnit
	send := max(p.Send/wireUnit*wireUnit, recv)
	return Pong{ID: p.ID, Epoch: p.Epoch, Recv: recv, Send: send}
}

func TestWireRoundTrip(t *testing.T) {
	trailer := []byte{0xde, 0xad}
	for _, p := range testPings {
		b := AppendPing(nil, p)
		if len(b) > MaxPingSize {
			t.Errorf("%+v: %d bytes, more than MaxPingSize", p, len(b))
		}
		got, n, err := DecodePing(append(b, trailer...))
		if err != nil || got != p || n != len(b) {
			t.Errorf("%+v: decoded %+v, %d bytes, %v", p, got, n, err)
		}
	}
	for _, p := range testPongs {
		b := AppendPong([]byte{0xff}, p)[1:]
		if len(b) > MaxPongSize {
			t.Errorf("%+v: %d bytes, more than MaxPongSize", p, len(b))
		}
		got, n, err := DecodePong(append(b, trailer...))
		if err != nil || got != truncated(p) || n != len(b) {
			t.Errorf("%+v: decoded %+v, %d bytes, %v; want %+v", p, got, n, err, truncated(p))
		}
	}
	// A typical pong an hour into a session is small.
	if n := len(AppendPong(nil, testPongs[2])); n > 12 {
		t.Errorf("typical pong takes %d bytes", n)
	}
}

func TestWireErrors(t *testing.T) {
	for _, p := range testPongs {
		b := AppendPong(nil, p)
		for i := range len(b) {
			if _, _, err := DecodePong(b[:i]); !errors.Is(err, ErrTruncated) {
				t.Errorf("%x: %v, want ErrTruncated", b[:i], err)
			}
		}
	}
	if _, _, err := DecodePing(nil); !errors.Is(err, ErrTruncated) {
		t.Errorf("empty ping: %v", err)
	}
	for _, b := range [][]byte{
		{0x80, 0x00},                   // redundant zero group
		{0xff, 0xff, 0xff, 0xff, 0x10}, // id beyond 32 bits
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // beyond 64 bits
	} {
		if _, _, err := DecodePing(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("ping %x: %v, want ErrMalformed", b, err)
		}
		if _, _, err := DecodePong(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("pong %x: %v, want ErrMalformed", b, err)
		}
	}
	// Recv or Recv+hold beyond a Duration.
	for _, b := range [][]byte{
		{1, 1, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0},
		append(AppendPong(nil, Pong{Recv: math.MaxInt64, Send: math.MaxInt64})[:10], 1),
	} {
		if _, _, err := DecodePong(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("pong %x: %v, want ErrMalformed", b, err)
		}
	}
}

func TestWireAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxPongSize)
	p := testPongs[2]
	if n := testing.AllocsPerRun(100, func() {
		buf = AppendPing(buf[:0], Ping{ID: 99})
		buf = AppendPong(buf[:0], p)
		if _, _, err := DecodePong(buf); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocs", n)
	}
}

// fuzzWire checks a decoder on arbitrary input: no panic, a sane length,
// and canonical form (re-encoding gives back the bytes consumed).
func FuzzDecodePing(f *testing.F) {
	for _, p := range testPings {
		f.Add(AppendPing(nil, p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, n, err := DecodePing(b)
		if err != nil {
			if n != 0 || !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if n < 1 || n > len(b) || n > MaxPingSize {
			t.Fatalf("n = %d of %d", n, len(b))
		}
		if enc := AppendPing(nil, p); !bytes.Equal(enc, b[:n]) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", b[:n], p, enc)
		}
	})
}

func FuzzDecodePong(f *testing.F) {
	for _, p := range testPongs {
		f.Add(AppendPong(nil, p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, n, err := DecodePong(b)
		if err != nil {
			if n != 0 || !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v with n = %d", err, n)
			}
			return
		}
		if n < 4 || n > len(b) || n > MaxPongSize {
			t.Fatalf("n = %d of %d", n, len(b))
		}
		if p.Send < p.Recv {
			t.Fatalf("decoded Send %v before Recv %v", p.Send, p.Recv)
		}
		if enc := AppendPong(nil, p); !bytes.Equal(enc, b[:n]) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", b[:n], p, enc)
		}
	})
}
