package cmdline

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/link"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// Links are the network flags (docs/network.md): links natsperf controls between the
// nodes of its embedded cluster, and between its clients and the servers.
type Links struct {
	delay, bandwidth, clientDelay string
	zones                         int
	// Leafnodes and Gateways are --leafnodes and --gateways.
	Leafnodes, Gateways     int
	zoneDelay, gatewayDelay time.Duration
}

func (l *Links) register(f *pflag.FlagSet) {
	f.StringVar(&l.delay, "link-delay", "", "one-way delay on every route between the embedded cluster's nodes, D[,JITTER] (e.g. 5ms or 5ms,1ms); docs/network.md")
	f.StringVar(&l.bandwidth, "link-bandwidth", "", "cap every route of the embedded cluster, each way, in bytes/s (e.g. 10mb)")
	f.IntVar(&l.zones, "zones", 0, "spread the embedded cluster's nodes over N zones (node i in zone (i-1)%N+1); with --zone-delay")
	f.DurationVar(&l.zoneDelay, "zone-delay", 0, "one-way delay added to routes between two zones (e.g. 1ms)")
	f.IntVar(&l.Leafnodes, "leafnodes", 0, "add K leaf nodes to the embedded server or cluster (the hub): the clients connect to the leaves, whose leaf connections carry --link-delay; JetStream as domain hub")
	f.IntVar(&l.Gateways, "gateways", 0, "a supercluster: M clusters (2-9) of the embedded nodes each (--cluster N, or the run's size), joined by gateways that carry --link-delay; the clients connect to the first cluster")
	f.DurationVar(&l.gatewayDelay, "gateway-delay", 0, "one-way delay added on the gateways between the clusters of --gateways (e.g. 5ms; routes within a cluster keep --link-delay)")
	f.StringVar(&l.clientDelay, "client-delay", "", "one-way delay between natsperf's clients and the embedded servers, D[,JITTER] (e.g. 5ms)")
}

func (l *Links) given() bool {
	return l.delay != "" || l.bandwidth != "" || l.zones != 0 || l.zoneDelay != 0 || l.clientDelay != "" || l.Leafnodes != 0 ||
		l.Gateways != 0 || l.gatewayDelay != 0
}

// parseDelay reads D[,JITTER].
func parseDelay(flag, s string) (d, jitter time.Duration, err error) {
	if s == "" {
		return 0, 0, nil
	}
	ds, js, hasJitter := strings.Cut(s, ",")
	if d, err = time.ParseDuration(strings.TrimSpace(ds)); err == nil && hasJitter {
		jitter, err = time.ParseDuration(strings.TrimSpace(js))
	}
	if err != nil || d < 0 || jitter < 0 || jitter > d || d > time.Minute {
		return 0, 0, usagef("--%s: want a delay D[,JITTER] such as 5ms or 5ms,1ms (jitter at most the delay, up to 1m), got %q", flag, s)
	}
	return d, jitter, nil
}

