package kinematic

import (
	"time"

	"github.com/tether-net/tether/geom"
)

// State is the kinematic state of one entity at one moment of server time.
// The zero value is an entity at rest at the origin, unrotated, at time zero.
type State struct {
	Time   time.Duration // server time the state holds at
	Pos    geom.Vec3     // position, metres
	Vel    geom.Vec3     // velocity, metres per second; at a Knot, the velocity leaving it
	Rot    geom.Quat     // orientation, a unit quaternion; the zero value is read as geom.Identity
	AngVel geom.Vec3     // angular velocity, radians per second, world frame
	// Input is the control the entity moves under from Time on, as the
	// sender knew it then: for a character, say, the velocity its input
	// asks for. Its meaning is the extrapolator's that reads it (see
	// timeline.Config.Extrapolate, which may hold it past Time); the
	// ballistic and linear extrapolators ignore it. It is not part of a
	// wire encoding: a game that sends it encodes it itself.
	Input geom.Vec3
	// Knot marks a velocity discontinuity (a contact: kick, bounce) at this
	// instant or since the state before it, as a server stepping at a fixed
	// rate marks the end of the step that had the contact: Vel is the
	// velocity leaving it, and a curve arriving here must not use it.
	Knot bool
	// Cut marks a discontinuity in position (a teleport, a kickoff reset): a
	// client never interpolates or blends into this state from earlier ones.
	Cut bool
}
