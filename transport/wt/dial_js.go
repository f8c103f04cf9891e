//go:build js && wasm

package wt

import (
	"context"
	"errors"
	"net"
	"syscall/js"

	"github.com/tether-net/tether/transport/ws"
)

// ErrUnsupported is returned by Dial in a browser without WebTransport.
var ErrUnsupported = errors.New("tether/transport/wt: this browser has no WebTransport")

// Dial opens a WebTransport session to url (https://host:port/path) with
// the browser's WebTransport API and returns it as a net.PacketConn, ready
// for tether/transport/udp.Dial. With a certificateHash (SHA-256 of the
// server's DER certificate) the browser accepts the certificate by that
// hash (serverCertificateHashes); without one it checks it by name. ctx
// bounds the opening only.
func Dial(ctx context.Context, url string, certificateHash []byte) (_ *ws.Conn, err error) {
	ctor := js.Global().Get("WebTransport")
	if ctor.IsUndefined() {
		return nil, ErrUnsupported
	}
	opts := js.Global().Get("Object").New()
	if certificateHash != nil {
		h := js.Global().Get("Object").New()
		h.Set("algorithm", "sha-256")
		h.Set("value", bytesToJS(certificateHash))
		opts.Set("serverCertificateHashes", js.Global().Get("Array").New(h))
	}
	defer func() {
		if r := recover(); r != nil { // the constructor throws on a bad URL or option
			e, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = &net.OpError{Op: "dial", Net: "webtransport", Err: e}
		}
	}()
	t := ctor.New(url, opts)
	if _, err := await(ctx, t.Get("ready")); err != nil {
		t.Call("close")
		return nil, err
	}
	d := t.Get("datagrams")
	s := &jsSession{t: t, reader: d.Get("readable").Call("getReader"), writer: d.Get("writable").Call("getWriter"),
		in: make(chan []byte, 256), done: make(chan struct{})}
	s.ignore = js.FuncOf(func(js.Value, []js.Value) any { return nil })
	go s.pump()
	return ws.NewConn(s), nil
}

// jsSession is a browser's WebTransport as ws.Datagrams.
type jsSession struct {
	t, reader, writer js.Value
	ignore            js.Func // swallows the rejection of a write after close
	in                chan []byte
	done              chan struct{} // closed when the reader has ended
}

// pump reads datagrams into in until the session ends; a full in drops
// them, as a socket's buffer would.
func (s *jsSession) pump() {
	defer close(s.done)
	for {
		r, err := await(context.Background(), s.reader.Call("read"))
		if err != nil || r.Get("done").Bool() {
			return
		}
		v := r.Get("value")
		b := make([]byte, v.Get("byteLength").Int())
		js.CopyBytesToGo(b, v)
		select {
		case s.in <- b:
		default:
		}
	}
}

func (s *jsSession) ReceiveDatagram(ctx context.Context) ([]byte, error) {
	select {
	case b := <-s.in:
		return b, nil
	case <-s.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SendDatagram hands b to the browser without waiting: the browser drops
// datagrams its queue has no room for.
func (s *jsSession) SendDatagram(b []byte) error {
	select {
	case <-s.done:
		return net.ErrClosed
	default:
	}
	s.writer.Call("write", bytesToJS(b)).Call("catch", s.ignore)
	return nil
}

func (s *jsSession) Close(reason string) error {
	info := js.Global().Get("Object").New()
	info.Set("closeCode", 0)
	info.Set("reason", reason)
	s.t.Call("close", info)
	return nil
}

func bytesToJS(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// await waits for promise p to settle, or ctx.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	var ok, fail js.Func
	settle := func(r result) {
		ok.Release()
		fail.Release()
		ch <- r
	}
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		settle(result{v: args[0]})
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		settle(result{err: errors.New("tether/transport/wt: " + args[0].Call("toString").String())})
		return nil
	})
	p.Call("then", ok, fail)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Undefined(), ctx.Err() // the callbacks release themselves when p settles
	}
}
