package netns_test

import (
	"context"
	"fmt"
	"log"

	"github.com/natsperf/natsperf/internal/netns"
)

// A server node and two agent nodes. The server must listen on its node's veth address (its
// loopback is private to the namespace): here a nats-server binary with -a; in a Go test, the
// test binary re-executed in the namespace as an embedded server (netns_test.go does that).
func ExampleNew() {
	if ok, why := netns.Available(); !ok {
		fmt.Println("no network namespaces here:", why)
		return
	}
	ctx := context.Background()
	n, err := netns.New(ctx, "server", "agent1", "agent2")
	if err != nil {
		log.Fatal(err)
	}
	defer n.Close()
	url := "nats://" + n.Addr("server") + ":4222" // nats://10.213.0.1:4222
	server := n.Command(ctx, "server", "nats-server", "-a", n.Addr("server"), "-p", "4222", "-js")
	agents := []string{"agent1", "agent2"}
	for _, a := range agents {
		_ = n.Command(ctx, a, "natsperf", "agent", "-s", url, "--name", a)
	}
	_ = server
}
