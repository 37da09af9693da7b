package embedded

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// testOptions keeps JetStream small so parallel tests fit on a CI box.
func testOptions(nodes int) Options {
	return Options{
		Nodes:              nodes,
		JetStreamMaxMemory: 32 << 20,
		JetStreamMaxStore:  64 << 20,
	}
}

func startT(t testing.TB, opts Options) *Cluster {
	t.Helper()
	c, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

func connect(t testing.TB, urls string, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(urls, opts...)
	if err != nil {
		t.Fatalf("connect %s: %v", urls, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func newJS(t testing.TB, nc *nats.Conn) jetstream.JetStream {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream.New: %v", err)
	}
	return js
}

// refused asserts that nothing accepts TCP connections at a nats:// URL.
func refused(t testing.TB, u string) {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", pu.Host, time.Second)
	if err == nil {
		conn.Close()
		t.Fatalf("%s still accepts connections", u)
	}
}

// streamMsgs is how many messages node s holds for stream name.
func streamMsgs(s *server.Server, name string) (uint64, error) {
	ad, err := s.JszAccount(&server.JSzOptions{Account: "$G", Streams: true})
	if err != nil {
		return 0, err
	}
	for _, sd := range ad.Streams {
		if sd.Name == name {
			return sd.State.Msgs, nil
		}
	}
	return 0, errors.New("stream " + name + " not on " + s.Name())
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
