package crowd

import (
	"testing"
	"time"

	"github.com/tether-net/tether/netsim"
)

// The budget's effect on broadband, in a crowd stirred seven times as hard
// as the default (28 spheres kicked every half second), over 20 s: without
// a budget the snapshots need more than 256 kbps on the wire; with 460
// bytes they stay under it, the spheres left out of one snapshot sent in
// the next few, and every sphere, moving ones too, is still drawn within
// 5 cm of the truth at the 99th percentile.
func TestBudgetStirred(t *testing.T) {
	if raceEnabled {
		t.Skip("25 s and more of a crowd: minutes under the race detector (Example runs the crowd under it)")
	}
	l, _ := netsim.Preset("broadband")
	var figs [2]Figures
	for k, budget := range []int{0, 460} {
		v, err := NewVirtual(VirtualConfig{Game: Config{Kicked: 28}, Links: []netsim.LinkConfig{l}, Seed: 1, Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		v.RunUntil(20 * time.Second)
		f := v.Figures(0)
		t.Logf("budget %d: down %.1f kbps, fidelity p99 %.2f mm (moving %.2f mm), refresh p99 %.0f ms (max %.0f), %.0f bytes, %.1f left out",
			budget, f.Net.DownKbps, 1000*f.FidelityM.P99, 1000*f.MovingM.P99, f.RefreshMs.P99, f.RefreshMs.Max, f.SnapshotBytes, f.LeftOut)
		figs[k] = f
	}
	off, on := figs[0], figs[1]
	if off.Net.DownKbps <= 256 || off.LeftOut != 0 {
		t.Errorf("without a budget: %.1f kbps, %.1f left out; want more than 256, none", off.Net.DownKbps, off.LeftOut)
	}
	if on.Net.DownKbps > 256 || on.LeftOut == 0 || on.FidelityM.P99 > 0.05 || on.MovingM.P99 > 0.05 || on.RefreshMs.Max > 250 {
		t.Errorf("with the budget: %.1f kbps (want <= 256), %.1f left out (want some), fidelity p99 %.4f m and moving %.4f m (want <= 0.05), refresh max %.0f ms (want <= 250)",
			on.Net.DownKbps, on.LeftOut, on.FidelityM.P99, on.MovingM.P99, on.RefreshMs.Max)
	}
}
