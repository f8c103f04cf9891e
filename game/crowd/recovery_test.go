package crowd

import (
	"testing"
	"time"

	"github.com/tether-net/tether/netsim"
)

// After the lossy preset's 2 s blackout (at 20 s) every sphere is refreshed
// again within a second, the server sending them whole as the
// budget allows once the client's last baseline has left its ring.
func TestBlackoutRecovery(t *testing.T) {
	if raceEnabled {
		t.Skip("25 s and more of a crowd: minutes under the race detector (Example runs the crowd under it)")
	}
	l, _ := netsim.Preset("lossy")
	v, err := NewVirtual(VirtualConfig{Links: []netsim.LinkConfig{l}, Seed: 1, Budget: 460})
	if err != nil {
		t.Fatal(err)
	}
	v.RunUntil(25 * time.Second)
	f := v.Figures(0)
	t.Logf("recovery %.3f s; refresh max %.0f ms, moving fidelity p99 %.4f m", f.RecoveryS, f.RefreshMs.Max, f.MovingM.P99)
	if f.RecoveryS <= 0 || f.RecoveryS > 1 {
		t.Errorf("recovery %.3f s, want within (0, 1]", f.RecoveryS)
	}
}
