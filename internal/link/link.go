// Package link is a network link natsperf controls: a TCP proxy (toxiproxy's Go packages) that
// adds one-way delay, jitter and a bandwidth cap to each direction of every connection through
// it, and can cut the link (a partition) and heal it while the run goes on.
package link

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Conditions are what a link does to each direction of the traffic through it.
type Conditions struct {
	Delay  time.Duration // one way, added to every byte
	Jitter time.Duration // Delay varies uniformly within ±Jitter
	// Bandwidth caps each direction, in bytes per second (0: no cap; at least 1000).
	Bandwidth int64
}

// Zero reports whether c leaves the traffic as it is.
func (c Conditions) Zero() bool { return c == Conditions{} }

// Plus is c with d's delay and jitter added (a slower stretch in series); the tighter
// bandwidth cap wins.
func (c Conditions) Plus(d Conditions) Conditions {
	out := Conditions{Delay: c.Delay + d.Delay, Jitter: c.Jitter + d.Jitter, Bandwidth: c.Bandwidth}
	if d.Bandwidth > 0 && (out.Bandwidth == 0 || d.Bandwidth < out.Bandwidth) {
		out.Bandwidth = d.Bandwidth
	}
	return out
}

// Check refuses conditions a link cannot apply.
func (c Conditions) Check() error {
	switch {
	case c.Delay < 0 || c.Jitter < 0:
		return errors.New("delay and jitter must not be negative")
	case c.Jitter > c.Delay:
		return fmt.Errorf("jitter %s must not exceed the delay %s (bytes would arrive before they were sent)", c.Jitter, c.Delay)
	case c.Bandwidth < 0 || (c.Bandwidth > 0 && c.Bandwidth < 1000):
		return fmt.Errorf("bandwidth must be at least 1000 bytes/s, got %d", c.Bandwidth)
	}
	return nil
}

func (c Conditions) String() string {
	s := c.Delay.String()
	if c.Jitter > 0 {
		s += "±" + c.Jitter.String()
	}
	if c.Bandwidth > 0 {
		s += fmt.Sprintf(" %d B/s", c.Bandwidth)
	}
	return s
}

// api is the toxiproxy server every link belongs to; its HTTP API is never started.
var api = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())

var directions = [...]string{"upstream", "downstream"}

// Link is one proxy: connections to Addr are forwarded to the upstream address under the
// link's conditions. Its methods are safe for concurrent use.
type Link struct {
	p *toxiproxy.Proxy

	mu   sync.Mutex
	cond Conditions
	cut  bool
}

// Open listens on listen (host:port; port 0 picks one) and forwards to upstream under c.
func Open(name, listen, upstream string, c Conditions) (*Link, error) {
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("link %s: %w", name, err)
	}
	l := &Link{p: toxiproxy.NewProxy(api, name, listen, upstream)}
	for _, dir := range directions {
		if err := l.add(delayType, dir, delayToxic{}); err != nil {
			return nil, err
		}
	}
	if err := l.set(c); err != nil {
		return nil, err
	}
	if err := l.p.Start(); err != nil {
		return nil, fmt.Errorf("link %s: listen on %s: %w", name, listen, err)
	}
	return l, nil
}

// Addr is the host:port the link listens on.
func (l *Link) Addr() string {
	l.p.Lock()
	defer l.p.Unlock()
	return l.p.Listen
}

// Conditions are the link's current conditions.
func (l *Link) Conditions() Conditions {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cond
}

// Set changes the conditions; open connections keep their bytes in flight and their order.
func (l *Link) Set(c Conditions) error {
	if err := c.Check(); err != nil {
		return fmt.Errorf("link %s: %w", l.p.Name, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.set(c)
}

func (l *Link) set(c Conditions) error {
	for _, dir := range directions {
		d := delayToxic{Delay: c.Delay, Jitter: c.Jitter}
		if err := l.update(delayType+"_"+dir, d); err != nil {
			return err
		}
		name := "bandwidth_" + dir
		had, want := l.cond.Bandwidth > 0, c.Bandwidth > 0
		bw := map[string]int64{"rate": max(c.Bandwidth/1000, 1)}
		var err error
		switch {
		case want && had:
			err = l.update(name, bw)
		case want:
			err = l.add("bandwidth", dir, bw)
		case had:
			err = l.p.Toxics.RemoveToxic(context.Background(), name)
		}
		if err != nil {
			return fmt.Errorf("link %s: bandwidth: %w", l.p.Name, err)
		}
	}
	l.cond = c
	return nil
}

// Cut holds every byte in both directions until Heal: connections stay open, senders see
// back-pressure and receivers silence, as in a partition TCP rides out by retransmitting.
func (l *Link) Cut() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut {
		return nil
	}
	for _, dir := range directions {
		if err := l.add(holdType, dir, struct{}{}); err != nil {
			return err
		}
	}
	l.cut = true
	return nil
}

// Heal ends a Cut; what was held flows on, in order.
func (l *Link) Heal() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heal()
}

func (l *Link) heal() error {
	if !l.cut {
		return nil
	}
	var errs []error
	for _, dir := range directions {
		if err := l.p.Toxics.RemoveToxic(context.Background(), holdType+"_"+dir); err != nil {
			errs = append(errs, fmt.Errorf("link %s: heal %s: %w", l.p.Name, dir, err))
		}
	}
	l.cut = false
	return errors.Join(errs...)
}

// Cut reports whether the link is cut.
func (l *Link) IsCut() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cut
}

// Close heals the link, closes its port and every connection through it.
func (l *Link) Close() {
	l.mu.Lock()
	_ = l.heal() // a held toxic would keep its connections' goroutines
	l.mu.Unlock()
	l.p.Stop()
}

// add puts a toxic of type typ on direction dir, named typ_dir.
func (l *Link) add(typ, dir string, attrs any) error {
	body, err := json.Marshal(map[string]any{"type": typ, "stream": dir, "attributes": attrs})
	if err != nil {
		return err
	}
	if _, err := l.p.Toxics.AddToxicJson(bytes.NewReader(body)); err != nil {
		return fmt.Errorf("link %s: add %s %s: %w", l.p.Name, typ, dir, err)
	}
	return nil
}

func (l *Link) update(name string, attrs any) error {
	body, err := json.Marshal(map[string]any{"attributes": attrs, "toxicity": 1})
	if err != nil {
		return err
	}
	if _, err := l.p.Toxics.UpdateToxicJson(name, bytes.NewReader(body)); err != nil {
		return fmt.Errorf("link %s: update %s: %w", l.p.Name, name, err)
	}
	return nil
}
