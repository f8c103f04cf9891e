package web_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/tether-net/tether/web"
)

// A hub serving the live view, seen from a page: the pitch comes first, then
// the frames; the page's keys come back on Inputs.
func ExampleHub() {
	hub := web.NewHub()
	srv := httptest.NewServer(hub.Handler()) // the page is at srv.URL
	defer srv.Close()
	defer hub.Close()
	if err := hub.SetPitch(web.Pitch{Length: 40, Width: 25, GoalWidth: 4, GoalHeight: 2, GoalDepth: 1.5, Margin: 2}); err != nil {
		log.Fatal(err)
	}

	// What the page's script does.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	page, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer page.CloseNow()
	_, msg, _ := page.Read(ctx)
	fmt.Println(string(msg))

	hub.Publish(web.Frame{
		ServerTime: 12.5,
		Truth: web.World{
			Ball:    web.Ball{Pos: [3]float64{1.25, 0.11, -2}, Owner: -1},
			Players: []web.Player{{ID: 0, Team: 0, Pos: [3]float64{-3, 0, 1}, Human: true}},
			Score:   [2]int{1, 0},
		},
		Clients: []web.ClientView{{
			Name: "bot-1", Link: "wan", Ball: "tether",
			World: web.World{Ball: web.Ball{Pos: [3]float64{1.0004, 0.11, -2.1}, Owner: -1}},
			Stats: web.ClientStats{ClockErrMs: 0.8, BallFidelityM: 0.0031, BallPresentM: 0.27, DelayMs: 95, DownKbps: 41.3, UpKbps: 9.6},
		}},
	})
	_, msg, _ = page.Read(ctx)
	fmt.Println(string(msg))

	page.Write(ctx, websocket.MessageText, []byte(`{"type":"keys","up":true,"sprint":true}`))
	fmt.Printf("%+v\n", <-hub.Inputs())
	// Output:
	// {"type":"pitch","pitch":{"length":40,"width":25,"goal_width":4,"goal_height":2,"goal_depth":1.5,"margin":2}}
	// {"type":"frame","t":12.5,"truth":{"ball":{"pos":[1.25,0.11,-2],"owner":-1},"players":[{"id":0,"team":0,"pos":[-3,0,1],"human":true}],"score":[1,0]},"clients":[{"name":"bot-1","link":"wan","ball":"tether","world":{"ball":{"pos":[1,0.11,-2.1],"owner":-1},"players":[],"score":[0,0]},"stats":{"clock_err_ms":0.8,"ball_fidelity_m":0.0031,"ball_present_m":0.27,"delay_ms":95,"down_kbps":41.3,"up_kbps":9.6}}]}
	// {Up:true Down:false Left:false Right:false Sprint:true Kick:false Primary:false Secondary:false Aiming:false Aim:[0 0]}
}

// How a program feeds the view: serve the handler, publish a frame at each
// tick, and drive the human's player with the page's keys.
func ExampleHub_Publish() {
	hub := web.NewHub()
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: hub.Handler()}
	go srv.ListenAndServe()
	defer func() {
		hub.Close()
		srv.Close()
	}()

	tick := time.NewTicker(time.Second / 30)
	defer tick.Stop()
	var keys web.KeyInput
	kick := false
	for range tick.C {
		for drained := false; !drained; {
			select {
			case k := <-hub.Inputs():
				keys = k
				kick = kick || k.Kick // a tap of Space may come and go within a tick
			default:
				drained = true
			}
		}
		_ = keys // run the human's player by keys, kick if kick
		kick = false
		hub.Publish(web.Frame{ /* the server's truth and every client's view now */ })
	}
}
