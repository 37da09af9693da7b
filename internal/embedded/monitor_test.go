package embedded

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// HTTPPort serves node 1's monitoring on Host: its /varz counts what a client published, and
// without HTTPPort there is no monitoring at all.
func TestMonitorServesVarz(t *testing.T) {
	t.Parallel()
	opts := testOptions(1)
	opts.HTTPPort = -1
	c := startT(t, opts)
	mon := c.MonitorURL()
	if !strings.HasPrefix(mon, "http://127.0.0.1:") || strings.HasSuffix(mon, ":-1") {
		t.Fatalf("MonitorURL() = %q", mon)
	}
	nc := connect(t, c.URL())
	for range 5 {
		if err := nc.Publish("monitor.test", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(mon + "/varz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		InMsgs int64 `json:"in_msgs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v.InMsgs != 5 {
		t.Fatalf("/varz in_msgs %d after 5 published", v.InMsgs)
	}

	if plain := startT(t, testOptions(1)); plain.MonitorURL() != "" || plain.Node(1).MonitorAddr() != nil {
		t.Fatalf("monitoring without HTTPPort: %q", plain.MonitorURL())
	}
}
