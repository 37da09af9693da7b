package nodes

import (
	"context"
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
	// Start starts n's server without waiting for it; again, after a stop: its store mounted
	// again and its ports opened again.
	Start(n N, again bool) error
	// Stop stops n's server at once, as a crash would, and returns once it is gone; a node
	// that is down (or only half started) is left down.
	Stop(n N)
	// Listening is what n's server still lacks to accept clients ("" when nothing), or why
	// waiting is pointless (its process exited, it logged a fatal error).
	Listening(n N) (pending string, err error)
	// Ready is what the cluster still lacks around the nodes ns, which are listening: each
	// with JetStream and, in a cluster, one meta leader every running node follows.
	Ready(ns []N) (pending string, err error)
	// Waiter is how the cluster waits: its ready timeout, and its Shutdown ending a wait.
	Waiter() Waiter
}

// StartInOrder starts the nodes of c one at a time, each once the one before listens, then
// waits until the cluster is ready, within ctx (the start's, from Waiter.WithTimeout). One at
// a time: when two servers solicit each other at the same instant, nats-server can drop the
// bootstrap meta vote and cost a full 4-9 s election timeout.
func StartInOrder[N Node](ctx context.Context, c Cluster[N]) error {
	w := c.Waiter()
	for _, n := range c.Nodes() {
		if err := c.Start(n, false); err != nil {
			return err
		}
		if err := w.Poll(ctx, func() (string, error) { return c.Listening(n) }); err != nil {
			return err
		}
	}
	return w.Poll(ctx, func() (string, error) { return c.Ready(c.Nodes()) })
}

// ready waits, within the ready timeout, until each of ns listens and the cluster is ready.
func ready[N Node](c Cluster[N], ns []N) error {
	w := c.Waiter()
	ctx, cancel := w.WithTimeout(context.Background())
	defer cancel()
	for _, n := range ns {
		if err := w.Poll(ctx, func() (string, error) { return c.Listening(n) }); err != nil {
			return err
		}
	}
	return w.Poll(ctx, func() (string, error) { return c.Ready(ns) })
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
	err = c.Start(n, true)
	if err == nil {
		err = ready(c, []N{n})
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
		if err := c.Start(n, true); err != nil {
			stop()
			return fmt.Errorf("%s: restart %s: %w", c.Kind(), n.slot().Name, err)
		}
	}
	if err := ready(c, down); err != nil {
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
