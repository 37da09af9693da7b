package campaign

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/natsperf/natsperf/internal/live"
)

// serveMetrics serves m as Prometheus metrics on addr/metrics until stop is called.
func serveMetrics(addr string, m *live.Metrics, log io.Writer) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, inputf("--metrics-addr %s: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(log, "Prometheus metrics on http://%s/metrics\n", ln.Addr())
	return func() { _ = srv.Close() }, nil
}
