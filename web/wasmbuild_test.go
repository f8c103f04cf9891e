package web

import (
	"strings"
	"testing"
)

// A client whose module is neither the working directory's nor this
// binary's cannot be built: Get says which module's source it needs, and
// says it again without building on a second call.
func TestWasmBuildNeedsTheModule(t *testing.T) {
	w := &WasmBuild{Module: "example.com/elsewhere", Package: "./client"}
	for range 2 {
		if _, _, err := w.Get(); err == nil || !strings.Contains(err.Error(), "example.com/elsewhere") {
			t.Fatalf("Get: %v, want an error naming the module", err)
		}
	}
}
