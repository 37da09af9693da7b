package nodes

import (
	"fmt"
	"time"
)

// Cluster is a cluster as the fault operations see it: what each kind of cluster does its
// own way. Both clusters implement it with an unexported adapter, so none of it is public.
type Cluster[N Node] interface {
	// Kind starts every error: "embedded", "procs".
	Kind() string
	// Nodes are the cluster's nodes in order.
	Nodes() List[N]
	// Lock and Unlock are the cluster's lock over starts, faults and Shutdown.
	Lock()
	Unlock()
	// Shut reports whether Shutdown has run (under Lock).
	Shut() bool
	// Running reports whether n's server is up.
	Running(n N) bool
	// Start starts n's server, its store mounted again, without waiting for it.
	Start(n N) error
	// Stop stops n's server at once, as a crash would, and returns once it is gone; a node
	// that is down (or only half started) is left down.
	Stop(n N)
	// Ready waits, within the cluster's ready timeout, until the servers of ns accept
	// clients and the cluster is ready around them.
	Ready(ns []N) error
}

// At is node i of cluster c, or an error that starts with the cluster's kind.
func At[N Node](c Cluster[N], i int) (N, error) {
	n, err := c.Nodes().At(i)
	if err != nil {
		return n, fmt.Errorf("%s: %w", c.Kind(), err)
	}
	return n, nil
}

// check is nil when n is running, else why not (ErrShutdown, ErrNodeDown); under Lock.
func check[N Node](c Cluster[N], n N) error {
	if c.Shut() {
		return ErrShutdown
	}
	if !c.Running(n) {
		return ErrNodeDown
	}
	return nil
}

// Kill stops node i as a crash does; its store stays for Restart.
func Kill[N Node](c Cluster[N], i int) error {
	n, err := At(c, i)
	if err != nil {
		return err
	}
	c.Lock()
	defer c.Unlock()
	if err := check(c, n); err != nil {
		return fmt.Errorf("%s: kill %s: %w", c.Kind(), n.slot().Name, err)
	}
	c.Stop(n)
	return nil
}

// Restart brings node i back on its ports and store and waits until it is ready; a running
// node is killed first. On failure the node is left down.
func Restart[N Node](c Cluster[N], i int) error {
	n, err := At(c, i)
	if err != nil {
		return err
	}
	c.Lock()
	defer c.Unlock()
	if c.Shut() {
		return fmt.Errorf("%s: restart %s: %w", c.Kind(), n.slot().Name, ErrShutdown)
	}
	if c.Running(n) {
		c.Stop(n)
	}
	err = c.Start(n)
	if err == nil {
		err = c.Ready([]N{n})
	}
	if err != nil {
		c.Stop(n)
		return fmt.Errorf("%s: restart %s: %w", c.Kind(), n.slot().Name, err)
	}
	return nil
}

// RestartAll starts the nodes that are down among idx together and waits until they are
// ready. Nodes that all lost power must start together: one alone has no quorum and would
// never be ready. On failure every one of them is left down.
func RestartAll[N Node](c Cluster[N], idx []int) error {
	ns, err := pick(c, idx)
	if err != nil {
		return err
	}
	c.Lock()
	defer c.Unlock()
	if c.Shut() {
		return fmt.Errorf("%s: restart: %w", c.Kind(), ErrShutdown)
	}
	var down []N
	for _, n := range ns {
		if !c.Running(n) {
			down = append(down, n)
		}
	}
	stop := func() {
		for _, n := range down {
			c.Stop(n)
		}
	}
	for _, n := range down {
		if err := c.Start(n); err != nil {
			stop()
			return fmt.Errorf("%s: restart %s: %w", c.Kind(), n.slot().Name, err)
		}
	}
	if err := c.Ready(down); err != nil {
		stop()
		return fmt.Errorf("%s: restart: %w", c.Kind(), err)
	}
	return nil
}

// Pause checks that node i can be paused for d, then pause does it (its own way), under Lock.
func Pause[N Node](c Cluster[N], i int, d time.Duration, pause func(N) error) error {
	n, err := At(c, i)
	if err != nil {
		return err
	}
	if d <= 0 {
		return fmt.Errorf("%s: pause %s: duration must be positive, got %s", c.Kind(), n.slot().Name, d)
	}
	c.Lock()
	defer c.Unlock()
	err = check(c, n)
	if err == nil {
		err = pause(n)
	}
	if err != nil {
		return fmt.Errorf("%s: pause %s: %w", c.Kind(), n.slot().Name, err)
	}
	return nil
}

// PowerFail stops the nodes idx of cluster c at one instant, as a power failure would (instant
// does it, the cluster's own way), and drops what they had not fsynced (powerFail).
func PowerFail[N Node](c Cluster[N], idx []int, instant func([]N)) (string, error) {
	ns, err := pick(c, idx)
	if err != nil {
		return "", err
	}
	c.Lock()
	defer c.Unlock()
	detail, err := powerFail(ns, func(n N) error { return check(c, n) }, instant)
	if err != nil {
		return detail, fmt.Errorf("%s: %w", c.Kind(), err)
	}
	return detail, nil
}

// Corrupt flips one bit of the newest message block of node i's store (Slot.Corrupt); the
// node must be down.
func Corrupt[N Node](c Cluster[N], i int) (string, error) {
	n, err := At(c, i)
	if err != nil {
		return "", err
	}
	c.Lock()
	defer c.Unlock()
	fl, err := n.slot().Corrupt(c.Running(n))
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.Kind(), err)
	}
	return fl, nil
}

func pick[N Node](c Cluster[N], idx []int) ([]N, error) {
	ns, err := c.Nodes().Pick(idx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Kind(), err)
	}
	return ns, nil
}
