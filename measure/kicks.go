package measure

import (
	"time"

	"github.com/tether-net/tether/geom"
)

// KickVisibleM is the change of the drawn ball's motion over one frame,
// metres, that shows a kick: 2 cm at 60 Hz is a change of speed of 1.2 m/s,
// less than the weakest pass changes a carried ball's.
const KickVisibleM = 0.02

// KickWindow is how long after a kick input the server's kick, and the drawn
// ball showing it, are looked for.
const KickWindow = time.Second

// KickMeter measures a client's own kicks (BallMetrics' kick fields): how
// many of its kick inputs after the warm-up the server applied, how many
// frames the drawn ball took to show each, and, for a method that predicts
// its own kicks, how its predictions fared. Give it every frame (Frame), the
// inputs that asked to kick (Kicked, after their frame) and the server's
// kicks by the client's character (Applied); read Metrics at the end. Set its
// fields before the first frame.
type KickMeter struct {
	WarmUp   time.Duration
	Predicts bool // the method predicts the own kicks (Metrics takes them)
	// FrameHz is the client's frame rate (0 means 60): a kick is judged
	// only if it changed the ball's velocity by at least twice what
	// KickVisibleM shows at that rate (2.4 m/s at 60 Hz), for a kick along
	// a carried ball's path may change it too little to be seen.
	FrameHz float64

	inputs      []kickInput
	searching   int // inputs before it are no longer searched for
	frames      int // frames so far
	drawn, prev drawnBall
	applied     []appliedKick // the server's kicks, in order of time
}

// appliedKick is a kick the server applied for the client's character.
type appliedKick struct {
	at time.Duration // server time
	dv float64       // how much it changed the ball's velocity, m/s
}

// drawnBall is the ball as one frame drew it.
type drawnBall struct {
	pos geom.Vec3
	ok  bool
}

// kickInput is an input that asked the client's character to kick.
type kickInput struct {
	frame int           // number of the frame it was decided at (and sent after)
	t     time.Duration // true time of that frame
	// ref is the drawn ball's motion into that frame, if both frames drew
	// it; visible counts the frames drawn after it before the drawn ball's
	// motion over a frame differs from ref by more than KickVisibleM, -1 if
	// none did within KickWindow.
	ref     geom.Vec3
	search  bool
	visible int
}

// PredictedKick is a kick a client predicted and claimed (the soccer game's
// resim method): when and from where it kicked, until when it waited for the
// server's states to show it, and whether and how far its ball moved when
// they did.
type PredictedKick struct {
	At, Until  time.Duration
	From       geom.Vec3
	Confirmed  bool
	Correction float64 // metres
	Change     float64 // how much it changed the client's ball's velocity, m/s
}

// Frame takes the ball as the client's next frame, at true time d.T, drew it.
func (k *KickMeter) Frame(d Drawn) {
	k.prev, k.drawn = k.drawn, drawnBall{d.Pos, d.OK}
	for k.searching < len(k.inputs) && !k.inputs[k.searching].search {
		k.searching++
	}
	for i := k.searching; i < len(k.inputs); i++ {
		in := &k.inputs[i]
		switch {
		case !in.search:
		case d.T > in.t+KickWindow:
			in.search = false
		case k.drawn.ok && k.prev.ok && k.drawn.pos.Sub(k.prev.pos).Sub(in.ref).Len() > KickVisibleM:
			in.search, in.visible = false, k.frames-in.frame-1
		}
	}
	k.frames++
}

// Kicked notes that the input decided at the frame just taken, at true time
// t, asked the client's character to kick.
func (k *KickMeter) Kicked(t time.Duration) {
	in := kickInput{frame: k.frames - 1, t: t, visible: -1}
	if k.drawn.ok && k.prev.ok && in.frame >= 1 {
		in.ref, in.search = k.drawn.pos.Sub(k.prev.pos), true
	}
	k.inputs = append(k.inputs, in)
}

// Applied notes a kick the server applied for the client's character at
// server time t that changed the ball's velocity by dv (m/s); kicks come in
// order of time.
func (k *KickMeter) Applied(t time.Duration, dv float64) {
	k.applied = append(k.applied, appliedKick{t, dv})
}

// Metrics fills the kick fields of bm: for every kick input after the
// warm-up the server applied (a kick within KickWindow and before the next
// kick input), the frames until the drawn ball showed it, over the kicks
// that changed the true ball's velocity, and the predicted one's if the
// method predicted it, by enough to be seen (see FrameHz); if the method predicts its kicks, over those it
// predicted after the warm-up, how far its ball moved when the server's
// states showed each, how much later the server kicked, and how far from
// the true ball (ball) it kicked.
func (k *KickMeter) Metrics(bm *BallMetrics, predicted []PredictedKick, ball *Truth) {
	used := make([]bool, len(k.applied))
	server := func(from, until time.Duration) (appliedKick, bool) {
		for i, a := range k.applied {
			if !used[i] && a.at >= from && a.at <= until {
				used[i] = true
				return a, true
			}
		}
		return appliedKick{}, false
	}
	frame := time.Second / 60
	if k.FrameHz > 0 {
		frame = time.Duration(float64(time.Second) / k.FrameHz)
	}
	seen := 2 * KickVisibleM / frame.Seconds() // m/s
	predictedSeen := func(t time.Duration) bool {
		for _, p := range predicted {
			if k.Predicts && p.At >= t-2*frame && p.At <= t+2*frame {
				return p.Change >= seen
			}
		}
		return true
	}
	var visible []float64
	n := 0
	for i, in := range k.inputs {
		if in.t < k.WarmUp {
			continue
		}
		until := in.t + KickWindow
		if i+1 < len(k.inputs) {
			until = min(until, k.inputs[i+1].t) // a kick after the next input is that one's
		}
		a, ok := server(in.t, until)
		if !ok {
			continue
		}
		n++
		if in.visible >= 0 && a.dv >= seen && predictedSeen(in.t) {
			visible = append(visible, float64(in.visible))
		}
	}
	bm.Kicks = &n
	if len(visible) > 0 {
		st := Summarise(visible)
		bm.KickVisibleFrames = &st
	}
	if !k.Predicts {
		return
	}
	clear(used)
	var corr, lag, origin, refuted []float64
	made := 0
	for _, p := range predicted {
		if p.At < k.WarmUp {
			continue
		}
		made++
		a, ok := server(p.At, p.Until)
		switch {
		case !p.Confirmed:
		case !ok:
			refuted = append(refuted, p.Correction)
		default:
			corr = append(corr, p.Correction)
			lag = append(lag, ms(a.at-p.At))
			origin = append(origin, p.From.Dist(ball.At(p.At)))
		}
	}
	bm.KicksPredicted = &made
	if len(refuted) > 0 {
		r, st := len(refuted), Summarise(refuted)
		bm.KicksRefuted, bm.KickRefutedM = &r, &st
	}
	if len(corr) > 0 {
		c, l, o := Summarise(corr), Summarise(lag), Summarise(origin)
		bm.KickCorrectionM, bm.KickLagMs, bm.KickOriginM = &c, &l, &o
	}
}
