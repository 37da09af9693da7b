// Package netns builds small private networks out of Linux network namespaces for tests that
// need traffic to really cross network interfaces (a server and its clients on different
// "machines") without leaving the host: every node gets its own namespace with one veth link,
// named eth0 and addressed from 10.213.0.0/24, plugged into a bridge that lives in a hub
// namespace of its own. Nothing is created in, or routed through, the host's namespace, and a
// node has no route beyond its /24, so nothing it sends can leave the network.
//
// It drives iproute2's `ip` (root only); Available says whether it can work here.
package netns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

const (
	// prefix starts every namespace this package makes: prefix-PID-N-NODE.
	prefix = "natsperf-"
	// Iface is the name of a node's link inside its namespace.
	Iface = "eth0"
	// subnet is the nodes' /24 (host numbers 1..maxNodes); each Network is isolated in its own
	// namespaces, so networks running side by side may reuse it.
	subnet   = "10.213.0."
	maxNodes = 250
	hubName  = "hub"
	bridge   = "br0"
)

var (
	nodeName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,15}$`)
	counter  atomic.Uint64

	availableOnce sync.Once
	availableOK   bool
	availableWhy  string
)

// Available reports whether networks can be built here: running as root, `ip` on PATH and
// creating a namespace works. When not, why says which of these failed.
func Available() (ok bool, why string) {
	availableOnce.Do(func() { availableOK, availableWhy = probe() })
	return availableOK, availableWhy
}

func probe() (bool, string) {
	if os.Geteuid() != 0 {
		return false, "network namespaces need root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false, "iproute2's ip is not on PATH"
	}
	name := fmt.Sprintf("%s%d-%d-probe", prefix, os.Getpid(), counter.Add(1))
	if err := ip(context.Background(), "netns", "add", name); err != nil {
		return false, fmt.Sprintf("cannot create a network namespace: %v", err)
	}
	if err := ip(context.Background(), "netns", "del", name); err != nil {
		return false, fmt.Sprintf("cannot delete network namespace %s: %v", name, err)
	}
	return true, ""
}

// Network is a set of namespaces (nodes) joined by one bridge.
type Network struct {
	id    string            // prefix-PID-N
	nodes map[string]string // node name -> its address
	order []string          // node names as given to New
	made  []string          // namespaces created so far, hub first
}

// New creates one namespace per name, each linked to the hub's bridge with address
// 10.213.0.K (K = its position in names, from 1), all links up, loopback included. On error
// everything made so far is removed. Names are short lowercase words, unique, not "hub".
// It first removes namespaces left by processes that died before closing their networks.
func New(ctx context.Context, names ...string) (*Network, error) {
	if len(names) == 0 || len(names) > maxNodes {
		return nil, fmt.Errorf("netns: %d nodes, want 1 to %d", len(names), maxNodes)
	}
	n := &Network{id: fmt.Sprintf("%s%d-%d", prefix, os.Getpid(), counter.Add(1)), nodes: map[string]string{}}
	for i, name := range names {
		if !nodeName.MatchString(name) || name == hubName {
			return nil, fmt.Errorf("netns: node name %q: want 1-16 of a-z, 0-9 and -, not %q", name, hubName)
		}
		if _, dup := n.nodes[name]; dup {
			return nil, fmt.Errorf("netns: node %q named twice", name)
		}
		n.nodes[name] = subnet + strconv.Itoa(i+1)
		n.order = append(n.order, name)
	}
	if ok, why := Available(); !ok {
		return nil, errors.New("netns: " + why)
	}
	removeStale(ctx)
	if err := n.build(ctx); err != nil {
		return nil, errors.Join(err, n.Close())
	}
	return n, nil
}

func (n *Network) build(ctx context.Context) error {
	hub := n.Namespace(hubName)
	if err := n.add(ctx, hub); err != nil {
		return err
	}
	steps := [][]string{
		{"-n", hub, "link", "set", "lo", "up"},
		{"-n", hub, "link", "add", bridge, "type", "bridge"},
		{"-n", hub, "link", "set", bridge, "up"},
	}
	if err := ipAll(ctx, steps); err != nil {
		return err
	}
	for i, name := range n.order {
		ns := n.Namespace(name)
		if err := n.add(ctx, ns); err != nil {
			return err
		}
		// Both ends are made from inside the hub and the far end goes straight into the node's
		// namespace: the host's namespace never sees either.
		port := "v" + strconv.Itoa(i+1)
		steps := [][]string{
			{"-n", hub, "link", "add", port, "type", "veth", "peer", "name", Iface, "netns", ns},
			{"-n", hub, "link", "set", port, "master", bridge},
			{"-n", hub, "link", "set", port, "up"},
			{"-n", ns, "addr", "add", n.nodes[name] + "/24", "dev", Iface},
			{"-n", ns, "link", "set", Iface, "up"},
			{"-n", ns, "link", "set", "lo", "up"},
		}
		if err := ipAll(ctx, steps); err != nil {
			return err
		}
	}
	return nil
}

func (n *Network) add(ctx context.Context, ns string) error {
	if err := ip(ctx, "netns", "add", ns); err != nil {
		return err
	}
	n.made = append(n.made, ns)
	return nil
}

// Nodes returns the node names in the order New was given them.
func (n *Network) Nodes() []string { return append([]string(nil), n.order...) }

// Addr returns the node's IPv4 address ("" for a name New was not given).
func (n *Network) Addr(name string) string { return n.nodes[name] }

// Namespace returns the name of the node's namespace, for `ip netns exec` or `ip -n`.
func (n *Network) Namespace(name string) string { return n.id + "-" + name }

// Command returns a command that runs argv inside the node's namespace (`ip netns exec`, which
// execs argv in place, so the process is argv itself and ctx's cancellation kills it). Stop the
// commands before Close: a namespace lives on while a process is still inside it.
func (n *Network) Command(ctx context.Context, name string, argv ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", n.Namespace(name)}, argv...)...)
}

// Counters returns the bytes received and sent by the node's link, as its kernel counts them
// (/sys/class/net/eth0/statistics, read inside the namespace).
func (n *Network) Counters(ctx context.Context, name string) (rx, tx uint64, err error) {
	if _, ok := n.nodes[name]; !ok {
		return 0, 0, fmt.Errorf("netns: no node %q", name)
	}
	const dir = "/sys/class/net/" + Iface + "/statistics/"
	out, err := n.Command(ctx, name, "cat", dir+"rx_bytes", dir+"tx_bytes").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("netns: counters of %s: %w", name, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("netns: counters of %s: unexpected %q", name, out)
	}
	if rx, err = strconv.ParseUint(f[0], 10, 64); err == nil {
		tx, err = strconv.ParseUint(f[1], 10, 64)
	}
	return rx, tx, err
}

// Close deletes every namespace of the network, which removes its links and bridge with them.
// It may be called more than once.
func (n *Network) Close() error {
	var errs []error
	for i := len(n.made) - 1; i >= 0; i-- {
		if err := ip(context.Background(), "netns", "del", n.made[i]); err != nil {
			errs = append(errs, err)
		}
	}
	n.made = nil
	return errors.Join(errs...)
}

// removeStale deletes the namespaces of this package whose process is gone (a test binary that
// was killed before its clean-up ran), so leftovers neither pile up nor clash. Namespaces of
// live processes, and any not named by this package, are left alone.
func removeStale(ctx context.Context) {
	out, err := exec.CommandContext(ctx, "ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line) // "NAME (id: N)" or "NAME"
		if len(f) == 0 || !strings.HasPrefix(f[0], prefix) {
			continue
		}
		pidText, _, _ := strings.Cut(strings.TrimPrefix(f[0], prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		_ = ip(ctx, "netns", "del", f[0]) // best effort: another process may be sweeping too
	}
}

func ipAll(ctx context.Context, steps [][]string) error {
	for _, s := range steps {
		if err := ip(ctx, s...); err != nil {
			return err
		}
	}
	return nil
}

func ip(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
