package netcode

// ReplayWindowSize is the number of recent sequence numbers remembered by the
// replay protection of each connection.
const ReplayWindowSize = 256

// replayWindow remembers which of the last ReplayWindowSize sequence numbers
// were received. It is a bitmap keyed by sequence modulo the window size and
// compares by subtraction only, so sequences near 2^64 work (the overflow
// erratum in IMPLEMENTERS.md).
type replayWindow struct {
	latest uint64
	any    bool
	bits   [ReplayWindowSize / 64]uint64
}

// seen reports whether seq must be rejected: already received, or older than
// the window.
func (w *replayWindow) seen(seq uint64) bool {
	if !w.any || seq > w.latest {
		return false
	}
	if w.latest-seq >= ReplayWindowSize {
		return true
	}
	i := seq % ReplayWindowSize
	return w.bits[i/64]&(1<<(i%64)) != 0
}

// mark records seq as received (call only after authentication succeeded and
// seen(seq) was false).
func (w *replayWindow) mark(seq uint64) {
	if !w.any {
		w.any = true
		w.latest = seq
		w.bits = [ReplayWindowSize / 64]uint64{}
	} else if seq > w.latest {
		if seq-w.latest >= ReplayWindowSize {
			w.bits = [ReplayWindowSize / 64]uint64{}
		} else {
			for s := w.latest + 1; s != seq; s++ {
				i := s % ReplayWindowSize
				w.bits[i/64] &^= 1 << (i % 64)
			}
		}
		w.latest = seq
	}
	i := seq % ReplayWindowSize
	w.bits[i/64] |= 1 << (i % 64)
}
