//go:build !race

package tether_test

const raceEnabled = false
