package clock

import (
	"testing"
	"time"
)

// steadyEstimator returns an estimator with a full window, fed by a clean
// synthetic link, and the local time of its last pong.
func steadyEstimator(tb testing.TB) (*Estimator, time.Duration) {
	e, err := NewEstimator(Config{})
	if err != nil {
		tb.Fatal(err)
	}
	var local time.Duration
	for i := range 400 {
		p := e.Ping(local)
		jit := time.Duration(i*7919%5000) * time.Microsecond
		recv := local + 25*time.Millisecond + jit
		pong := Responder{}.Pong(p, recv, recv+time.Millisecond)
		e.HandlePong(pong, local+51*time.Millisecond+jit)
		local += 500 * time.Millisecond
	}
	return e, local
}

func BenchmarkHandlePong(b *testing.B) {
	e, local := steadyEstimator(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := e.Ping(local)
		jit := time.Duration(i*7919%5000) * time.Microsecond
		recv := local + 25*time.Millisecond + jit
		e.HandlePong(Responder{}.Pong(p, recv, recv+time.Millisecond), local+51*time.Millisecond+jit)
		local += 500 * time.Millisecond
		i++
	}
}

func BenchmarkNow(b *testing.B) {
	e, local := steadyEstimator(b)
	b.ReportAllocs()
	var sink time.Duration
	for b.Loop() {
		s, _ := e.Now(local)
		sink += s
		local += time.Millisecond
	}
	_ = sink
}

func BenchmarkAppendPong(b *testing.B) {
	buf := make([]byte, 0, MaxPongSize)
	p := Pong{ID: 12345, Epoch: 7, Recv: 3600 * time.Second, Send: 3600*time.Second + 5*time.Millisecond}
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendPong(buf[:0], p)
	}
}

func BenchmarkDecodePong(b *testing.B) {
	buf := AppendPong(nil, Pong{ID: 12345, Epoch: 7, Recv: 3600 * time.Second, Send: 3600*time.Second + 5*time.Millisecond})
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodePong(buf); err != nil {
			b.Fatal(err)
		}
	}
}
