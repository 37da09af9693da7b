package natstest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestServerProcess starts the oldest supported release and meets it on both ports it wrote.
func TestServerProcess(t *testing.T) {
	p := ServerProcess(t, Releases[0])
	nc, err := nats.Connect(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if got, want := nc.ConnectedServerVersion(), strings.TrimPrefix(Releases[0], "v"); got != want {
		t.Errorf("INFO version %s, want %s", got, want)
	}
	resp, err := http.Get(p.MonitorURL + "/varz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/varz: %s", resp.Status)
	}
}
