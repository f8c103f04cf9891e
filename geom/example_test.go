package geom_test

import (
	"fmt"
	"math"

	"github.com/tether-net/tether/geom"
)

// Interpolating a yaw of 170° toward -170° passes through 180°, the short way.
func ExampleSlerp() {
	up := geom.V(0, 1, 0)
	a := geom.AxisAngle(up, 170*math.Pi/180)
	b := geom.AxisAngle(up, -170*math.Pi/180)
	mid := geom.Slerp(a, b, 0.5)
	fmt.Printf("%.1f° from yaw 180°\n", mid.Angle(geom.AxisAngle(up, math.Pi))*180/math.Pi)
	// Output: 0.0° from yaw 180°
}

// Hermite follows a ball's arc between two snapshots 100 ms apart.
func ExampleHermite() {
	p0, v0 := geom.V(0, 1, 0), geom.V(10, 5, 0)
	p1, v1 := geom.V(1, 1.45095, 0), geom.V(10, 4.019, 0) // 0.1 s later, under gravity
	pos, _ := geom.Hermite(p0, v0, p1, v1, 0.1, 0.5)
	fmt.Printf("halfway: x=%.3f m, y=%.3f m\n", pos.X, pos.Y)
	// Output: halfway: x=0.500 m, y=1.238 m
}
