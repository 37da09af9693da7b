package embedded

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/link"
)

// leaf is one leaf node of a hub-and-leaves topology (Options.Leafnodes): a server without
// JetStream whose leaf connection reaches hub node hub (1-based) through link (nil without
// Options.Network). Its clients use the hub's JetStream across that connection.
type leaf struct {
	name string
	hub  int
	link *link.Link
	srv  *server.Server
	log  *nodeLogger
}

func leafName(i int) string { return fmt.Sprintf("natsperf-leaf%d", i) }

// holdNodePorts holds one free loopback port per node (gateway or leaf listeners), until
// release; call it while the other reservations are held (see holdPorts).
func (c *Cluster) holdNodePorts() (ports []int, release func(), err error) {
	hosts := make([]string, len(c.nodes))
	for i := range hosts {
		hosts[i] = defaultHost
	}
	return holdPorts(hosts...)
}

// makeLeafPorts gives every hub node a leaf port; call it while the other reservations are
// held (see holdPorts).
func (c *Cluster) makeLeafPorts() (release func(), err error) {
	if c.opts.Leafnodes == 0 {
		return func() {}, nil
	}
	ports, release, err := c.holdNodePorts()
	if err != nil {
		return release, err
	}
	for i, n := range c.nodes {
		n.leafPort = ports[i]
	}
	for i := 1; i <= c.opts.Leafnodes; i++ {
		l := &leaf{name: leafName(i), hub: (i-1)%len(c.nodes) + 1}
		if c.opts.Network != nil {
			up := hostPort(defaultHost, c.nodes[l.hub-1].leafPort)
			if l.link, err = link.Open(l.name+"-hub", hostPort(defaultHost, 0), up, c.opts.Network.Route); err != nil {
				return release, fmt.Errorf("leaf link of %s: %w", l.name, err)
			}
		}
		c.leaves = append(c.leaves, l)
	}
	return release, nil
}

// startLeaves starts the leaf nodes once the hub is ready and waits until each has its leaf
// connection.
func (c *Cluster) startLeaves(ctx context.Context) error {
	for _, l := range c.leaves {
		up := hostPort(defaultHost, c.nodes[l.hub-1].leafPort)
		if l.link != nil {
			up = l.link.Addr()
		}
		o := &server.Options{
			ServerName: l.name,
			Host:       c.opts.Host,
			Port:       server.RANDOM_PORT,
			NoSigs:     true,
			NoLog:      c.opts.Logger == nil,
			LeafNode: server.LeafNodeOpts{
				ReconnectInterval: 250 * time.Millisecond,
				Remotes:           []*server.RemoteLeafOpts{{URLs: []*url.URL{{Scheme: "nats-leaf", Host: up}}}},
			},
		}
		s, err := server.NewServer(o)
		if err != nil {
			return fmt.Errorf("%s: %w", l.name, err)
		}
		l.log = newNodeLogger(c.opts.Logger, "["+l.name+"] ")
		s.SetLogger(l.log, false, false)
		s.Start()
		c.mu.Lock()
		l.srv = s
		c.mu.Unlock()
	}
	return c.poll(ctx, func() (string, error) {
		for _, l := range c.leaves {
			if msg := l.log.fatalError(); msg != "" {
				return "", fmt.Errorf("%s failed: %s", l.name, msg)
			}
			if l.srv.Addr() == nil {
				return l.name + " not accepting connections", nil
			}
			if l.srv.NumLeafNodes() == 0 {
				return l.name + " has no leaf connection to the hub", nil
			}
		}
		return "", nil
	})
}

func (c *Cluster) stopLeaves() {
	for _, l := range c.leaves {
		c.mu.Lock()
		s := l.srv
		l.srv = nil
		c.mu.Unlock()
		if s != nil {
			s.Shutdown()
			s.WaitForShutdown()
		}
		if l.link != nil {
			l.link.Close()
		}
	}
}

// leafURLs are the leaf nodes' client URLs; clients of a hub-and-leaves topology connect there.
func (c *Cluster) leafURLs() []string {
	var urls []string
	for _, l := range c.leaves {
		if l.srv == nil {
			continue
		}
		if a, ok := l.srv.Addr().(*net.TCPAddr); ok {
			urls = append(urls, "nats://"+hostPort(c.opts.dialHost(), a.Port))
		}
	}
	return urls
}

// HubDomain is the JetStream domain of a hub with leaf nodes: their clients reach the hub's
// JetStream as this domain (nats-server denies the domain-less JetStream API across a leaf
// connection of an account other than the system account).
const HubDomain = "hub"

// JetStreamDomain is the domain clients must name, "" without leaf nodes.
func (c *Cluster) JetStreamDomain() string {
	if len(c.leaves) > 0 {
		return HubDomain
	}
	return ""
}

// Leafnodes is the number of leaf nodes (Options.Leafnodes).
func (c *Cluster) Leafnodes() int { return len(c.leaves) }
