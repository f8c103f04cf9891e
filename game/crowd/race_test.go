//go:build race

package crowd

const raceEnabled = true
