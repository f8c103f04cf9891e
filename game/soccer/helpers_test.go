package soccer

import (
	"time"

	"github.com/tether-net/tether/server"
)

func tick(n uint64) server.Tick {
	return server.Tick{N: n, Time: time.Duration(n) * dt, Dt: dt}
}

func serverInput(data []byte, view time.Duration) server.Input {
	return server.Input{View: view, Data: data}
}

// viewOfTruth is the view of a client that sees the truth as it is.
func viewOfTruth(tr *Truth, self uint32, v View) View {
	v.Ready, v.Time, v.Self = true, tr.Time, self
	v.Ball, v.BallVel, v.BallRot, v.Possessor = tr.Ball.Pos, tr.Ball.Vel, tr.Ball.Rot, tr.Possessor
	v.Players = v.Players[:0]
	for _, p := range tr.Players {
		v.Players = append(v.Players, PlayerView{ID: p.ID, Team: p.Team, Pos: p.Pos, Vel: p.Vel, Forward: p.Forward()})
	}
	v.Score = Score{Home: tr.Score[0], Away: tr.Score[1], Paused: tr.Paused}
	return v
}
