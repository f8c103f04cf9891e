package web

import (
	"fmt"
	"math"
)

// synthFrame is a made-up moment of a match at server time t (seconds): the
// ball circling the centre spot and bouncing, players in two halves weaving
// about their places, and each client's view a little behind the truth, as a
// client that renders in the past shows it. Player 3 is the human's.
func synthFrame(t float64, clients, players int) Frame {
	world := func(t float64) World {
		w := World{Score: [2]int{int(t / 20), int(t / 30)}}
		y := 0.11 + math.Abs(math.Sin(t*2))*1.5
		w.Ball = Ball{Pos: [3]float64{30 * math.Cos(t*0.6), y, 20 * math.Sin(t*0.6)}, Owner: -1}
		for i := range players {
			team := i % 2
			side := float64(2*team - 1)
			row := float64(i / 2)
			x := side * (10 + 8*row)
			z := -25 + 50*math.Mod(float64(i)*0.37, 1)
			w.Players = append(w.Players, Player{
				ID: i, Team: team, Human: i == 3,
				Pos: [3]float64{x + 5*math.Sin(t+float64(i)), 0, z + 4*math.Cos(t*0.8+float64(i))},
			})
		}
		return w
	}
	f := Frame{ServerTime: t, Truth: world(t)}
	links := []string{"wan", "broadband", "mobile", "lossy", "lan"}
	balls := []string{"tether", "seed", "velocity", "predictive", "resim"}
	for c := range clients {
		delay := 0.06 + 0.03*float64(c)
		f.Clients = append(f.Clients, ClientView{
			Name: fmt.Sprintf("bot-%d", c+1), Link: links[c%len(links)], Ball: balls[c%len(balls)],
			World: world(t - delay),
			Stats: ClientStats{
				ClockErrMs: 0.4 + 0.3*float64(c), BallFidelityM: 0.0004 + 0.003*float64(c), BallPresentM: 18 * delay,
				DelayMs:  1000 * delay,
				DownKbps: 48 + float64(c), UpKbps: 12 + float64(c)/2,
			},
		})
	}
	return f
}
