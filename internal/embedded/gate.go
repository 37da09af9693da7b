package embedded

import (
	"sync"
	"time"
)

// gate is one node's pause switch. Proxied connections of the node wait on
// it before every read and write, so a closed gate stops bytes in both
// directions while the TCP connections stay open, as they would for a
// SIGSTOPped process.
type gate struct {
	mu    sync.Mutex
	open  chan struct{} // closed while traffic may flow
	timer *time.Timer
	gen   uint64 // invalidates the timer of an earlier pause
}

func newGate() *gate {
	open := make(chan struct{})
	close(open)
	return &gate{open: open}
}

// pause closes the gate and reopens it after d. Pausing a paused gate
// restarts the countdown.
func (g *gate) pause(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.pausedLocked() {
		g.open = make(chan struct{})
	}
	if g.timer != nil {
		g.timer.Stop()
	}
	g.gen++
	gen := g.gen
	g.timer = time.AfterFunc(d, func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.gen == gen {
			g.resumeLocked()
		}
	})
}

func (g *gate) resume() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.resumeLocked()
}

func (g *gate) resumeLocked() {
	g.gen++
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
	if g.pausedLocked() {
		close(g.open)
	}
}

func (g *gate) paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pausedLocked()
}

func (g *gate) pausedLocked() bool {
	select {
	case <-g.open:
		return false
	default:
		return true
	}
}

// wait blocks while the gate is paused; false means done was closed first.
func (g *gate) wait(done <-chan struct{}) bool {
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	select {
	case <-open:
		return true
	case <-done:
		return false
	}
}
