package ops_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/tether-net/tether/ops"
)

// A process reports Ready once it listens, and /readyz fails as soon as it
// starts draining.
func Example() {
	l := ops.NewLifecycle()
	l.Watch(func(from, to ops.State) { fmt.Println(from, "->", to) })
	h := ops.Handler(l, ops.AdminConfig{})
	readyz := func() int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:9090/readyz", nil))
		return rec.Code
	}
	fmt.Println("readyz", readyz())
	l.Ready()
	fmt.Println("readyz", readyz())
	l.Drain()
	fmt.Println("readyz", readyz())
	// Output:
	// readyz 503
	// starting -> ready
	// readyz 200
	// ready -> draining
	// readyz 503
}
