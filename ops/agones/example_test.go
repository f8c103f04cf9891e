package agones_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/tether-net/tether/ops"
	"github.com/tether-net/tether/ops/agones"
)

// The adapter follows the lifecycle; here a stand-in sidecar prints the calls.
func Example() {
	calls := make(chan string, 8)
	sidecar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "{}")
		calls <- r.Method + " " + r.URL.Path
	}))
	defer sidecar.Close()
	a, _ := agones.New(agones.Config{URL: sidecar.URL})
	l := ops.NewLifecycle()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- a.Run(ctx, l, nil) }()
	l.Ready()
	fmt.Println(<-calls)
	l.Allocate()
	fmt.Println(<-calls)
	l.Drain()
	a.Shutdown(ctx)
	fmt.Println(<-calls)
	cancel()
	<-done
	// Output:
	// POST /ready
	// POST /allocate
	// POST /shutdown
}