// embedded is the flags as a spec target's embedded fields; nil when none was given.
func (l *Links) embedded() (*spec.Embedded, error) {
	if !l.given() {
		return nil, nil
	}
	e := &spec.Embedded{Zones: l.zones, ZoneDelay: spec.Duration(l.zoneDelay), Leafnodes: l.Leafnodes,
		Gateways: l.Gateways, GatewayDelay: spec.Duration(l.gatewayDelay)}
	d, j, err := parseDelay("link-delay", l.delay)
	if err != nil {
		return nil, err
	}
	e.LinkDelay, e.LinkJitter = spec.Duration(d), spec.Duration(j)
	if d, j, err = parseDelay("client-delay", l.clientDelay); err != nil {
		return nil, err
	}
	e.ClientDelay, e.ClientJitter = spec.Duration(d), spec.Duration(j)
	if l.bandwidth != "" {
		bw, err := units.ParseSize(l.bandwidth)
		if err != nil || bw < 1000 {
			return nil, usagef("--link-bandwidth: want bytes per second of at least 1000, such as 10mb, got %q", l.bandwidth)
		}
		e.LinkBandwidth = spec.Size(bw)
	}
	switch {
	case l.Leafnodes < 0 || l.Leafnodes > 9:
		return nil, usagef("--leafnodes must be 0..9, got %d", l.Leafnodes)
	case l.Gateways != 0 && (l.Gateways < 2 || l.Gateways > 9):
		return nil, usagef("--gateways must be 2..9 clusters, got %d", l.Gateways)
	case l.gatewayDelay < 0:
		return nil, usagef("--gateway-delay must not be negative")
	case l.gatewayDelay > 0 && l.Gateways == 0:
		return nil, usagef("--gateway-delay needs --gateways 2 or more")
	case l.Gateways > 0 && l.Leafnodes > 0:
		return nil, usagef("--gateways with --leafnodes is not supported: give one or the other")
	case l.Gateways > 0 && l.zones > 0:
		return nil, usagef("--zones with --gateways is not supported: a supercluster's clusters are its zones, give --gateway-delay")
	case l.zones < 0 || l.zones > 9:
		return nil, usagef("--zones must be 0..9, got %d", l.zones)
	case l.zoneDelay < 0:
		return nil, usagef("--zone-delay must not be negative")
	case l.zoneDelay > 0 && l.zones < 2:
		return nil, usagef("--zone-delay needs --zones 2 or more")
	}
	return e, nil
}

// network is the flags as links for natsperf server's cluster of nodes.
func (l *Links) Network(nodes int) (*link.Network, error) {
	e, err := l.embedded()
	if err != nil || e == nil {
		return nil, err
	}
	nw := link.FromSpec(e)
	if nw == nil { // --leafnodes or --gateways alone
		return nil, nil
	}
	if e.RouteLinks() && nodes < 2 && e.Leafnodes == 0 && e.Gateways == 0 {
		return nil, usagef("--link-delay, --link-bandwidth and --zones act on the routes between nodes: give --cluster 3")
	}
	if err := nw.Check(nodes); err != nil {
		return nil, usagef("%v", err)
	}
	return nw, nil
}

// CheckLinks refuses the network flags where natsperf cannot put links: they act on its own
// embedded servers, so not against -s or --context (whose network is what it is).
func (c *Conn) CheckLinks() error {
	if !c.Links.given() {
		return nil
	}
	if c.Settings.Servers != "" || c.Settings.Context != "" {
		return usagef("--link-delay, --link-bandwidth, --zones, --zone-delay, --client-delay, --leafnodes and --gateways put links into natsperf's embedded servers; the network to servers given with -s or --context is what it is, so a run there could not measure them")
	}
	_, err := c.Links.embedded()
	return err
}

// WithLinks adds the network flags to t's embedded server (which they start even when
// NATS_URL names one).
func (c *Conn) WithLinks(t *spec.Target) {
	e, err := c.Links.embedded()
	if err != nil || e == nil || len(t.Servers) > 0 || t.Context != "" {
		return
	}
	if t.Embedded == nil {
		t.Embedded = &spec.Embedded{}
	}
	t.Embedded.LinkDelay, t.Embedded.LinkJitter, t.Embedded.LinkBandwidth = e.LinkDelay, e.LinkJitter, e.LinkBandwidth
	t.Embedded.Zones, t.Embedded.ZoneDelay = e.Zones, e.ZoneDelay
	t.Embedded.ClientDelay, t.Embedded.ClientJitter = e.ClientDelay, e.ClientJitter
	t.Embedded.Leafnodes = e.Leafnodes
	t.Embedded.Gateways, t.Embedded.GatewayDelay = e.Gateways, e.GatewayDelay
}

// RefuseLinksOnRun: a scenario or Spec file gives its network in target.embedded.
func (c *Conn) RefuseLinksOnRun() error {
	if c.Links.given() {
		return usagef("the network flags do not apply to natsperf run: give link_delay, zones, zone_delay, client_delay, gateways in the file's target.embedded (examples/zones.yaml)")
	}
	return nil
}
