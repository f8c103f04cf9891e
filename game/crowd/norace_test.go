//go:build !race

package crowd

const raceEnabled = false
