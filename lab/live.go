package lab

// Summarise computes the Stat of samples xs (mean, p50, p99 by the nearest
// rank, max, rms), rounded as the lab's reports are; the zero Stat when xs is
// empty. It sorts xs in place. Programs that measure live, such as tether
// demo, use it to report in the lab's schema.
func Summarise(xs []float64) Stat { return summarise(xs) }
